// locksim timeline: its flags as typed (TimelineArgs), checked and parsed
// into a TimelineRequest by validate_timeline() (pure: no file is read),
// and run_timeline(), which reads the trace and draws (cmd_timeline.cc).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "reports/timeline.h"
#include "tools/cli/violation_choice.h"

namespace locksim::cli {

struct TimelineArgs {
  std::string trace;
  std::string out;
  std::string format;
  int64_t from_id = -1;
  int64_t to_id = -1;
  int64_t from_ms = -1;
  int64_t to_ms = -1;
  int64_t around_id = -1;
  int64_t radius = -1;    // -1: not given (20)
  int64_t violation = 0;  // 1-based; 0: none
  std::string property;   // --property: the violations of this property
  bool shrink = false;
  std::string view = "review";
  int64_t quiet_ms = 0;
  std::string lock;
  size_t max_events = 600;
  int dot_time_limit_s = 60;
};

// What to draw, every flag parsed and every combination checked.
struct TimelineRequest {
  std::string trace;
  std::string out;
  std::string format;      // svg, png, pdf, dot
  TimelineView view = TimelineView::Review;
  // The window by id ([from, to]), or by true time (from_ms/to_ms >= 0:
  // resolved against the trace), or around an event, or a violation's.
  uint64_t from = 0;
  uint64_t to = std::numeric_limits<uint64_t>::max();
  int64_t from_ms = -1;
  int64_t to_ms = -1;
  int64_t around_id = -1;
  uint64_t radius = 20;
  std::optional<ViolationChoice> violation;  // --violation N and/or --property P
  bool shrink = false;
  std::string lock;        // empty: every lock
  size_t max_events = 600;
  int64_t quiet_us = 0;
  int dot_time_limit_s = 60;
  bool by_ms() const { return from_ms >= 0 || to_ms >= 0; }
};

// Throws UsageError (exit 2, one line) for a bad flag or combination.
TimelineRequest validate_timeline(const TimelineArgs& args);
int run_timeline(const TimelineRequest& request);

}  // namespace locksim::cli
