// locksim timeline TRACE -o OUT [--view review|sequence] [--from ID] [--to ID]
// [--around ID] [--violation N] [--lock L] [--quiet-ms MS] [--format svg|png|pdf|dot]:
// draws a window of a trace as a Graphviz timeline (reports/timeline.h).
// --violation N checks the trace (every checker, as `locksim check`) and draws
// the window reports/violation_window.h picks for its N-th violation: every
// event the explanation names, the holds it involves from their start, the
// faults that explain it; those events in red, the explanation as caption.
// With --shrink, the violation's scenario (from the trace header, model
// traces only) is shrunk as a campaign does (properties/shrink.h) and the
// shrunk counterexample is drawn instead of a window.
// The trace is streamed (once per pass); only the window is kept.
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "properties/shrink.h"
#include "reports/timeline.h"
#include "reports/violation_window.h"
#include "sim/run.h"
#include "tools/cli/commands.h"
#include "tools/cli/spooled_input.h"
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
  int64_t radius = -1;  // -1: not given (20)
  int64_t violation = 0;  // 1-based; 0: none
  bool shrink = false;
  std::string view = "review";
  int64_t quiet_ms = 0;
  std::string lock;
  size_t max_events = 600;
  int dot_time_limit_s = kDotTimeLimitMs / 1000;
};

std::string format_from_path(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(dot + 1);
}

// The most events --violation draws; its window can exceed --max-events.
constexpr uint64_t kMaxViolationWindow = 20'000;

// Streams every event of the trace to `fn`; a bad trace is a usage error.
template <typename Fn>
void read_trace(SpooledInput& input, Fn&& fn) {
  try {
    const std::unique_ptr<std::istream> in = input.open();
    TraceReader reader(*in, input.name());
    Event e;
    while (reader.next(e)) fn(e);
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  }
}

// `lock` itself or one of its group's members on a server ("G@2").
bool is_lock_or_member(const std::string& name, const std::string& lock) {
  return name == lock || (name.size() > lock.size() && name.compare(0, lock.size(), lock) == 0 && name[lock.size()] == '@');
}

// The n-th (1-based) violation that `locksim check` finds in the trace.
Violation nth_violation(SpooledInput& input, int64_t n) {
  const std::string& path = input.name();
  CheckerSuite suite(default_check_config());
  read_trace(input, [&](const Event& e) { suite.on_event(e); });
  suite.finish();
  const std::vector<Violation> all = suite.violations();
  if (all.empty()) throw UsageError(path + ": the checkers find no violation to draw (--violation " + std::to_string(n) + ")");
  if (static_cast<uint64_t>(n) > all.size()) {
    throw UsageError(path + ": --violation " + std::to_string(n) + " but the checkers find only " +
                     std::to_string(all.size()) + " violation(s)");
  }
  return all[static_cast<size_t>(n - 1)];
}

