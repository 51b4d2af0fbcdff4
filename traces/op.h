// Op: what an event's operation or fault is, one enum for the whole history
// (traces/event.h). The simulator and the clients name an event by an Op;
// the checkers compare Ops; only the trace edge (trace_format.cc, the
// readers) and the reports turn an Op into its name or back.
//
// Contract: op_name(op) is a short stable snake_case name, the one a trace
// writes as "op"; op_from_name(op_name(op)) == op for every Op, and
// op_from_name of any other text is nullopt (a trace naming an unknown
// operation is refused where it is read). Op::None is the empty name (an
// event without an operation: a delivery, a script some tests build).
// Adding an Op: add it to the enum and to kOpNames in op.cc (a test walks
// every value); the switches over Op without `default:` then say where it
// must be handled (-Wswitch).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace locksim {

enum class Op : uint8_t {
  None,          // ""
  // Client operations (Invoke, Ok, Fail, Info), and the cause of a Script.
  Lock,          // lock(): wait as long as it takes
  TryLock,       // tryLock(wait) or tryLock() once (Event::once)
  Unlock,
  ForceUnlock,
  // Client-side actions and notices.
  Renew,         // a watchdog renewal (the cause of its Script events)
  AcquireFailed, // a fair waiter leaving the line (its Info, and the cause of its script)
  HoldLost,      // the client learns its hold is gone (renew answered 0, a group member lost)
  WatchdogStop,  // the watchdog stops renewing a hold
  ValidityEnd,   // a RedLock's validity ran out while it was held
  // Faults (the nemesis; Fault events).
  Crash,
  Restart,       // a crashed client starts again (detail: its new uuid)
  Pause,
  Resume,
  ClockJump,     // client >= 0: that client's clock; else the server's
  Partition,
  Heal,
  RedisRestart,
  Failover,
  Lost,          // a message the link dropped (Event::lost says which)
  Delayed,       // a message the schedule made late (explore; Event::lost says which)
};

inline constexpr int kOpCount = static_cast<int>(Op::Delayed) + 1;

std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);

// lock or try_lock.
constexpr bool is_acquire(Op op) { return op == Op::Lock || op == Op::TryLock; }
// unlock or force_unlock.
constexpr bool is_release(Op op) { return op == Op::Unlock || op == Op::ForceUnlock; }

}  // namespace locksim
