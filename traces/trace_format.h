// The locksim trace format, version 4: JSON Lines.
//
//   line 1:  {"format":"locksim-trace","version":1,"seed":<u64>,"build":"<id>",
//             "backend":"model"|"live","scenario":<any JSON>[,"plan":<object>]}
//           "plan" (only in a shrunk counterexample's trace, absent otherwise):
//           the explicit plan that was run instead of the scenario's
//           generated workload (sim/explicit_plan_json.h); opaque here.
//   line 2+: one Event (traces/event.h) per line, in history order.
//
// Event lines use short stable keys in this fixed order, and leave out every
// field at its default value (id, t and k are always written):
//   id  id            t    true_us        k     kind ("invoke", "ok", ...)
//   c   client (-1)   s    server (-1)    o     owner       l    lock
//   op  op            opid op_id          lms   local_ms
//   wait wait_ms (-1) lease lease_ms (-1) v     value       d    detail
//   tk  token (version 4: an acquire's Ok under a design with fresh tokens)
//   sc  script        rid  request_id     r     reply       sms  server_ms
//   h   holders_after (array of strings)  p     published (array of strings)
//   dur duration_ms   tg   target (-1)
//   ln  line_after, written whenever line_known (version 2): an array of
//       [owner, deadline] pairs, head first; deadline is a JSON number
//       (integral values as integers), the string "inf"/"-inf", or absent
//       ([owner] alone) when the waiter has no deadline.
//   lr  1 in place of "ln" (version 3): the line is the same as the line of
//       the previous event with a line for the same server ("s") and lock
//       ("l") (traces/line_memory.h). A fair lock's pollers mostly leave the
//       line as it was, so this keeps a trace a fraction of the size.
//       Only a trace reader, which remembers the lines, can decode it.
// Version 4 adds "tk"; a trace without it reads as version 3 does.
// Version 2 (read, never written) writes "ln" on every such event; version
// 1 (read, never written) has no "ln" and no local_ms on Script events;
// checkers then rebuild the fair line from bounds. The Events of versions 2
// and 3 are the same; only the encoding differs.
// Numbers are JSON integers; strings are expected to be UTF-8 (JSON escapes
// for '"', '\\' and control characters). Encoding is byte-deterministic: the
// same Event always gives the same line. Decoding is strict: unknown keys,
// wrong types and out-of-range numbers are errors. A new field or key means
// a new version; readers reject versions they do not know.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "traces/event.h"

namespace locksim {

inline constexpr std::string_view kTraceFormatName = "locksim-trace";
inline constexpr int kTraceVersion = 5;
inline constexpr int kOldestTraceVersion = 1;  // still readable
// Version 5 changes no line; it marks the client that keeps a wake-up which
// reaches a waiter while its poll is in flight. Older traces were written by
// one that dropped it, and their scenarios read so (sim/run.h).
inline constexpr int kKeptWakeupsTraceVersion = 5;

// A problem reading or writing a trace. The message names the file and line
// where there is one: "trace.jsonl:3: ...".
struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TraceHeader {
  uint64_t seed = 0;
  std::string build;           // build id of the writer (trace_build_id())
  std::string backend;         // "model" or "live"
  nlohmann::json scenario = nlohmann::json::object();  // opaque: produced by sim/
  nlohmann::json plan;          // null (absent), or an explicit plan object: opaque, produced by sim/
  int version = kTraceVersion;  // as read; the writer always writes kTraceVersion
  bool operator==(const TraceHeader&) const = default;
};

// The build id this binary writes into headers (CMake LOCKSIM_BUILD_ID).
std::string_view trace_build_id();

// One line, without the trailing newline.
std::string encode_header(const TraceHeader& header);
// With `line_repeated` (and line_known), "lr":1 is written in place of "ln".
std::string encode_event(const Event& event, bool line_repeated = false);
// The same text, written over *out (a writer reuses one buffer).
void encode_event_to(std::string* out, const Event& event, bool line_repeated = false);

// Parse one line. On failure return false and set *error to a message without
// file/line prefix (the reader adds it). decode_header checks the format name
// and version: "unsupported trace version 7 (this build reads versions 1-2)".
// `event` as a writer of `version` would have recorded it (version 1: no
// line_after and no local_ms on Script events). Replaying an old trace
// compares the new run's events through this.
Event event_as_version(const Event& event, int version);

bool decode_header(std::string_view line, TraceHeader* out, std::string* error);
// A line with "lr" decodes with line_known set and line_after empty, and
// *line_repeated true, for the reader to fill in the remembered line; with
// line_repeated null (no memory of lines), "lr" is an error.
bool decode_event(std::string_view line, Event* out, std::string* error, bool* line_repeated = nullptr);

}  // namespace locksim
