// locksim timeline TRACE -o OUT [--view review|sequence] [--from ID] [--to ID]
// [--from-ms MS] [--to-ms MS] [--around ID] [--violation N] [--lock L]
// [--property P] [--quiet-ms MS] [--format svg|png|pdf|dot]: draws a window of a trace as a
// Graphviz timeline (reports/timeline.h). The review view draws what the
// checkers read (properties/history_recording.h), from the trace's first
// event: what is open at the window's start is drawn from its real start.
// --around also draws the owners, holds and named events of the violations
// at or near the event, and explains the first.
// --violation N checks the trace (every checker, as `locksim check`) and draws
// the window reports/violation_window.h picks for its N-th violation (of
// --property P when given; advisory reports count only when P names
// them, tools/cli/violation_choice.h): every
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
#include "tools/cli/cmd_timeline.h"
#include "tools/cli/commands.h"
#include "traces/output_file.h"
#include "traces/trace_reader.h"
#include "tools/cli/spooled_input.h"

namespace locksim::cli {

namespace {

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

// The trace's header; a bad trace is a usage error.
TraceHeader read_header(SpooledInput& input) {
  try {
    const std::unique_ptr<std::istream> in = input.open();
    TraceReader reader(*in, input.name());
    return reader.header();
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  }
}

// The scenario in the trace's header, if it holds a valid one.
std::optional<Scenario> valid_header_scenario(SpooledInput& input) {
  const TraceHeader header = read_header(input);
  try {
    return scenario_from_header(header);
  } catch (const ScenarioError&) {
    return std::nullopt;
  }
}

// The scenario in the trace's header (for its lock design); a header
// without a valid one checks as a scenario of ours.
Scenario header_scenario(SpooledInput& input) { return valid_header_scenario(input).value_or(Scenario{}); }

Survey survey_trace(SpooledInput& input, const TimelineRequest& r) {
  Survey s;
  CheckerSuite suite(check_config_for(header_scenario(input)));
  read_trace(input, [&](const Event& e) {
    ++s.events;
    suite.on_event(e);
    if (!e.lock.empty()) {
      s.locks.insert(std::string(e.lock.group()));
    }
    if (r.from_ms >= 0 && !s.first_from_ms && e.true_us >= r.from_ms * 1000) s.first_from_ms = e.id;
    if (r.to_ms >= 0 && e.true_us <= r.to_ms * 1000) s.last_to_ms = e.id;
    return true;
  });
  suite.finish();
  s.violations = suite.violations();
  return s;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The id window --from-ms/--to-ms select, from the survey.
void resolve_ms_window(const TimelineRequest& r, const Survey& survey, uint64_t* from, uint64_t* to) {
  if (r.from_ms >= 0) {
    if (!survey.first_from_ms) throw UsageError(r.trace + ": no event at or after --from-ms " + std::to_string(r.from_ms));
    *from = *survey.first_from_ms;
  }
  if (r.to_ms >= 0) {
    if (!survey.last_to_ms) throw UsageError(r.trace + ": no event at or before --to-ms " + std::to_string(r.to_ms));
    *to = *survey.last_to_ms;
  }
  if (*from > *to) throw UsageError(r.trace + ": no event between --from-ms and --to-ms");
}

// What is drawn: the events, the checkers' reading of them, the options.
struct Drawing {
  std::vector<Event> window;
  HistoryRecording recording;
  TimelineOptions options;
};

bool kept_lock(const TimelineRequest& r, const Event& e) {
  return r.lock.empty() || e.lock.empty() || is_lock_or_member(e.lock, r.lock);
}

// --shrink: the chosen violation's scenario shrunk on the model, its
// counterexample drawn.
void draw_shrunk(const TimelineRequest& r, SpooledInput& input, const Survey& survey, Drawing* d) {
  const Violation v = chosen(survey.violations, *r.violation, r.trace);
  const TraceHeader header = read_header(input);
  if (header.backend != "model") {
    throw UsageError(r.trace + ": --shrink re-runs the scenario on the model; this is a " + header.backend +
                     " trace (draw it without --shrink, or `locksim shrink` it)");
  }
  Scenario scenario;
  try {
    scenario = scenario_from_header(header);
  } catch (const ScenarioError& e) {
    throw UsageError(r.trace + ": " + e.what());
  }
  const Counterexample cx = shrink_scenario(scenario, v, check_config_for(scenario));
  d->recording = record_history(cx.events, check_config_for(scenario));
  for (const Event& e : cx.events)
    if (kept_lock(r, e)) d->window.push_back(e);
  if (!r.lock.empty()) keep_only_lock(&d->recording, r.lock);
  d->options.total_events = cx.events.size();
  d->options.highlight_ids.insert(cx.violation.event_ids.begin(), cx.violation.event_ids.end());
  d->options.focus = {cx.violation};
  d->options.title = r.trace + ": " + cx.violation.property +
                     (cx.violation.lock.empty() ? "" : " on " + cx.violation.lock.name()) + ", shrunk counterexample (" +
                     std::to_string(cx.events.size()) + " events) of " + ordinal_text(*r.violation);
  d->options.caption = violation_subtitle(cx.violation);
}

// --violation / --property: the window the chosen violation needs.
void plan_violation_window(const TimelineRequest& r, SpooledInput& input, const Survey& survey, uint64_t* from,
                           uint64_t* to, Drawing* d) {
  const Violation v = chosen(survey.violations, *r.violation, r.trace);
  ViolationWindow planner(v, r.radius, r.max_events);
  read_trace(input, [&](const Event& e) {
    planner.on_event(e);
    return true;
  });
  const EventRange range = planner.range();
  if (range.size() > kMaxViolationWindow) {
    throw UsageError(choice_text(*r.violation) + " names events #" + std::to_string(range.from_id) + " to #" +
                     std::to_string(range.to_id) + ", too far apart to draw (" + std::to_string(range.size()) +
                     " events)");
  }
  *from = range.from_id;
  *to = range.to_id;
  // The named events must all be drawn, even if that is more than --max-events.
  d->options.max_events = std::max<size_t>(r.max_events, range.size());
  d->options.highlight_ids = planner.named_ids();
  d->options.focus = {v};
  d->options.title = r.trace + ": " + v.property + (v.lock.empty() ? "" : " on " + v.lock.name()) + " (" +
                     ordinal_text(*r.violation) + ")";
  d->options.caption = violation_subtitle(v);
}

// --around: the violations at or near the event get lanes, the events they
// name in the window are marked, the first explains.
void focus_around(const TimelineRequest& r, const Survey& survey, uint64_t from, uint64_t to, Drawing* d) {
  for (const Violation& v : survey.violations) {
    std::set<uint64_t> named(v.event_ids.begin(), v.event_ids.end());
    named.insert(v.facts.named_ids.begin(), v.facts.named_ids.end());
    const bool near = std::any_of(named.begin(), named.end(), [&](uint64_t id) { return id >= from && id <= to; }) ||
                      (v.detected_at_event >= from && v.detected_at_event <= to);
    if (!near || (!r.lock.empty() && !v.lock.empty() && !is_lock_or_member(v.lock, r.lock))) continue;
    d->options.focus.push_back(v);
    for (uint64_t id : named)
      if (id >= from && id <= to) d->options.highlight_ids.insert(id);
  }
  if (d->options.focus.empty()) return;
  d->options.caption = violation_subtitle(d->options.focus.front());
  if (d->options.focus.size() > 1)
    d->options.caption += " (and " + std::to_string(d->options.focus.size() - 1) + " more violation" +
                          (d->options.focus.size() > 2 ? "s" : "") + " near #" + std::to_string(r.around_id) + ")";
}

// A window of the trace itself: its last event (--max-events of those
// selected), then the drawing pass, which reads the checkers' view from the
// first event and keeps the window.
void draw_window(const TimelineRequest& r, SpooledInput& input, const Survey& survey, uint64_t from, uint64_t to,
                 Drawing* d) {
  auto selected = [&](const Event& e) { return e.id >= from && e.id <= to && kept_lock(r, e); };
  uint64_t last = from;
  size_t taken = 0;
  read_trace(input, [&](const Event& e) {
    if (e.id > to) return false;
    if (!selected(e)) return true;
    last = e.id;
    return ++taken < d->options.max_events;
  });
  if (taken == 0) throw UsageError(r.trace + ": no events in the requested window");
  to = last;
  const CheckConfig config = check_config_for(header_scenario(input));
  CheckerSuite suite(config);
  ReadingRecorder recorder(config, from, to);
  suite.record_with(&recorder);
  read_trace(input, [&](const Event& e) {
    if (e.id > to) return false;
    suite.on_event(e);
    if (selected(e)) d->window.push_back(e);
    return true;
  });
  d->recording = recorder.finish();
  if (!r.lock.empty()) keep_only_lock(&d->recording, r.lock);
  d->options.total_events = survey.events;
  if (r.around_id >= 0) focus_around(r, survey, from, to, d);
}

// Lays the drawing out and has Graphviz render it, within the time limit
// (locksim's own layout, then dot with what is left of it). An output the
// system refuses is exit 3; dot's own failure, exit 2.
int render(const TimelineRequest& r, const Drawing& d) {
  try {
    const auto layout_started = std::chrono::steady_clock::now();
    const std::string dot_text = d.options.view == TimelineView::Review ? review_dot(d.recording, d.window, d.options)
                                                                        : timeline_dot(d.window, d.options);
    const int64_t limit_ms = int64_t{r.dot_time_limit_s} * 1000;
    const int64_t left_ms = limit_ms - std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - layout_started)
                                           .count();
    if (left_ms <= 0) {
      throw std::runtime_error("drawing " + r.out + " took longer than --dot-time-limit-s " +
                               std::to_string(r.dot_time_limit_s) +
                               " before Graphviz even started; draw fewer events (--max-events, --from/--to, --lock)");
    }
    render_timeline(dot_text, r.out, r.format, static_cast<int>(left_ms));
  } catch (const OutputSystemError& e) {
    throw EnvironmentError(e.what());
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "locksim: %s\n", e.what());
    return 2;
  }
  std::fprintf(is_standard_output(r.out) ? stderr : stdout, "timeline: %zu of %llu events (#%llu to #%llu) -> %s\n",
               std::min(d.window.size(), d.options.max_events),
               static_cast<unsigned long long>(d.options.total_events),
               static_cast<unsigned long long>(d.window.empty() ? 0 : d.window.front().id),
               static_cast<unsigned long long>(d.window.empty() ? 0 : d.window.back().id), r.out.c_str());
  return 0;
}

}  // namespace

