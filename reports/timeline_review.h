// Review timeline: a window of a history drawn for a design review. Time runs
// left to right on a true time axis (reports/time_axis.h: proportional within
// a stretch, quiet stretches collapsed into marked bands); one lane per client
// and one per Redis server. Client lanes show each believed hold as a green
// bar (acquire to release, loss or crash) and each wait as a thin grey bar
// with its wake-up messages; server lanes show each lease as a blue bar from
// grant to expiry or deletion, with a tick per renewal; faults are orange
// spans or marks where and when they hit. Believed holds of one lock that
// overlap are drawn red, a lease that expired while its owner still believed
// it held the lock gets a dashed line across all lanes, and the events named
// in TimelineOptions::highlight_ids are red marks labelled with their ids.
//
// Every node is placed here (neato -n2 only draws), so rendering stays linear
// in the events; review_timeline_dot() is pure (same events, same text).
#pragma once

#include <string>
#include <vector>

#include "reports/timeline.h"
#include "traces/event.h"

namespace locksim {

std::string review_timeline_dot(const std::vector<Event>& events, const TimelineOptions& options);

}  // namespace locksim