int timeline_command(const TimelineArgs& a) {
  if (a.out.empty()) throw UsageError("-o/--out is empty: name the output file, e.g. -o timeline.svg");
  try {
    refuse_output_over_input(a.out, {a.trace});
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  std::string format = a.format.empty() ? format_from_path(a.out) : a.format;
  const bool known_format = format == "svg" || format == "png" || format == "pdf" || format == "dot";
  if (!a.format.empty() && !known_format) {
    throw UsageError("--format: unknown format '" + a.format + "' (svg|png|pdf|dot)");
  }
  if (!known_format) {
    throw UsageError("cannot tell the output format of '" + a.out +
                     "': use --format svg|png|pdf|dot or an output name ending in one of them");
  }
  if (a.around_id >= 0 && (a.from_id >= 0 || a.to_id >= 0)) {
    throw UsageError("--around picks its own window: do not combine it with --from or --to");
  }
  if (a.radius >= 0 && a.around_id < 0 && a.violation <= 0) {
    throw UsageError("--radius needs --around or --violation");
  }
  const int64_t radius = a.radius >= 0 ? a.radius : 20;
  SpooledInput input(a.trace);  // read more than once: a stream is copied first
  uint64_t from = 0;
  uint64_t to = std::numeric_limits<uint64_t>::max();
  if (a.around_id >= 0) {
    from = a.around_id > radius ? static_cast<uint64_t>(a.around_id - radius) : 0;
    to = static_cast<uint64_t>(a.around_id) + static_cast<uint64_t>(radius);  // both < 2^63: no overflow
  }
  if (a.from_id >= 0) from = static_cast<uint64_t>(a.from_id);
  if (a.to_id >= 0) to = static_cast<uint64_t>(a.to_id);
  if (from > to) throw UsageError("--from is after --to");
  TimelineOptions options;
  if (!timeline_view_from_name(a.view, &options.view)) {
    throw UsageError("--view must be review or sequence, not '" + a.view + "'");
  }
  if (a.violation > 0 && (a.around_id >= 0 || a.from_id >= 0 || a.to_id >= 0)) {
    throw UsageError("--violation picks its own window: do not combine it with --from, --to or --around");
  }
  options.title = a.trace + (a.lock.empty() ? "" : " lock " + a.lock);
  options.max_events = a.max_events;
  options.quiet_us = a.quiet_ms * 1000;
  if (a.around_id >= 0) options.highlight_ids.insert(static_cast<uint64_t>(a.around_id));
  if (a.shrink && a.violation <= 0) throw UsageError("--shrink needs --violation N: which violation to shrink");
  std::vector<Event> window;
  uint64_t total = 0;
  if (a.shrink) {
    const Violation v = nth_violation(input, a.violation);
    Scenario scenario;
    try {
      const std::unique_ptr<std::istream> in = input.open();
      TraceReader reader(*in, a.trace);
      if (reader.header().backend != "model") {
        throw UsageError(a.trace + ": --shrink re-runs the scenario on the model; this is a " +
                         reader.header().backend + " trace (draw it without --shrink)");
      }
      scenario = scenario_from_header(reader.header());
    } catch (const TraceError& e) {
      throw UsageError(e.what());
    } catch (const ScenarioError& e) {
      throw UsageError(a.trace + ": " + e.what());
    }
    const Counterexample cx = shrink_scenario(scenario, v, default_check_config());
    window = cx.events;
    total = cx.events.size();
    options.max_events = std::max<size_t>(a.max_events, window.size());
    options.highlight_ids.insert(cx.violation.event_ids.begin(), cx.violation.event_ids.end());
    options.title = a.trace + ": " + cx.violation.property + (cx.violation.lock.empty() ? "" : " on " + cx.violation.lock) +
                    ", shrunk counterexample (" + std::to_string(window.size()) + " events) of violation " +
                    std::to_string(a.violation);
    options.caption = cx.violation.message +
                      (cx.violation.blamed_fault.empty() ? "" : ". Blamed: " + cx.violation.blamed_fault + ".");
  } else if (a.violation > 0) {
    const Violation v = nth_violation(input, a.violation);
    ViolationWindow planner(v, static_cast<uint64_t>(radius), a.max_events);
    read_trace(input, [&](const Event& e) { planner.on_event(e); });
    const EventRange range = planner.range();
    if (range.size() > kMaxViolationWindow) {
      throw UsageError("violation " + std::to_string(a.violation) + " names events #" +
                       std::to_string(range.from_id) + " to #" + std::to_string(range.to_id) +
                       ", too far apart to draw (" + std::to_string(range.size()) + " events)");
    }
    from = range.from_id;
    to = range.to_id;
    // The named events must all be drawn, even if that is more than --max-events.
    options.max_events = std::max<size_t>(a.max_events, range.size());
    options.highlight_ids = planner.named_ids();
    options.title = a.trace + ": " + v.property + (v.lock.empty() ? "" : " on " + v.lock) + " (violation " +
                    std::to_string(a.violation) + ", events #" + std::to_string(from) + " to #" +
                    std::to_string(to) + ")";
    options.caption = v.message + (v.blamed_fault.empty() ? "" : ". Blamed: " + v.blamed_fault + ".");
  }
  if (!a.shrink) {
    read_trace(input, [&](const Event& e) {
      ++total;
      if (e.id < from || e.id > to) return;
      if (!a.lock.empty() && !e.lock.empty() && !is_lock_or_member(e.lock, a.lock)) return;
      if (window.size() <= options.max_events) window.push_back(e);
    });
  }
  if (window.empty()) throw UsageError(a.trace + ": no events in the requested window");
  try {
    // The limit covers the whole drawing: locksim's own layout, then dot
    // with what is left of it.
    const auto layout_started = std::chrono::steady_clock::now();
    const std::string dot_text = timeline_dot(window, options);
    const int64_t limit_ms = int64_t{a.dot_time_limit_s} * 1000;
    const int64_t left_ms =
        limit_ms - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - layout_started)
                       .count();
    if (left_ms <= 0) {
      throw std::runtime_error("drawing " + a.out + " took longer than --dot-time-limit-s " +
                               std::to_string(a.dot_time_limit_s) +
                               " before Graphviz even started; draw fewer events (--max-events, --from/--to, --lock)");
    }
    render_timeline(dot_text, a.out, format, static_cast<int>(left_ms));
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "locksim: %s\n", e.what());
    return 2;
  }
  std::fprintf(is_standard_output(a.out) ? stderr : stdout, "timeline: %zu of %llu events -> %s\n", std::min(window.size(), options.max_events),
              static_cast<unsigned long long>(total), a.out.c_str());
  return 0;
}

}  // namespace

