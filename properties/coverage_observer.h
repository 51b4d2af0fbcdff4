// CoverageObserver: reads one run's history as it streams (an EventSink, like
// the checkers) and records what the run exercised, in the categories of
// properties/coverage.h (all but `script`, which the backend tells:
// Backend::script_coverage). It mirrors, from the history alone, each
// lock's server truth after every script (holders, the fair line, the lease
// the scripts set), each client's beliefs (hold depth per owner and lock),
// its pending operations, and whether it is crashed or paused.
//
// Items:
//   reply/<script>=<class>  class: nil, 0, 1, ttl (an acquire's positive
//       answer), negative, error, other
//   state/holders=0|1|2+, depth=2|3+ (an owner's believed hold count),
//       believers=2+ (clients that believe they hold one lock),
//       waiters=1|2|3+ (pending acquires of others), line=1|2|3+,
//       head=live|crashed|paused|gone (the fair line's head: its client
//       crashed, is paused, or it no longer waits), holder=crashed|paused,
//       lease=near (a script ran on a held lock with under a third of its
//       lease left), wakeup=waiter|no_waiter (a pub/sub message reached a
//       client that waits / that waits for nothing)
//   fault/<kind>:<situation>  kind: crash, pause, clock_jump (a client's),
//       partition, lost_request, lost_reply, lost_wakeup, lost_subscribe,
//       redis_restart, server_clock_jump, failover. A client fault's
//       situations (each that applies to the client hit): holding,
//       holding_past_lease (a pause or partition longer than the lease left
//       of a lock it holds), first_in_line, waiting, releasing, idle; a
//       server fault's: held (a lock on it has a holder), line (a fair line
//       on it has waiters), free.
//   pre/<property>:<situation>
//       mutual_exclusion:contended (a script on a held lock with others
//       waiting), mutual_exclusion:expired_while_believed (the server's
//       holders leave out a client that still believes it holds),
//       fifo_fairness:grant_with_line, fifo_fairness:purge (a fair script
//       dropped a waiter it neither granted nor was asked to remove),
//       watchdog_expiry:crashed_holder, watchdog_expiry:renewal_refused,
//       liveness:free_with_waiters, liveness:acquire_gave_up,
//       reentrancy:nested, reentrancy:release_by_non_owner,
//       script_error:error_reply
// Abstract states: after each script, the tuple of its lock's components
//   "<rlock|fair> holders=H depth=D believers=B waiters=W [line=Q head=S]
//   holder=S lease=L" (counts bucketed 0, 1, 2, 3+).
// The universe: the replies, states and preconditions of the lock kind's
// scripts, leaving out what only a violation shows (holders=2+,
// believers=2+, an error reply), and the situations of each fault kind the
// run injected. Multi-lock and RedLock operations name their group; their
// scripts its members ("<group>@<j>"): beliefs and waits are the group's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "impl/scenario_lock_kind.h"
#include "model/script_call.h"
#include "properties/coverage.h"
#include "traces/event.h"
#include "traces/event_sink.h"

namespace locksim {

// The scripts a lock kind runs: rlock, multi and redlock the four rlock_
// scripts; fair the five fair_ ones and rlock_renew (its watchdog); mixed
// all.
std::vector<ScriptKind> lock_kind_scripts(ScenarioLockKind lock_kind);

// One line in words for an item of any category ("a pause longer than the
// lease left of a lock the client held"); "" for a name it does not know.
std::string describe_coverage_item(const std::string& item);

class CoverageObserver final : public EventSink {
 public:
  explicit CoverageObserver(ScenarioLockKind lock_kind);
  ~CoverageObserver() override;
  CoverageObserver(const CoverageObserver&) = delete;
  CoverageObserver& operator=(const CoverageObserver&) = delete;

  void on_event(const Event& e) override;
  // What the run covered so far, with its universe (normalised).
  RunCoverage result() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace locksim
