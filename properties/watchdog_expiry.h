// WatchdogExpiryChecker: leases and the watchdog behave as specified.
//  1. A lock key never outlives its lease: once the server clock passes the
//     last successful acquire / renewal / partial release plus its lease_ms, no
//     later script may still see that hold (in particular a crashed holder's
//     lock is free within lease ms, server time).
//     And a refused acquire's PTTL answer is never shorter than the last
//     refresh implies (an acquire/renewal that did not reset the expiry).
//     A partial release refreshes the expiry only on its first execution: a
//     retry with the same request id is answered by the latch.
//  2. A renewal answers 1 only for an owner that holds the lock.
//  3. A live holder whose renewals get through never loses the lock: a hold
//     with the watchdog that is lost (hold_lost, or unlock answering "illegal
//     monitor state") without any fault hitting its client since the
//     server first held it for the acquire that began the hold (a pause
//     while the grant's reply waits, or while a group's other members are
//     taken, leaves the hold stale when it begins), or a server since the
//     acquire was invoked, is a violation; so is an
//     explicit-lease hold lost before its lease ran out. Such a violation may
//     be explained by those faults only (its FaultScope); the others are
//     violations of the protocol, which no fault explains.
//  4. No renewal is started after the owner's final release completed (its
//     op_id, allocated when the renewal starts, is newer than every op_id seen
//     by then, and it reaches the server more than renew_grace_ms later: the
//     watchdog must be cancelled), and none succeeds after it; a hold taken
//     only with explicit leases never gets a renewal started.
// Rules 1 judge the server's truth about each key's expiry as the history
// context's LeaseBook reads it (properties/lease_book.h), the reading the
// timelines draw the leases from.
// Memory: per (lock, owner) one record, dropped some leases after its final
// release; per client whether it crashed (the keys are the LeaseBook's).
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "properties/checker.h"
#include "properties/fault_log.h"
#include "properties/history_context.h"
#include "properties/lock_table.h"
#include "properties/name_hash.h"

namespace locksim {

class WatchdogExpiryChecker : public Checker {
 public:
  // shared: the suite's HistoryContext (fed by the suite); null: a private one.
  explicit WatchdogExpiryChecker(const CheckConfig& config, const HistoryContext* shared = nullptr)
      : Checker(config), ctx_(config, shared) {}
  std::string_view name() const override { return property::kWatchdogExpiry; }
  void on_event(const Event& e) override;

 private:
  struct OwnerState {          // client view of one (lock, owner)
    int client = -1;
    int64_t count = 0;
    bool watchdog = false;         // some acquire of the current hold armed it
    bool counts_unknown = false;
    uint64_t hold_event = 0;
    int64_t hold_start_us = 0;
    int64_t hold_invoke_us = 0;    // invoke of the acquire that began the hold
    int64_t hold_grant_us = 0;     // when the server first held it for that acquire (<= hold_start_us)
    int64_t lease_ms = -1;         // lease of the latest acquire (-1: watchdog)
    int64_t lease_expiry_us = 0;   // explicit lease: last refresh + lease
    uint64_t hold_op_floor = 0;    // newest op_id seen when the hold began
    bool lost = false;             // the client learned the hold is gone
    bool released = false;         // an unlock answered 1 (released)
    uint64_t release_event = 0;
    int64_t release_us = 0;
    uint64_t release_op_floor = 0; // newest op_id seen at that answer
  };
  struct PendingOp {
    int64_t lease_ms = -1;
    int64_t invoke_us = 0;
    // The first script of this acquire after which the server held the
    // owner (a group's first member taken, after the last release of its
    // touched members), or -1: the hold exists on the server from there.
    int64_t grant_us = -1;
  };

  void on_script(const Event& e);
  void on_hold_lost(const Event& e, const std::string& how);
  void prune(int64_t now_us);

  CheckerContext ctx_;
  // Looked up and pruned, never iterated for a report: unordered.
  std::unordered_map<std::pair<std::string, std::string>, OwnerState, NamePairHash, NamePairEq> owners_;  // (lock, owner)
  std::unordered_map<uint64_t, PendingOp> pending_;                   // op_id -> acquire
  std::map<int, bool> crashed_;                                       // client -> crashed
  int64_t last_prune_us_ = 0;
  uint64_t max_op_id_ = 0;
};

}  // namespace locksim
