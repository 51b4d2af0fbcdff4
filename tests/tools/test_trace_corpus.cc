// traces/corpus/: every saved trace is replayed and checked with the exit
// codes and key phrase index.json records for it: failing-seed traces keep
// replaying identically and failing, bug traces keep being refused (one
// line, exit 2, never a crash), correct runs stay correct.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::line_count;
using locksim::testing::run_locksim;

const fs::path kCorpus = fs::path(LOCKSIM_SOURCE_DIR) / "traces" / "corpus";

nlohmann::json index_entries() {
  std::ifstream in(kCorpus / "index.json");
  return nlohmann::json::parse(in).at("traces");
}

TEST(TraceCorpus, EveryTraceIsIndexed) {
  std::set<std::string> indexed;
  for (const auto& entry : index_entries()) indexed.insert(entry.at("file").get<std::string>());
  size_t traces = 0;
  for (const auto& f : fs::directory_iterator(kCorpus)) {
    if (f.path().extension() != ".jsonl") continue;
    ++traces;
    EXPECT_TRUE(indexed.count(f.path().filename().string())) << f.path() << " is not in index.json";
  }
  EXPECT_EQ(traces, indexed.size());
}

TEST(TraceCorpus, ReplayAndCheckGiveTheRecordedResults) {
  for (const auto& entry : index_entries()) {
    const std::string file = (kCorpus / entry.at("file").get<std::string>()).string();
    const std::string says = entry.at("says").get<std::string>();
    for (const char* command : {"replay", "check"}) {
      const int want = entry.at(command).get<int>();
      const auto r = run_locksim(std::string(command) + " " + file);
      EXPECT_EQ(r.exit_code, want) << command << " " << file << "\n" << r.out;
      if (want == 2) {
        EXPECT_EQ(line_count(r.out), 1) << command << " " << file << "\n" << r.out;
        EXPECT_NE(r.out.find(says), std::string::npos) << command << " " << file << "\n" << r.out;
      }
      if (std::string(command) == "replay" && want == 0) {
        EXPECT_NE(r.out.find("reproduced identically"), std::string::npos) << file << "\n" << r.out;
      }
      if (std::string(command) == "check" && want != 2) {
        EXPECT_NE(r.out.find(says), std::string::npos) << "check " << file << "\n" << r.out;
      }
    }
  }
}

}  // namespace
