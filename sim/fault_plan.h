// FaultPlan: everything a profile decides about a run's environment, fixed
// before the run starts: the link behaviour, each node's clock setup, and a
// time-ordered list of nemesis actions. Plain data; built by
// make_fault_plan (sim/profiles.h), executed by the Simulator.
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

#include "sim/network.h"
#include "sim/node_clock.h"

namespace locksim {

// RedisRestart: the server restarts (what it keeps and how long it stays down
// come from the run's ServerFaultConfig, sim/server_faults.h). Failover: the
// server's replica is promoted and clients move to it (needs replica lags).
enum class FaultKind { Crash, Pause, ClientClockJump, ServerClockJump, Partition, RedisRestart, Failover };

struct FaultAction {
  int64_t at_us = 0;
  FaultKind kind = FaultKind::Crash;
  int target = 0;              // client index, or server index for server faults
  int64_t duration_ms = 0;     // pause / partition length, clock jump (signed)
  int64_t restart_after_ms = -1;  // crash: restart after this long; -1 never
};

// A random link loss that does not happen (a cause's re-run without it):
// the `nth` (1-based) random loss on client `client`'s link, counting every
// random loss of that link (requests, replies, deliveries, subscriptions) in
// the order the run meets them, spared ones included. In the run's history
// that is the client's nth Fault event "lost".
struct SparedLoss {
  int client = 0;
  uint64_t nth = 0;
  auto operator<=>(const SparedLoss&) const = default;
};

struct FaultPlan {
  LinkProfile link;
  std::vector<ClockSetup> client_clocks;  // one per client
  std::vector<ClockSetup> server_clocks;  // one per server
  std::vector<FaultAction> actions;       // sorted by at_us (stable)
  std::vector<int64_t> replica_lag_ms;    // per server: its replica's lag; empty: no replicas
  std::vector<SparedLoss> spared_losses;  // sorted; empty but in a cause's re-run
};

}  // namespace locksim
