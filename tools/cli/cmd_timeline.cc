// locksim timeline TRACE -o OUT [--from ID] [--to ID] [--around ID] [--lock L]
// [--format svg|png|pdf|dot]: draws a window of a trace as a Graphviz timeline
// (reports/timeline.h). The trace is streamed; only the window is kept.
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "reports/timeline.h"
#include "tools/cli/commands.h"
#include "traces/output_file.h"
#include "traces/trace_reader.h"

namespace locksim::cli {

namespace {

struct TimelineArgs {
  std::string trace;
  std::string out;
  std::string format;
  int64_t from_id = -1;
  int64_t to_id = -1;
  int64_t around_id = -1;
  int64_t radius = 20;
  std::string lock;
  size_t max_events = 600;
  int dot_time_limit_s = kDotTimeLimitMs / 1000;
};

std::string format_from_path(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(dot + 1);
}

int timeline_command(const TimelineArgs& a) {
  if (a.out.empty()) throw UsageError("-o/--out is empty: name the output file, e.g. -o timeline.svg");
  try {
    refuse_output_over_input(a.out, {a.trace});
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  std::string format = a.format.empty() ? format_from_path(a.out) : a.format;
  if (format != "svg" && format != "png" && format != "pdf" && format != "dot") {
    throw UsageError("cannot tell the output format of '" + a.out +
                     "': use --format svg|png|pdf|dot or an output name ending in one of them");
  }
  uint64_t from = 0;
  uint64_t to = std::numeric_limits<uint64_t>::max();
  if (a.around_id >= 0) {
    from = a.around_id > a.radius ? static_cast<uint64_t>(a.around_id - a.radius) : 0;
    to = static_cast<uint64_t>(a.around_id) + static_cast<uint64_t>(a.radius);  // both < 2^63: no overflow
  }
  if (a.from_id >= 0) from = static_cast<uint64_t>(a.from_id);
  if (a.to_id >= 0) to = static_cast<uint64_t>(a.to_id);
  if (from > to) throw UsageError("--from is after --to");
  std::vector<Event> window;
  uint64_t total = 0;
  try {
    TraceReader reader(a.trace);
    Event e;
    while (reader.next(e)) {
      ++total;
      if (e.id < from || e.id > to) continue;
      if (!a.lock.empty() && !e.lock.empty() && e.lock != a.lock) continue;
      if (window.size() <= a.max_events) window.push_back(e);
    }
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  }
  if (window.empty()) throw UsageError(a.trace + ": no events in the requested window");
  TimelineOptions options;
  options.title = a.trace + (a.lock.empty() ? "" : " lock " + a.lock);
  options.max_events = a.max_events;
  if (a.around_id >= 0) options.highlight_ids.insert(static_cast<uint64_t>(a.around_id));
  try {
    render_timeline(timeline_dot(window, options), a.out, format, a.dot_time_limit_s * 1000);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "locksim: %s\n", e.what());
    return 2;
  }
  std::printf("timeline: %zu of %llu events -> %s\n", std::min(window.size(), a.max_events),
              static_cast<unsigned long long>(total), a.out.c_str());
  return 0;
}

}  // namespace

void add_timeline_command(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<TimelineArgs>();
  CLI::App* cmd = app.add_subcommand("timeline", "Draw a window of a trace as a Graphviz timeline");
  cmd->add_option("trace", a->trace, "Trace file (JSON Lines)")->required();
  cmd->add_option("-o,--out", a->out, "Output file (.svg, .png, .pdf or .dot)")->required();
  cmd->add_option("--format", a->format, "svg|png|pdf|dot (default: from the output name)")->capture_default_str();
  const CLI::Validator event_id = integer_in(int64_t{0}, std::numeric_limits<int64_t>::max());
  cmd->add_option("--from", a->from_id, "First event id to draw")->check(event_id);
  cmd->add_option("--to", a->to_id, "Last event id to draw")->check(event_id);
  cmd->add_option("--around", a->around_id, "Draw --radius events either side of this id, highlighted")
      ->check(event_id);
  cmd->add_option("--radius", a->radius, "With --around: events either side (default 20)")
      ->check(integer_in(int64_t{0}, int64_t{100000}));
  cmd->add_option("--lock", a->lock, "Only events of this lock (and events with no lock, e.g. faults)")->capture_default_str();
  cmd->add_option("--max-events", a->max_events, "At most this many events (default 600)")
      ->check(integer_in(size_t{1}, size_t{100000}));
  cmd->add_option("--dot-time-limit-s", a->dot_time_limit_s, "Stop Graphviz after this many seconds")
      ->capture_default_str()->check(integer_in(1, 3600));
  cmd->callback([a, exit_code] { *exit_code = timeline_command(*a); });
}

}  // namespace locksim::cli
