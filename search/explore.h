// Explore: every schedule of a small configuration, state by state. Where
// a campaign samples schedules from seeds, the explorer enumerates them:
// every choice the simulator would draw becomes a choice point
// (sim/schedule_hook.h), and each choice is taken in turn.
//
// The configuration is an ExplicitPlan (sim/explicit_plan.h): the scenario,
// each client's operations, and a Schedule whose latency is the link's one
// fixed latency (its fates and picks are what the explorer fills in). Time
// is exact: every message takes exactly that latency unless a fault says
// otherwise, every timer fires at its time. The choice points:
//  - at each instant at which something is due (before it runs), for each
//    client that still has something to do and each server: no fault, or
//    one of the allowed node faults (crash for good, a pause of pause_ms, a
//    client clock jump of jump_ms; a server restart, a server clock jump of
//    jump_ms), while the fault budget lasts;
//  - for every message (script request and reply, subscribe and its
//    acknowledgement, pub/sub delivery) to or from a live client: on time,
//    lost (Loss) or late (Delay: 1 µs after the next deadline, i.e. the
//    next timer, operation start or end of a pause of any client due after
//    its on-time arrival), each loss or delay using the budget;
//  - when actions of several actors are due at one instant, which runs
//    first (one actor's actions keep their order: sim/schedule_hook.h).
// Nothing else is branched: a choice that cannot change what happens (a
// fault on a client with nothing left to do, a late message with no
// deadline to cross) is not offered.
//
// States are fingerprinted (ExplicitRun::digest: the store, every client's
// state machine, every pending action with its time relative to now, the
// clocks, the budget used) and merged: the search is over states, not paths.
// The visited set keeps only the 64-bit fingerprints.
//
// Search orders: breadth first (the first counterexample found for a
// property is a shortest one, in transitions), depth first, or random walks
// from the start. A state is expanded by replaying its path. When the
// backend source makes copyable backends (model, lua), each worker's runs
// live in a SnapshotArena (sim/snapshot_arena.h): a
// replay restores a copy of the start instead of building a world, and one
// that ran kCheckpointSteps transitions or more copies the state it reached
// (a checkpoint), from which later replays through that state start; on
// other backends a replay builds its run anew and starts from the start. A
// replay runs on past its state on first options, so the states it passes
// get their first child without a replay of their own. Workers expand the
// frontier in fixed-size chunks and their results are merged in frontier
// order, so the states, the counts and the counterexamples depend neither
// on the number of workers nor on the copies (only the cost does: the
// transitions replayed, the memory).
//
// Every transition's history is checked by the CheckerSuite as it streams;
// a run that ends is also finished (liveness). A transition that shows a
// violation the policy fails on is a counterexample: the state it leads to
// is not expanded; the first one per property is kept, as an ExplicitPlan
// with its schedule (replay, check and timeline read its trace; it also
// runs on the live and lua backends) and its history up to the violation.
// Advisory properties (busy_poll) are counted and the search goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "properties/check_config.h"
#include "properties/verdict_policy.h"
#include "properties/violation.h"
#include "sim/backend_source.h"
#include "sim/explicit_plan.h"
#include "traces/event.h"

namespace locksim {

enum class ExploreFault : uint8_t { Crash, Pause, ClientClock, Restart, ServerClock, Loss, Delay };
enum class ExploreOrder : uint8_t { BreadthFirst, DepthFirst, RandomWalk };

// "crash", "pause", "clock", "restart", "server_clock", "loss", "delay".
const char* explore_fault_name(ExploreFault fault);
std::optional<ExploreFault> explore_fault_from_name(const std::string& name);
std::vector<ExploreFault> all_explore_faults();

struct ExploreConfig {
  ExplicitPlan plan;  // scenario, tasks, drain_ms, schedule (latency); no fault actions
  std::vector<ExploreFault> faults;
  int max_faults = 1;
  int64_t pause_ms = 31'000;  // a pause's length
  int64_t jump_ms = 31'000;   // a clock jump's size (forward)
  ExploreOrder order = ExploreOrder::BreadthFirst;
  uint64_t walks = 1'000;     // RandomWalk: how many walks
  uint64_t walk_seed = 1;     // RandomWalk: the walks' random stream
  int64_t max_depth = 1'000'000;        // transitions from the start
  uint64_t max_states = 10'000'000;     // distinct states
  uint64_t max_memory_bytes = uint64_t{4} << 30;  // visited set + frontier; checkpoints only within it
  int workers = 1;
  // Nodes expanded at once; 0: the explorer's own choice. Breadth first,
  // what the search finds does not depend on it (tests use small chunks to
  // make chunks overlap early); depth first it does.
  size_t chunk_nodes = 0;
  CheckConfig check;
  VerdictPolicy policy;
};

// The first counterexample found for one property.
struct ExploreCounterexample {
  Violation violation;
  ExplicitPlan plan;            // replays the path (its schedule included)
  std::vector<Event> events;    // its history up to the violation's detection
  uint64_t depth = 0;           // transitions from the start
  uint64_t distinct_before = 0; // distinct states known when it was found
  uint64_t paths = 0;           // transitions that showed this property's violation
};

struct ExploreResult {
  uint64_t transitions = 0;       // every transition taken (children generated)
  uint64_t distinct_states = 0;   // in the visited set (the start included)
  uint64_t terminal_transitions = 0;   // transitions whose run ended there
  uint64_t max_depth = 0;         // deepest state reached
  uint64_t replayed_transitions = 0;  // transitions run to replay paths (the cost)
  bool complete = false;          // every schedule within the bounds was explored
  std::string limit;              // why not: "max-states", "max-memory", "max-depth", "walks"
  uint64_t memory_bytes = 0;      // peak of the visited set + frontier + checkpoints
  std::vector<ExploreCounterexample> violations;  // failing properties, in the order found
  std::map<std::string, uint64_t> advisories;     // advisory property -> transitions that reported it
  // Properties the policy does not fail on, and under --unexplained-only
  // violations whose cause re-runs confirmed -> transitions that reported it.
  std::map<std::string, uint64_t> explained;
  bool failed() const { return !violations.empty(); }
};

// Progress after each chunk: distinct states, transitions, depth.
using ExploreProgress = std::function<void(const ExploreResult&)>;

// `sources`: one BackendSource per worker (at least config.workers; each
// used by one thread), and with policy.unexplained_only one more after
// them, on which the search proves the causes of violations (a violation
// whose cause re-runs confirm is counted in `explained` and the search goes
// on past it; the others fail). Throws ScenarioError for a bad configuration,
// std::invalid_argument for bad bounds, and whatever a backend throws
// (a lua script that cannot run).
ExploreResult run_explore(const ExploreConfig& config, const std::vector<BackendSource*>& sources,
                          const ExploreProgress& progress = {});

}  // namespace locksim
