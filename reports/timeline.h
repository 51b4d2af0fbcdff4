// Timeline: draws a window of a history as a Graphviz sequence diagram for
// design reviews. One lane per client and per Redis server; time flows down,
// one row per event, in history order; a faint edge links the events of one
// operation across lanes (invoke -> script on the server -> completion).
// Colours: acquired holds green, releases blue, failures grey, faults orange,
// highlighted events (a checker's counterexample) red and bold.
//
// timeline_dot() is pure (same events, same text); render_timeline() runs the
// `dot` program and throws std::runtime_error with dot's message on failure.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "traces/event.h"

namespace locksim {

struct TimelineOptions {
  std::string title;
  std::set<uint64_t> highlight_ids;  // events to draw in red
  size_t max_events = 600;           // a longer window is cut, saying so in the title
};

std::string timeline_dot(const std::vector<Event>& events, const TimelineOptions& options);

// Writes `dot_text` rendered as `format` ("svg", "png", "pdf") or, for
// format "dot", the text itself, to `out_path`.
void render_timeline(const std::string& dot_text, const std::string& out_path, const std::string& format);

// One short human label for an event ("lock ok", "renew -> 1", "pause 41000 ms").
std::string describe_event(const Event& event);

}  // namespace locksim
