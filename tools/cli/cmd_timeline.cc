// locksim timeline TRACE -o OUT [--view review|sequence] [--from ID] [--to ID]
// [--from-ms MS] [--to-ms MS] [--around ID] [--violation N] [--lock L]
// [--quiet-ms MS] [--format svg|png|pdf|dot]: draws a window of a trace as a
// Graphviz timeline (reports/timeline.h). The review view draws what the
// checkers read (properties/history_recording.h), from the trace's first
// event: what is open at the window's start is drawn from its real start.
// --around also draws the owners, holds and named events of the violations
// at or near the event, and explains the first.
// --violation N checks the trace (every checker, as `locksim check`) and draws
// the window reports/violation_window.h picks for its N-th violation: every
// event the explanation names, the holds it involves from their start, the
// faults that explain it; those events in red, the explanation as caption.
// With --shrink, the violation's scenario (from the trace header, model
// traces only) is shrunk as a campaign does (search/shrink.h) and the
// shrunk counterexample is drawn instead of a window.
// The trace is streamed (once per pass: a survey that checks it and lists
// its locks, then the window's last event, then the drawing); only the
// window is kept.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/checker_suite.h"
#include "properties/history_recording.h"
#include "properties/scenario_check.h"
#include "search/shrink.h"
#include "reports/timeline.h"
#include "reports/timeline_review.h"
#include "reports/violation_window.h"
#include "sim/run.h"
#include "tools/cli/commands.h"
#include "traces/output_file.h"
#include "traces/trace_reader.h"
#include "tools/cli/spooled_input.h"