TimelineRequest validate_timeline(const TimelineArgs& a) {
  if (a.out.empty()) throw UsageError("-o/--out is empty: name the output file, e.g. -o timeline.svg");
  if (a.trace.empty()) throw UsageError("the trace to draw is empty: name a trace file (or - for standard input)");
  if (a.out == a.trace && a.out != "-") {
    throw UsageError("refusing to write " + a.out + ": it is an input of this command (" + a.trace + ")");
  }
  TimelineRequest r;
  r.trace = a.trace;
  r.out = a.out;
  r.format = a.format.empty() ? format_from_path(a.out) : a.format;
  const bool known_format = r.format == "svg" || r.format == "png" || r.format == "pdf" || r.format == "dot";
  if (!a.format.empty() && !known_format) {
    throw UsageError("--format: unknown format '" + a.format + "' (svg|png|pdf|dot)");
  }
  if (!known_format) {
    throw UsageError("cannot tell the output format of '" + a.out +
                     "': use --format svg|png|pdf|dot or an output name ending in one of them");
  }
  const bool by_id = a.from_id >= 0 || a.to_id >= 0;
  const bool by_ms = a.from_ms >= 0 || a.to_ms >= 0;
  const bool by_violation = a.violation > 0 || !a.property.empty();
  if (a.around_id >= 0 && (by_id || by_ms)) {
    throw UsageError("--around picks its own window: do not combine it with --from, --to, --from-ms or --to-ms");
  }
  if (by_id && by_ms) throw UsageError("--from/--to select event ids, --from-ms/--to-ms times: use one pair");
  if (a.radius >= 0 && a.around_id < 0 && !by_violation) throw UsageError("--radius needs --around or --violation");
  if (a.from_ms >= 0 && a.to_ms >= 0 && a.from_ms > a.to_ms) throw UsageError("--from-ms is after --to-ms");
  if (by_violation && (a.around_id >= 0 || by_id || by_ms)) {
    throw UsageError("--violation and --property pick their own window: do not combine them with --from, --to, "
                     "--from-ms, --to-ms or --around");
  }
  if (a.shrink && !by_violation) throw UsageError("--shrink needs --violation N or --property P: which violation to shrink");
  if (!timeline_view_from_name(a.view, &r.view)) throw UsageError("--view must be review or sequence, not '" + a.view + "'");
  r.radius = static_cast<uint64_t>(a.radius >= 0 ? a.radius : 20);
  if (a.around_id >= 0) {
    r.from = a.around_id > static_cast<int64_t>(r.radius) ? static_cast<uint64_t>(a.around_id) - r.radius : 0;
    r.to = static_cast<uint64_t>(a.around_id) + r.radius;  // both < 2^63: no overflow
  }
  if (a.from_id >= 0) r.from = static_cast<uint64_t>(a.from_id);
  if (a.to_id >= 0) r.to = static_cast<uint64_t>(a.to_id);
  if (r.from > r.to) throw UsageError("--from is after --to");
  r.from_ms = a.from_ms;
  r.to_ms = a.to_ms;
  r.around_id = a.around_id;
  if (by_violation) r.violation = validate_violation_choice(a.property, a.violation);
  r.shrink = a.shrink;
  r.lock = a.lock;
  r.max_events = a.max_events;
  r.quiet_us = a.quiet_ms * 1000;
  r.dot_time_limit_s = a.dot_time_limit_s;
  return r;
}

