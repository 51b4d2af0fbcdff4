// FastEventDecoder: decodes trace event lines with simdjson (a reused DOM
// parser, no allocation per value) instead of building an nlohmann DOM per
// line, which limited `locksim check` to a few tens of thousands of events
// per second.
//
// Contract: decode(line, &e) returns true only for a line in the plain shape
// the writer produces (one flat object, known keys at most once each, every
// value of its exact type and in range), and then *e is exactly what
// decode_event (trace_format.h) gives for the same line. For anything else
// (malformed JSON, duplicate or unknown keys, a float where an integer is
// expected, out-of-range numbers, nesting) it returns false without judging:
// the caller then runs decode_event, which decides and words the error. So
// the fast path can only make reading faster, never change what is accepted
// or how a problem is reported (tests/traces and fuzz_trace_reader compare
// the two).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "traces/event.h"
#include "traces/line_entry_pool.h"

namespace locksim {

class FastEventDecoder {
 public:
  FastEventDecoder();
  ~FastEventDecoder();
  FastEventDecoder(const FastEventDecoder&) = delete;
  FastEventDecoder& operator=(const FastEventDecoder&) = delete;

  // Decodes in place: *out may hold an earlier event, whose storage is
  // reused. *line_repeated as decode_event sets it ("lr"); with it null, a
  // line with "lr" is declined. With "lr", out->line_after is left empty,
  // as decode_event leaves it, for the caller to give it the repeated line
  // (TraceReader does).
  bool decode(std::string_view line, Event* out, bool* line_repeated = nullptr);

 private:
  struct Parser;  // simdjson's parser, kept out of this header
  std::unique_ptr<Parser> parser_;
  std::vector<char> padded_;  // the line plus simdjson's padding
  LineEntryPool entry_pool_;  // spare entries for the lines decode() reads
  // Lines that no event shares any more (an event being decoded over held
  // the last copy), refilled in place by the next "ln" instead of
  // allocating a line and its owner strings again.
  static constexpr size_t kMaxSpareLines = 64;
  std::vector<SharedLine> spare_lines_;
  std::string detail_;  // the line's "d", read into the event's facts once its kind and op are known
};

}  // namespace locksim
