// TraceReader: streams a trace back, one Event at a time (bounded memory).
// The constructor reads and checks the header; next() decodes the following
// lines. Every problem throws TraceError with "<name>:<line>: <what>", e.g.
//   trace.jsonl:1: unsupported trace version 7 (this build reads version 1)
//   trace.jsonl:5: malformed JSON at column 12 (expected one JSON object per line)
//   trace.jsonl:9: event id 4 does not follow 7 (ids must increase)
// Memory stays bounded whatever the input: the header line may hold at most
// kMaxHeaderBytes and an event line kMaxEventBytes; a longer line is an
// error as soon as the bound is passed (the rest is never read).
//
// first_difference() walks two readers in step and reports the first event
// where they disagree (compared as decoded Events), or that one ends first.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "traces/event.h"
#include "traces/fast_event_decoder.h"
#include "traces/line_memory.h"
#include "traces/trace_format.h"

namespace locksim {

class TraceReader {
 public:
  static constexpr size_t kMaxHeaderBytes = 1024 * 1024;
  static constexpr size_t kMaxEventBytes = 64 * 1024 * 1024;

  // Reads from `in`, which must outlive the reader; `name` appears in errors.
  TraceReader(std::istream& in, std::string name);
  // Opens the file at `path`; throws TraceError if it cannot.
  explicit TraceReader(const std::string& path);
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  const TraceHeader& header() const { return header_; }
  const std::string& name() const { return name_; }

  // Reads the next event into *out (reusing its storage); false at the end
  // of the trace. On an error (TraceError) *out is unspecified.
  bool next(Event& out);

  uint64_t line_number() const { return line_number_; }  // of the last line read (1 = header)
  const std::string& last_line() const { return line_; }  // text of that line
  uint64_t events_read() const { return events_read_; }

 private:
  static constexpr size_t kReadBlockBytes = 1 << 16;
  enum class LineRead { Line, End, TooLong };
  LineRead read_bounded_line(std::string* line, size_t max_bytes);
  void read_header();
  [[noreturn]] void fail(const std::string& what) const;

  std::unique_ptr<std::ifstream> file_;
  std::istream* in_ = nullptr;
  std::string name_;
  TraceHeader header_;
  std::string line_;
  std::vector<char> buffer_;  // read ahead from in_: [buffer_pos_, buffer_end_) not yet taken
  size_t buffer_pos_ = 0;
  size_t buffer_end_ = 0;
  FastEventDecoder fast_;  // the common case; decode_event decides the rest
  LineMemory lines_;       // version 3: the lines "lr" repeats
  uint64_t line_number_ = 0;
  uint64_t events_read_ = 0;
  std::optional<uint64_t> last_id_;
  std::optional<int64_t> last_true_us_;  // events are in true-time order
};

struct TraceDifference {
  uint64_t index = 0;             // 0-based position among the events
  std::optional<Event> a;         // nullopt: trace a ended here
  std::optional<Event> b;
  std::string line_a;             // raw line, or "<end of trace>"
  std::string line_b;
  uint64_t line_number_a = 0;     // 1-based line in the file (0 at end)
  uint64_t line_number_b = 0;
};

// Consumes both readers up to the first difference. Headers are not compared
// (the caller decides whether seed/build/backend must match).
std::optional<TraceDifference> first_difference(TraceReader& a, TraceReader& b);

}  // namespace locksim
