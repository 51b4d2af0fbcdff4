// Timeline: draws a window of a history with Graphviz, in one of two views.
//  - review (default; reports/timeline_review.h): a true time axis with quiet
//    stretches collapsed, a lane per client, per fair lock's line and per
//    server, believed holds, waits and their polls, leases with renewals and
//    expiry, faults as spans, overlaps red; drawn from a HistoryRecording
//    (properties/history_recording.h), the checkers' own reading.
//  - sequence: time flows down, one row per event, in history order; a faint
//    edge links the events of one operation across lanes (invoke -> script on
//    the server -> completion). Colours: acquired holds green, releases blue,
//    failures grey, faults orange.
// In both, highlighted events (a checker's counterexample) are red and named.
//
// timeline_dot() is pure (same events, same text) and places every node
// itself, so drawing is linear in the events: Graphviz only renders
// (`dot -Kneato -n2`), it does not search for a layout (that took minutes
// for 2,000 events or a few hundred lanes).
// render_timeline() runs `dot` without a shell, under a time limit, and
// writes through an OutputFile (traces/output_file.h): the file appears
// complete or not at all, and nothing else is written to disk. It throws
// std::runtime_error (dot's message, the time limit, an unwritable path).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/check_config.h"
#include "properties/history_recording.h"
#include "properties/violation.h"
#include "sim/scenario.h"
#include "traces/event.h"

namespace locksim {

enum class TimelineView { Review, Sequence };

struct TimelineOptions {
  // What the picture is (a trace, a seed, a window). Review: when a focus
  // violation (or an overlap in the window) says what went wrong, that is
  // the title, in words, and this the grey line under it.
  std::string title;
  std::set<uint64_t> highlight_ids;  // events to draw in red
  size_t max_events = 600;           // a longer window is cut, saying so in the title
  TimelineView view = TimelineView::Review;
  std::string caption;               // review: a line under the title (e.g. a violation's explanation)
  int64_t quiet_us = 0;              // review: gaps longer than this collapse (0: automatic)
  // Review: the violations the picture explains; each draws the evidence of
  // its property (a liveness bound, a poll storm's rate) and its owners' lanes.
  std::vector<Violation> focus;
  // Review: how many events the whole trace has (0: unknown), for "events
  // #a to #b, n of N".
  uint64_t total_events = 0;
  // Review: how the checkers read the history (its lock design:
  // properties/check_config.h with_design()); nullopt: ours, the defaults.
  std::optional<CheckConfig> check;
  // Review: the run's Redis servers (its scenario's; 0: unknown). Each gets
  // a lane; one the window shows nothing of says why (a RedLock's acquire
  // stops at a majority).
  int servers = 0;
  bool redlock = false;  // the locks are RedLocks (a majority of the servers)
};

// Options for drawing a run of `scenario`: how the checkers read it (its
// lock design), its servers, whether its locks are RedLocks.
TimelineOptions timeline_options_for(const Scenario& scenario);

// The subtitle of a violation's timeline: its explanation and the fault it
// names ("... Blamed: client 3 paused 34 171 ms > lease 30 000 ms."). Every
// timeline's caption comes from here.
std::string violation_subtitle(const std::string& explanation, const std::string& cause);
std::string violation_subtitle(const Violation& v);

// "review" / "sequence"; parse returns false for anything else.
const char* timeline_view_name(TimelineView view);
bool timeline_view_from_name(const std::string& name, TimelineView* out);

// `events` is a whole history from its first event (the review view reads it
// from there: a hold open before a later first event is not known).
std::string timeline_dot(const std::vector<Event>& events, const TimelineOptions& options);
// The review view of the window of a whole history (from its first event)
// that explains `v` (reports/violation_window.h), with the violation's
// events named, its subtitle as caption and its property's evidence.
std::string violation_timeline_dot(const std::vector<Event>& history, const Violation& v, TimelineOptions options);
// The review view of a recorded window (its events: `window`).
std::string review_dot(const HistoryRecording& recording, const std::vector<Event>& window,
                       const TimelineOptions& options);

// Thrown when `dot` cannot be run at all (Graphviz is not installed, or not
// on PATH). Commands that draw as a by-product (campaign, explore) catch it,
// write everything else and say why the pictures are missing; `timeline`,
// whose one output is the picture, fails with it.
class DotNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `dot_text` rendered as `format` ("svg", "png", "pdf") or, for
// format "dot", the text itself, to `out_path`. `dot` is killed after
// `time_limit_ms`. Throws DotNotFound when dot cannot be run.
constexpr int kDotTimeLimitMs = 60'000;
void render_timeline(const std::string& dot_text, const std::string& out_path, const std::string& format,
                     int time_limit_ms = kDotTimeLimitMs);

// One short human label for an event ("lock ok", "renew -> 1", "pause 41000 ms").
std::string describe_event(const Event& event);

}  // namespace locksim
