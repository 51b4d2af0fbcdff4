// Explore setup: a small configuration for the explorer (search/
// explore.h) from the words a person types: every client's operations
// ("lock,unlock" for all, or "lock,unlock;tryonce" one list per client;
// within a client's list, "lock,unlock/lock,unlock" gives it two tasks,
// i.e. two threads with their own owner ids),
// the hold time between a client's operations, the link's latency and the
// quiet time that ends a run. Parsed once, here, into an ExplicitPlan.
//
// Operations (a list, comma-separated):
//   lock            lock() with the default lease and the watchdog
//   lock:LEASE      lock() with an explicit lease (ms), no watchdog
//   trylock:WAIT    tryLock(WAIT ms) (default lease, watchdog)
//   trylock:WAIT:LEASE
//   tryonce         tryLock() with no wait: one attempt
//   tryonce:LEASE
//   unlock, forceunlock
// each optionally followed by @L: the lock's index (default 0); and
//   sleep:MS        the next operation starts MS later (not an operation).
// A task's first operation starts at time 0; each next one hold_ms after
// the previous one completed (plus its sleeps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/explicit_plan.h"
#include "sim/scenario.h"

namespace locksim {

constexpr int kMaxExploreOps = 64;   // per task
constexpr int kMaxExploreTasks = 4;  // per client

// One task's operations; throws std::invalid_argument naming the bad word.
std::vector<ExplicitOp> parse_explore_ops(const std::string& list, int locks, int64_t hold_ms);

// The plan every client runs: `ops` is one list for every client or one per
// client (';' between them), each one task or several ('/' between them);
// latency_us the link's one latency. Throws std::invalid_argument
// ("--ops: ...": bad operations, list count) or ScenarioError.
ExplicitPlan explore_plan(const Scenario& scenario, const std::string& ops, int64_t hold_ms, int64_t latency_us,
                          int64_t drain_ms);

}  // namespace locksim
