// Divergence shrinking: `campaign --backend both` fails a seed when the
// checked backend's history (live: the pack's Lua on redis-servers) differs
// from the reference backend's (the model). This turns such a seed into a
// short counterexample: the seed's checked history becomes an ExplicitPlan
// (sim/explicit_plan.h), and the shrinking passes (search/shrink.h) keep
// each smaller plan whose two histories still differ.
//
// The counterexample's events are the checked history up to and including
// the first differing event; its violation has property "divergence", the
// message "event N: model <line> vs live <line>" (with "; apart by S ms"
// when divergence_size_ms gives one), and names event N.
// Deterministic (both sources are; each run starts from fresh()).
#pragma once

#include <optional>

#include "search/campaign.h"
#include "sim/backend_source.h"
#include "sim/explicit_plan.h"
#include "sim/history_comparator.h"

namespace locksim {

inline constexpr const char* kDivergenceProperty = "divergence";

// How far apart the two sides of a divergence are, in milliseconds: the
// largest difference between an integer field of the two event lines (the
// true time "t" counted in ms, the reply "r" when both are integers, the
// clocks, the fair line's deadlines). 0 when no integer field differs (a
// different kind, owner or text). Shrinking keeps at least a tenth of the
// seed's size, so a 300 s difference does not shrink to a 1 ms one.
int64_t divergence_size_ms(const HistoryMismatch& m);

// Runs `plan` on both sources; the counterexample at the first difference,
// or nullopt when the histories are equal.
// `mismatch`, if given, receives the first difference.
std::optional<Counterexample> plan_divergence(const ExplicitPlan& plan, BackendSource& checked,
                                              BackendSource& reference, HistoryMismatch* mismatch = nullptr);

// The divergence `first` of `scenario`, shrunk. When the seed's history does
// not reproduce the divergence as an explicit plan, the checked history up to
// the divergence is returned as is.
Counterexample shrink_divergence(const Scenario& scenario, const HistoryMismatch& first, BackendSource& checked,
                                 BackendSource& reference);

}  // namespace locksim