namespace locksim::cli {

namespace {

struct TimelineArgs {
  std::string trace;
  std::string out;
  std::string format;
  int64_t from_id = -1;
  int64_t to_id = -1;
  int64_t from_ms = -1;
  int64_t to_ms = -1;
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

// Streams every event of the trace to `fn` until it returns false; a bad
// trace is a usage error.
template <typename Fn>
void read_trace(SpooledInput& input, Fn&& fn) {
  try {
    const std::unique_ptr<std::istream> in = input.open();
    TraceReader reader(*in, input.name());
    Event e;
    while (reader.next(e)) {
      if (!fn(e)) break;
    }
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  }
}

// What one pass over the whole trace tells: every violation, the locks it
// names, its length and the ids that --from-ms/--to-ms select.
struct Survey {
  std::vector<Violation> violations;
  std::set<std::string> locks;  // groups' names, not their members'
  uint64_t events = 0;
  std::optional<uint64_t> first_from_ms;  // the first id at or after --from-ms
  std::optional<uint64_t> last_to_ms;     // the last id at or before --to-ms
};

// The scenario in the trace's header (for its lock design); a header
// without a valid one checks as a scenario of ours.
Scenario header_scenario(SpooledInput& input) {
  try {
    const std::unique_ptr<std::istream> in = input.open();
    TraceReader reader(*in, input.name());
    return scenario_from_header(reader.header());
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  } catch (const ScenarioError&) {
    return Scenario{};
  }
}

Survey survey_trace(SpooledInput& input, const TimelineArgs& a) {
  Survey s;
  CheckerSuite suite(check_config_for(header_scenario(input)));
  read_trace(input, [&](const Event& e) {
    ++s.events;
    suite.on_event(e);
    if (!e.lock.empty()) {
      s.locks.insert(std::string(e.lock.group()));
    }
    if (a.from_ms >= 0 && !s.first_from_ms && e.true_us >= a.from_ms * 1000) s.first_from_ms = e.id;
    if (a.to_ms >= 0 && e.true_us <= a.to_ms * 1000) s.last_to_ms = e.id;
    return true;
  });
  suite.finish();
  s.violations = suite.violations();
  return s;
}

// The n-th (1-based) violation that `locksim check` finds in the trace.
const Violation& nth_violation(const std::string& path, const std::vector<Violation>& all, int64_t n) {
  if (all.empty()) throw UsageError(path + ": the checkers find no violation to draw (--violation " + std::to_string(n) + ")");
  if (static_cast<uint64_t>(n) > all.size()) {
    throw UsageError(path + ": --violation " + std::to_string(n) + " but the checkers find only " +
                     std::to_string(all.size()) + " violation(s)");
  }
  return all[static_cast<size_t>(n - 1)];
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
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
  const bool by_id = a.from_id >= 0 || a.to_id >= 0;
  const bool by_ms = a.from_ms >= 0 || a.to_ms >= 0;
  if (a.around_id >= 0 && (by_id || by_ms)) {
    throw UsageError("--around picks its own window: do not combine it with --from, --to, --from-ms or --to-ms");
  }
  if (by_id && by_ms) throw UsageError("--from/--to select event ids, --from-ms/--to-ms times: use one pair");
  if (a.radius >= 0 && a.around_id < 0 && a.violation <= 0) {
    throw UsageError("--radius needs --around or --violation");
  }
  if (a.from_ms >= 0 && a.to_ms >= 0 && a.from_ms > a.to_ms) throw UsageError("--from-ms is after --to-ms");
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
  if (a.violation > 0 && (a.around_id >= 0 || by_id || by_ms)) {
    throw UsageError("--violation picks its own window: do not combine it with --from, --to, --from-ms, --to-ms or --around");
  }
  if (a.shrink && a.violation <= 0) throw UsageError("--shrink needs --violation N: which violation to shrink");
  options.title = a.trace + (a.lock.empty() ? "" : " lock " + a.lock);
  options.max_events = a.max_events;
  options.quiet_us = a.quiet_ms * 1000;
  if (a.around_id >= 0) {
    options.highlight_ids.insert(static_cast<uint64_t>(a.around_id));
    options.title += " around #" + std::to_string(a.around_id);
  }

  const Survey survey = survey_trace(input, a);
  if (!a.lock.empty() && !survey.locks.count(a.lock)) {
    throw UsageError(a.trace + ": no lock '" + a.lock + "' in this trace; locks present: " +
                     (survey.locks.empty() ? std::string("none") : joined(survey.locks)));
  }
  if (by_ms) {
    if (a.from_ms >= 0) {
      if (!survey.first_from_ms) throw UsageError(a.trace + ": no event at or after --from-ms " + std::to_string(a.from_ms));
      from = *survey.first_from_ms;
    }
    if (a.to_ms >= 0) {
      if (!survey.last_to_ms) throw UsageError(a.trace + ": no event at or before --to-ms " + std::to_string(a.to_ms));
      to = *survey.last_to_ms;
    }
    if (from > to) throw UsageError(a.trace + ": no event between --from-ms and --to-ms");
  }
  std::vector<Event> window;
  HistoryRecording recording;
  if (a.shrink) {
    const Violation v = nth_violation(a.trace, survey.violations, a.violation);
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
    const Counterexample cx = shrink_scenario(scenario, v, check_config_for(scenario));
    recording = record_history(cx.events, check_config_for(scenario));
    for (const Event& e : cx.events)
      if (a.lock.empty() || e.lock.empty() || is_lock_or_member(e.lock, a.lock)) window.push_back(e);
    if (!a.lock.empty()) keep_only_lock(&recording, a.lock);
    options.total_events = cx.events.size();
    options.highlight_ids.insert(cx.violation.event_ids.begin(), cx.violation.event_ids.end());
    options.focus = {cx.violation};
    options.title = a.trace + ": " + cx.violation.property + (cx.violation.lock.empty() ? "" : " on " + cx.violation.lock.name()) +
                    ", shrunk counterexample (" + std::to_string(cx.events.size()) + " events) of violation " +
                    std::to_string(a.violation);
    options.caption = violation_subtitle(cx.violation);
  } else {
    if (a.violation > 0) {
      const Violation& v = nth_violation(a.trace, survey.violations, a.violation);
      ViolationWindow planner(v, static_cast<uint64_t>(radius), a.max_events);
      read_trace(input, [&](const Event& e) {
        planner.on_event(e);
        return true;
      });
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
      options.focus = {v};
      options.title = a.trace + ": " + v.property + (v.lock.empty() ? "" : " on " + v.lock.name()) + " (violation " +
                      std::to_string(a.violation) + ")";
      options.caption = violation_subtitle(v);
    }
    // The window's last event: --max-events of those the options select.
    auto selected = [&](const Event& e) {
      return e.id >= from && e.id <= to && (a.lock.empty() || e.lock.empty() || is_lock_or_member(e.lock, a.lock));
    };
    uint64_t last = from;
    size_t taken = 0;
    read_trace(input, [&](const Event& e) {
      if (e.id > to) return false;
      if (!selected(e)) return true;
      last = e.id;
      return ++taken < options.max_events;
    });
    if (taken == 0) throw UsageError(a.trace + ": no events in the requested window");
    to = last;
    // The drawing pass: the checkers' reading from the first event, kept
    // for the window.
    const CheckConfig config = check_config_for(header_scenario(input));
    CheckerSuite suite(config);
    ReadingRecorder recorder(config, from, to);
    suite.record_with(&recorder);
    read_trace(input, [&](const Event& e) {
      if (e.id > to) return false;
      suite.on_event(e);
      if (selected(e)) window.push_back(e);
      return true;
    });
    recording = recorder.finish();
    if (!a.lock.empty()) keep_only_lock(&recording, a.lock);
    options.total_events = survey.events;
    if (a.around_id >= 0) {
      // The violations at or near the event: their owners get lanes, the
      // events they name in the window are marked, the first explains.
      for (const Violation& v : survey.violations) {
        std::set<uint64_t> named(v.event_ids.begin(), v.event_ids.end());
        named.insert(v.facts.named_ids.begin(), v.facts.named_ids.end());
        const bool near = std::any_of(named.begin(), named.end(), [&](uint64_t id) { return id >= from && id <= to; }) ||
                          (v.detected_at_event >= from && v.detected_at_event <= to);
        if (!near || (!a.lock.empty() && !v.lock.empty() && !is_lock_or_member(v.lock, a.lock))) continue;
        options.focus.push_back(v);
        for (uint64_t id : named)
          if (id >= from && id <= to) options.highlight_ids.insert(id);
      }
      if (!options.focus.empty()) {
        options.caption = violation_subtitle(options.focus.front());
        if (options.focus.size() > 1)
          options.caption += " (and " + std::to_string(options.focus.size() - 1) + " more violation" +
                             (options.focus.size() > 2 ? "s" : "") + " near #" + std::to_string(a.around_id) + ")";
      }
    }
  }
  try {
    // The limit covers the whole drawing: locksim's own layout, then dot
    // with what is left of it.
    const auto layout_started = std::chrono::steady_clock::now();
    const std::string dot_text = options.view == TimelineView::Review ? review_dot(recording, window, options)
                                                                      : timeline_dot(window, options);
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
  std::fprintf(is_standard_output(a.out) ? stderr : stdout, "timeline: %zu of %llu events (#%llu to #%llu) -> %s\n",
               std::min(window.size(), options.max_events),
              static_cast<unsigned long long>(options.total_events),
              static_cast<unsigned long long>(window.empty() ? 0 : window.front().id),
              static_cast<unsigned long long>(window.empty() ? 0 : window.back().id), a.out.c_str());
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
  const CLI::Validator true_ms = integer_in(int64_t{0}, std::numeric_limits<int64_t>::max() / 1000);
  cmd->add_option("--from-ms", a->from_ms, "Draw from the first event at or after this true time (ms since the run began)")
      ->transform(true_ms);
  cmd->add_option("--to-ms", a->to_ms, "Draw up to the last event at or before this true time (ms since the run began)")
      ->transform(true_ms);
  cmd->add_option("--around", a->around_id,
                  "Draw --radius events either side of this id, highlighted, with the owners and holds of the "
                  "violations at or near it")
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
  cmd->add_option("--lock", a->lock,
                  "Only events of this lock, its members (L@S) and events with no lock (e.g. faults); a lock the "
                  "trace does not name is an error that lists those it does")
      ->capture_default_str();
  cmd->add_option("--max-events", a->max_events,
                  "At most this many events (default 600; the picture says how many of the trace it shows)")
      ->transform(integer_in(size_t{1}, size_t{100000}));
  cmd->add_option("--dot-time-limit-s", a->dot_time_limit_s, "Stop drawing after this many seconds (locksim's layout and Graphviz together)")
      ->capture_default_str()->transform(integer_in(1, 3600));
  cmd->callback([a, exit_code] { *exit_code = timeline_command(*a); });
}

}  // namespace locksim::cli
