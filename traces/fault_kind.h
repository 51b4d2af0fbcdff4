// FaultKind: every kind of fault locksim injects or blames, one enum from
// the fault plan to the reports: the simulator injects the planned kinds
// (sim/fault_plan.h), the link draws the losses, the fault log
// (properties/fault_log.h) records what hit each client and server, a
// cause (properties/cause.h) names the faults a re-run showed were needed,
// and coverage (properties/coverage.h) counts each kind in each situation.
// Each of those edges names the kinds in its own words (JSON keys, report
// sentences); the switches over FaultKind have no `default:`, so that the
// compiler (-Wswitch) points at every place a new kind must be handled.
#pragma once

#include <cstdint>
#include <optional>

#include "traces/lost_message.h"

namespace locksim {

struct Event;

enum class FaultKind : uint8_t {
  // The nemesis' actions (a fault plan's, each a Fault event).
  Crash,
  Pause,
  Partition,
  ClientClockJump,
  ServerClockJump,
  RedisRestart,
  Failover,
  // Messages the link dropped (Fault "lost" events).
  LostRequest,    // a script's request: its client waits out its request timeout
  LostReply,      // a script's reply: the same
  LostMessage,    // a pub/sub delivery: a wake-up
  LostSubscribe,  // a subscribe or its acknowledgement
  // What a client saw: its request answered nothing in time (an Info "timeout").
  RequestTimeout,
  // A run's setup, which a cause may name (no event of its own).
  ClientClockSkew,   // a client's clock offset and drift
  ServerClockDrift,  // a server's clock drift
  SlowLink,          // a client's link delays: an acquire answered after the lease it took ran out
};

// Whether a fault of kind `k` hits a client (else a server).
bool is_client_fault(FaultKind k);
// One of the lost-message kinds.
constexpr bool is_lost(FaultKind k) {
  return k == FaultKind::LostRequest || k == FaultKind::LostReply || k == FaultKind::LostMessage ||
         k == FaultKind::LostSubscribe;
}
// The kind of a lost message (LostSubscribe for a subscription or its acknowledgement).
FaultKind lost_fault_kind(LostMessage::What what);
// The kind of a Fault event: nullopt for the events that end or mark one
// (restart, resume, heal, delayed). A lost message's kind is its What's;
// one whose text the reader did not know (What::None) counts as
// LostSubscribe, as every lost message but a request, reply or delivery.
std::optional<FaultKind> fault_kind_of(const Event& e);

}  // namespace locksim
