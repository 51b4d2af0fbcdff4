// Every event line of the saved traces a locksim wrote (traces/corpus and
// the fuzzer's seed traces, fuzz/corpus/trace_reader/seed-*) reads into an
// Event and encodes back to the same bytes: what the reader turns into
// types (operation, owner, lock, reply, the detail's facts) the writer turns
// back into the same text. A trace the reader refuses (the bug traces) is
// passed over; every other one must read to its end.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "traces/trace_format.h"
#include "traces/trace_reader.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> written_traces() {
  std::vector<fs::path> out;
  const fs::path source(LOCKSIM_SOURCE_DIR);
  for (const auto& f : fs::directory_iterator(source / "traces" / "corpus"))
    if (f.path().extension() == ".jsonl") out.push_back(f.path());
  for (const auto& f : fs::directory_iterator(source / "fuzz" / "corpus" / "trace_reader"))
    if (f.path().extension() == ".jsonl" && f.path().filename().string().rfind("seed-", 0) == 0) out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CorpusReencode, EveryEventLineEncodesBackToItsBytes) {
  int traces = 0;
  uint64_t lines = 0;
  for (const fs::path& path : written_traces()) {
    std::optional<TraceReader> reader;
    try {
      reader.emplace(path.string());
    } catch (const TraceError&) {
      continue;  // a bug trace: refused at its header
    }
    ++traces;
    Event e;
    try {
      while (reader->next(e)) {
        const std::string& line = reader->last_line();
        const bool repeated = line.find("\"lr\":1") != std::string::npos;
        ASSERT_EQ(encode_event(e, repeated), line) << path << ":" << reader->line_number();
        ++lines;
      }
    } catch (const TraceError& error) {
      // A bug trace refused at one of its events: only those may be.
      const std::string name = path.filename().string();
      EXPECT_TRUE(name.rfind("bug", 0) == 0 || name.rfind("fuzz", 0) == 0) << path << ": " << error.what();
    }
  }
  EXPECT_GE(traces, 10);
  EXPECT_GT(lines, 4000u);
}

}  // namespace
}  // namespace locksim
