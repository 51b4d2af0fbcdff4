// The files of a runs directory (reports/run_summary.h), opened as data that
// may be hostile: a summary.json copied from a shared volume names files
// that `merge` copies and `report` reads, and a shard directory may hold
// links, FIFOs or devices under those names.
//
// Contract:
//  - failure_trace_file(), shrunk_trace_file(), timeline_file(): the names
//    a campaign writes for a failing seed's files;
//  - is_failure_file_name(): whether `name` is exactly a name a campaign
//    writes for the failure entry (seed, property) under `key` ("trace",
//    "shrunk_trace", "timeline", or the counterexample's "trace"): a relative
//    name inside failures/ or timelines/, never absolute, never "..".
//  - open_run_file(): opens <dir>/<relative> for reading without following
//    a symbolic link in any component below `dir` (`dir` itself is the
//    user's own choice and may be a link), without blocking on a FIFO, and
//    only when it is a regular file of at most `max_bytes`. Returns the
//    descriptor (the caller closes it). Every refusal throws RunFileError
//    naming the path and the reason; nothing is read before the checks.
//  - read_run_file(): the same, read whole into memory.
//  - read_run_summary(): <dir>/summary.json opened the same way (at most
//    kMaxSummaryBytes), parsed with the bounded JSON reader (nesting depth)
//    and checked completely (check_summary_json), or RunFileError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace locksim {

struct RunFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr uint64_t kMaxSummaryBytes = 256ull << 20;     // 256 MiB
inline constexpr uint64_t kMaxRunFileBytes = 16ull << 30;      // a trace or timeline: 16 GiB
inline constexpr uint64_t kMaxInlinedSvgBytes = 64ull << 20;   // a timeline inlined into report.html

// "failures/<seed>.jsonl".
std::string failure_trace_file(uint64_t seed);
// The shrunk counterexample of the seed's `nth` (0-based) violated property:
// "failures/<seed>.shrunk.jsonl" for the first, else
// "failures/<seed>.<property>.shrunk.jsonl".
std::string shrunk_trace_file(uint64_t seed, const std::string& property, size_t nth);
// "timelines/<seed>.svg" for the first, else "timelines/<seed>.<property>.svg".
std::string timeline_file(uint64_t seed, const std::string& property, size_t nth);

bool is_failure_file_name(std::string_view key, std::string_view name, uint64_t seed, std::string_view property);

int open_run_file(const std::string& dir, const std::string& relative, uint64_t max_bytes);
std::string read_run_file(const std::string& dir, const std::string& relative, uint64_t max_bytes);

nlohmann::json read_run_summary(const std::string& dir);

}  // namespace locksim
