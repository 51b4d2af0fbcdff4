// Review timeline: a window of a history drawn for a design review, from a
// HistoryRecording (properties/history_recording.h): what it draws is what
// the checkers read. Time runs left to right on a true time axis
// (reports/time_axis.h: proportional within a stretch, quiet stretches
// collapsed into marked bands), in seconds since the run began.
// Lanes, top to bottom:
//  - one per client: its believed holds as green bars (one bar per hold,
//    reentries counted on it), the watchdog's renewals and their replies as
//    ticks on them, its waits as thin grey bars with their polls (a dense
//    stretch is one band that says "1 843 polls, 322/s" and whom it polls
//    behind) and wake-up messages, its faults, and its clock offset under
//    its name where it is off by 50 ms or more;
//  - one per fair lock: the waiting line over time, each waiter's stay from
//    joining to leaving (granted, purged, gave up), head first, with its slot
//    deadline by its own clock; a waiter purged before that deadline is red;
//  - one per Redis server: each lease from grant to expiry or deletion, with
//    a tick per renewal (red where it expired while its owner still believed
//    it held the lock, with a dashed line across every lane), the scripts
//    (dense stretches counted), server faults.
// Overlapping believed holds are red (the bars and a pink column), each one
// the mutual-exclusion checker reports; the events in
// TimelineOptions::highlight_ids are red marks on their owner's lane,
// labelled with their ids; TimelineOptions::focus adds the evidence its
// violations' properties name (a liveness violation's free span and bound, a
// busy_poll's poll rate). Labels stay inside the canvas: its width follows
// them. Every node is placed here (neato -n2 only draws), so rendering stays
// linear in the events; review_dot() is pure (same input, same text).
// Nodes drawn for an event carry its id as an SVG class ("ev e<id>"), for
// the report's links to its event table.
#pragma once

#include <string>
#include <vector>

#include "properties/history_recording.h"
#include "reports/timeline.h"
#include "traces/event.h"

namespace locksim {

std::string review_dot(const HistoryRecording& recording, const std::vector<Event>& window,
                       const TimelineOptions& options);

}  // namespace locksim
