// FifoFairnessChecker: on a fair lock, waiters that were never purged (their
// slot deadline had not passed, in true time, give or take
// CheckConfig::purge_tolerance_ms) and did not give up are granted in line
// order. Line order and deadline bounds come from FairLineMirror, which
// claims nothing the history leaves open (unknown send times, clock drift):
// every report holds for every `now` and deadline the bounds allow. When a
// later waiter is granted while an earlier one is still waiting inside its
// slot (lower bound of its deadline past its own clock's upper bound plus the
// tolerance), or a script surely purges such a waiter, the checker reports it
// and explains clock skew when that is the cause ("client 2's clock is 4 000
// ms ahead: its deadline purged client 5, who was still waiting"). It also
// checks that a waiter polling a free lock with only stale waiters ahead of it
// gets it (the server purges stale waiters), and that nobody is enqueued
// behind a waiter already past its slot (version 1 traces: ttl reply <= -2;
// version 2: the line after a purging script still has a head past its
// deadline by the script's own now_ms, from server truth).
// A waiter granted or purged out of turn may be any fault's doing (clocks
// decide who looks stale: FaultScope::any()); the other reports are the
// protocol's (a stale waiter left, a deadline rewritten): no fault explains
// them. A waiter left in the line after its client gave up is ghost_waiter's
// (properties/ghost_waiter.h).
// Memory: the mirror's lines, per client a fault log, per fair lock the
// clients that ran scripts on it.
#pragma once

#include <set>
#include <string>

#include "properties/checker.h"
#include "properties/fair_line.h"
#include "properties/fault_log.h"
#include "properties/history_context.h"
#include "properties/lock_table.h"

namespace locksim {

class FifoFairnessChecker : public Checker {
 public:
  // shared: the suite's HistoryContext (fed by the suite); null: a private one.
  explicit FifoFairnessChecker(const CheckConfig& config, const HistoryContext* shared = nullptr)
      : Checker(config), ctx_(config, shared) {}
  std::string_view name() const override { return property::kFifoFairness; }
  void on_event(const Event& e) override;

 private:
  void check_grant(const FairLineMirror::Grant& g);
  void check_purged(const Event& e);
  void check_stale_tail(const Event& e);
  void check_stale_head(const Event& e);
  std::string explain_skew(int purged_client, const std::string& lock) const;

  CheckerContext ctx_;
  PerLockId<std::set<int>> script_clients_;  // fair lock (context id) -> clients that ran scripts
};

}  // namespace locksim
