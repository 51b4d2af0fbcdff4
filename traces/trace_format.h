// The locksim trace format, version 2: JSON Lines.
//
//   line 1:  {"format":"locksim-trace","version":1,"seed":<u64>,"build":"<id>",
//             "backend":"model"|"live","scenario":<any JSON>}
//   line 2+: one Event (traces/event.h) per line, in history order.
//
// Event lines use short stable keys in this fixed order, and leave out every
// field at its default value (id, t and k are always written):
//   id  id            t    true_us        k     kind ("invoke", "ok", ...)
//   c   client (-1)   s    server (-1)    o     owner       l    lock
//   op  op            opid op_id          lms   local_ms
//   wait wait_ms (-1) lease lease_ms (-1) v     value       d    detail
//   sc  script        rid  request_id     r     reply       sms  server_ms
//   h   holders_after (array of strings)  p     published (array of strings)
//   dur duration_ms   tg   target (-1)
//   ln  line_after, written whenever line_known (version 2): an array of
//       [owner, deadline] pairs, head first; deadline is a JSON number
//       (integral values as integers), the string "inf"/"-inf", or absent
//       ([owner] alone) when the waiter has no deadline.
// Version 1 (read, never written) has no "ln" and no local_ms on Script
// events; checkers then rebuild the fair line from bounds.
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
inline constexpr int kTraceVersion = 2;
inline constexpr int kOldestTraceVersion = 1;  // still readable

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
  int version = kTraceVersion;  // as read; the writer always writes kTraceVersion
  bool operator==(const TraceHeader&) const = default;
};

// The build id this binary writes into headers (CMake LOCKSIM_BUILD_ID).
std::string_view trace_build_id();

// One line, without the trailing newline.
std::string encode_header(const TraceHeader& header);
std::string encode_event(const Event& event);

// Parse one line. On failure return false and set *error to a message without
// file/line prefix (the reader adds it). decode_header checks the format name
// and version: "unsupported trace version 7 (this build reads versions 1-2)".
// `event` as a writer of `version` would have recorded it (version 1: no
// line_after and no local_ms on Script events). Replaying an old trace
// compares the new run's events through this.
Event event_as_version(const Event& event, int version);

bool decode_header(std::string_view line, TraceHeader* out, std::string* error);
bool decode_event(std::string_view line, Event* out, std::string* error);

}  // namespace locksim