int run_timeline(const TimelineRequest& r) {
  try {
    refuse_output_over_input(r.out, {r.trace});
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  SpooledInput input(r.trace);  // read more than once: a stream is copied first
  Drawing d;
  d.options.view = r.view;
  d.options.title = r.trace + (r.lock.empty() ? "" : " lock " + r.lock);
  d.options.max_events = r.max_events;
  d.options.quiet_us = r.quiet_us;
  if (const std::optional<Scenario> scenario = valid_header_scenario(input)) {
    // Every server of the run gets a lane, a RedLock's unasked ones say why;
    // the picture reads the run as its checkers do (a spin lock's back-off).
    d.options.check = check_config_for(*scenario);
    d.options.servers = scenario->servers;
    d.options.redlock = scenario->lock_kind == ScenarioLockKind::RedLock;
  }
  if (r.around_id >= 0) {
    d.options.highlight_ids.insert(static_cast<uint64_t>(r.around_id));
    d.options.title += " around #" + std::to_string(r.around_id);
  }
  const Survey survey = survey_trace(input, r);
  if (!r.lock.empty() && !survey.locks.count(r.lock)) {
    throw UsageError(r.trace + ": no lock '" + r.lock + "' in this trace; locks present: " +
                     (survey.locks.empty() ? std::string("none") : joined(survey.locks)));
  }
  uint64_t from = r.from;
  uint64_t to = r.to;
  if (r.by_ms()) resolve_ms_window(r, survey, &from, &to);
  if (r.shrink) {
    draw_shrunk(r, input, survey, &d);
  } else {
    if (r.violation) plan_violation_window(r, input, survey, &from, &to, &d);
    draw_window(r, input, survey, from, to, &d);
  }
  return render(r, d);
}

void add_timeline_command(CLI::App& app, CliContext* ctx) {
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
                  "Check the trace and draw its N-th violation (1: the first; advisory reports such as busy_poll "
                  "are not counted unless --property names them) with the events it names, in red")
      ->transform(integer_in(int64_t{1}, int64_t{1'000'000}));
  cmd->add_option("--property", a->property,
                  "Draw a violation of this property (the first, or the N-th of them with --violation N)")
      ->check(property_name());
  cmd->add_flag("--shrink", a->shrink,
                "With --violation or --property: re-run the trace's scenario on the model, shrink it as a campaign "
                "does and draw the shrunk counterexample (locksim shrink writes it as a trace)");
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
  cmd->callback([a, ctx] { ctx->exit_code = run_timeline(validate_timeline(*a)); });
}

}  // namespace locksim::cli