void add_timeline_command(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<TimelineArgs>();
  CLI::App* cmd = app.add_subcommand("timeline", "Draw a window of a trace as a Graphviz timeline");
  cmd->add_option("trace", a->trace, "Trace file (JSON Lines; - or /dev/stdin: standard input)")->required();
  cmd->add_option("-o,--out", a->out, "Output file (.svg, .png, .pdf or .dot; - : standard output, with --format)")->required();
  cmd->add_option("--format", a->format, "svg|png|pdf|dot (default: from the output name)")->capture_default_str();
  const CLI::Validator event_id = integer_in(int64_t{0}, std::numeric_limits<int64_t>::max());
  cmd->add_option("--from", a->from_id, "First event id to draw")->transform(event_id);
  cmd->add_option("--to", a->to_id, "Last event id to draw")->transform(event_id);
  cmd->add_option("--around", a->around_id, "Draw --radius events either side of this id, highlighted")
      ->transform(event_id);
  cmd->add_option("--violation", a->violation,
                  "Check the trace and draw its N-th violation (1: the first) with the events it names, in red")
      ->transform(integer_in(int64_t{1}, int64_t{1'000'000}));
  cmd->add_flag("--shrink", a->shrink,
                "With --violation: re-run the trace's scenario on the model, shrink it as a campaign does and draw the "
                "shrunk counterexample");
  cmd->add_option("--view", a->view, "review (time axis, holds, leases, faults) or sequence (one row per event)")
      ->capture_default_str();
  cmd->add_option("--quiet-ms", a->quiet_ms, "Review view: collapse gaps longer than this (default: automatic)")
      ->transform(integer_in(int64_t{1}, int64_t{1'000'000'000}));
  cmd->add_option("--radius", a->radius, "With --around or --violation: events either side (default 20)")
      ->transform(integer_in(int64_t{0}, int64_t{100000}));
  cmd->add_option("--lock", a->lock, "Only events of this lock, its members (L@S) and events with no lock (e.g. faults)")->capture_default_str();
  cmd->add_option("--max-events", a->max_events, "At most this many events (default 600)")
      ->transform(integer_in(size_t{1}, size_t{100000}));
  cmd->add_option("--dot-time-limit-s", a->dot_time_limit_s, "Stop drawing after this many seconds (locksim's layout and Graphviz together)")
      ->capture_default_str()->transform(integer_in(1, 3600));
  cmd->callback([a, exit_code] { *exit_code = timeline_command(*a); });
}

}  // namespace locksim::cli
