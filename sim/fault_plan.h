// FaultPlan: everything a profile decides about a run's environment, fixed
// before the run starts: the link behaviour, each node's clock setup, and a
// time-ordered list of nemesis actions. Plain data; built by
// make_fault_plan (sim/profiles.h), executed by the Simulator.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/network.h"
#include "sim/node_clock.h"
#include "traces/fault_kind.h"

namespace locksim {

// The kinds of a plan's actions are FaultKind's first seven (traces/fault_kind.h,
// one vocabulary from the plan to the checkers): Crash, Pause, Partition,
// ClientClockJump, ServerClockJump; RedisRestart (what the server keeps and
// how long it stays down come from the run's ServerFaultConfig,
// sim/server_faults.h); Failover (the server's replica is promoted and
// clients move to it; needs replica lags). The link's losses are drawn, not
// planned (LossScript below).
// Whether a fault kind is one a plan's action can have.
inline bool is_planned_fault(FaultKind k) {
  switch (k) {
    case FaultKind::Crash:
    case FaultKind::Pause:
    case FaultKind::Partition:
    case FaultKind::ClientClockJump:
    case FaultKind::ServerClockJump:
    case FaultKind::RedisRestart:
    case FaultKind::Failover:
      return true;
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe:
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink:
      return false;
  }
  return false;
}

struct FaultAction {
  int64_t at_us = 0;
  FaultKind kind = FaultKind::Crash;  // is_planned_fault(kind)
  int target = 0;              // client index, or server index for server faults
  int64_t duration_ms = 0;     // pause / partition length, clock jump (signed)
  int64_t restart_after_ms = -1;  // crash: restart after this long; -1 never
};

// Random link losses decided by message instead of by draw, for a cause's
// re-runs (properties/cause_search.h). A message's key is its client, what
// the link would lose (a Fault "lost" event's detail: "reply rlock_acquire
// lsim:L0") and its ordinal among that client's messages of that detail:
// loss_key(2, "reply rlock_acquire lsim:L0", 7).
//  - record: each Fault "lost" event carries that ordinal in `value`.
//  - lost (when set): a message is lost exactly when its key is in it, so a
//    re-run without some losses loses every other message it lost, and no
//    new one. The link's draws are made as without it; a message drawn lost
//    but delivered takes its delays (and its reply's) from a spare stream,
//    so that the link meets the other messages as before.
struct LossScript {
  bool record = false;
  std::optional<std::set<std::string>> lost;
  bool keyed() const { return record || lost.has_value(); }
};

std::string loss_key(int client, const std::string& what, uint64_t ordinal);

struct FaultPlan {
  LinkProfile link;
  std::vector<ClockSetup> client_clocks;  // one per client
  std::vector<ClockSetup> server_clocks;  // one per server
  std::vector<FaultAction> actions;       // sorted by at_us (stable)
  std::vector<int64_t> replica_lag_ms;    // per server: its replica's lag; empty: no replicas
  LossScript losses;                      // off but in a cause's runs
  // Clients whose link takes link.latency_min_us each way from a true time
  // on (client -> from_us): a cause's re-run without a slow link
  // (properties/cause_search.h). The link's draws are made as without it,
  // so its losses and the other links are unchanged.
  std::map<int, int64_t> steady_links;
};

inline std::string loss_key(int client, const std::string& what, uint64_t ordinal) {
  return std::to_string(client) + "|" + what + "|" + std::to_string(ordinal);
}

}  // namespace locksim
