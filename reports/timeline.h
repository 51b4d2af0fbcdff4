// Timeline: draws a window of a history as a Graphviz sequence diagram for
// design reviews. One lane per client and per Redis server; time flows down,
// one row per event, in history order; a faint edge links the events of one
// operation across lanes (invoke -> script on the server -> completion).
// Colours: acquired holds green, releases blue, failures grey, faults orange,
// highlighted events (a checker's counterexample) red and bold.
//
// timeline_dot() is pure (same events, same text) and places every node
// itself (a column per lane, a row per event), so drawing is linear in the
// events: Graphviz only renders (`dot -Kneato -n2`), it does not search for
// a layout (that took minutes for 2,000 events or a few hundred lanes).
// render_timeline() runs `dot` without a shell, under a time limit, and
// writes through an OutputFile (traces/output_file.h): the file appears
// complete or not at all, and nothing else is written to disk. It throws
// std::runtime_error (dot's message, the time limit, an unwritable path).
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
// format "dot", the text itself, to `out_path`. `dot` is killed after
// `time_limit_ms`.
constexpr int kDotTimeLimitMs = 60'000;
void render_timeline(const std::string& dot_text, const std::string& out_path, const std::string& format,
                     int time_limit_ms = kDotTimeLimitMs);

// One short human label for an event ("lock ok", "renew -> 1", "pause 41000 ms").
std::string describe_event(const Event& event);

}  // namespace locksim
