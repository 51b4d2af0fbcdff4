// Profiles: named fault-plan generators.
//  none     nothing goes wrong: short delays, exact clocks.
//  safe     every fault bounded so that the lock's guarantees must hold:
//           network delay well under lease/3, rare loss (retries cover it),
//           pauses under 300 ms (< lease/3 of the shortest explicit lease),
//           clock jumps of a few ms, small drift, crashes with or without
//           restart.
//  pauses   process pauses longer than the lease; nothing else.
//  skew     client clocks offset by seconds; nothing else.
//  hostile  everything, unbounded: long tails, loss, partitions, long pauses,
//           clock jumps of seconds, crashes, Redis restarts losing data.
// Server clocks only move forward (Redis and the model assume monotonic time).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/fault_plan.h"
#include "sim/rng.h"

namespace locksim {

const std::vector<std::string>& profile_names();
bool is_profile(const std::string& name);

// Throws std::invalid_argument for an unknown profile name.
FaultPlan make_fault_plan(const std::string& profile, int clients, int servers,
                          int64_t duration_us, const Rng& rng);

}  // namespace locksim
