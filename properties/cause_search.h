// Cause search: proves what caused a violation by re-running the run that
// showed it without some of its faults. The simulator is deterministic, so a
// re-run without a set of faults shows exactly what the same run does
// without them. A generated run is re-run as its scenario (the same
// workload, whose clients do what they would have done) under its
// profile's fault plan minus those faults (Simulator's `faults`); an
// explicit plan (a shrunk counterexample's) is re-run as the plan.
//
// The faults of a run: every fault action that struck (pause, partition,
// crash, client or server clock jump, Redis restart, failover), every random
// link loss (request, reply, pub/sub message, subscription: the run's Fault
// events "lost"), every client's clock
// setup (offset and drift), every server's clock drift, and, for mutual
// exclusion (FaultScope::slow_links), a client's slow link: an acquire of one
// of the violation's holds answered "held" longer after its first script
// took a lease than that lease ran (removed: the client's link takes its
// least latency from that operation's invoke on, sim/fault_plan.h). A lost request or
// reply is what makes its client wait out the request timeout, so "lost
// reply #812" in a cause is that timeout too. The candidates for a violation
// are those its FaultScope permits (properties/cause.h) that struck before
// it was found.
//
// Losses are pinned to their messages (sim/fault_plan.h LossScript): the
// run is first run once more recording which messages it lost (it must give
// the history again, else every violation is Unconfirmed), and every re-run
// loses exactly those messages but the removed ones and those lost after
// the violation being explained was found, and no other. So a re-run
// without one loss keeps every other loss on its message, whatever the
// clients then do otherwise (a draw-by-draw re-run would move the other
// losses onto other messages), and a later loss cannot strike before the
// violation in a re-run that sends its message sooner. A spared request's reply gets through too,
// and its delays come from a spare stream so that the other messages meet
// the link as before. A plan with an explored schedule (sim/schedule_replay.h)
// keeps the schedule's losses: there only fault actions and clock setups
// are removed.
//
// For one violation:
//  1. the run as it is must show it again (else Unconfirmed);
//  2. each candidate alone, the ones the checker's sentence names first,
//     then the involved clients', latest first (at most kSingles; clock
//     setups and slow links only when no fault that struck will do): the first whose
//     removal alone removes it is a smallest set (Confirmed, with it);
//  3. else without every candidate: if it still shows, no permitted fault
//     explains it (Persists);
//  4. else delta debugging over the candidates, down to a set S whose
//     removal removes the violation while the removal of S minus any one
//     fault does not (Confirmed, with S).
// "Shows it" (Impl::shows) means a violation of the same property on the
// same lock whose first owner (the holder, waiter or releaser it judges) is
// v's, named by (client, incarnation, task), which do not depend on a run's
// client uuids, whatever operations it cites and whoever else it names,
// found from v's first evidence on and before the next permitted fault after
// v was found: a removal that only puts the violation off, or has the same
// owner violate otherwise, did not remove it.
// An explicit plan without a pause gives back the wait of the operations
// the pause held back (they start at the pause's start at the latest);
// without a crash the process stops in order instead: its tasks release, at
// the crash, what they held (and what they were acquiring, once they get
// it), and its restart's tasks run in the same process, at their times; and
// it balances holds (ExplicitPlan::balance_holds).
// Bounded: at most `max_reruns` runs per violation (runs are cached and
// shared by the violations of one run); the cap leaves it Unconfirmed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "properties/check_config.h"
#include "properties/violation.h"
#include "sim/backend_source.h"
#include "sim/explicit_plan.h"
#include "traces/event.h"

namespace locksim {

inline constexpr int kDefaultCauseReruns = 96;
inline constexpr int kMaxCauseReruns = 100'000;

class CauseSearch {
 public:
  static constexpr int kSingles = 8;

  // An explicit plan's violations: `plan` must replay `history` (the plan a
  // shrunk trace carries). `source` runs the re-runs (null: the model, with
  // the plan's model variant). max_reruns >= 0 (0: no re-run, NotSearched).
  CauseSearch(ExplicitPlan plan, const std::vector<Event>& history, const CheckConfig& config, BackendSource* source,
              int max_reruns);
  // A generated run's violations: `history` is the run of `scenario`, whose
  // re-runs keep its workload and change its profile's fault plan
  // (Simulator's `faults`).
  CauseSearch(const Scenario& scenario, const std::vector<Event>& history, const CheckConfig& config,
              BackendSource* source, int max_reruns);
  ~CauseSearch();
  CauseSearch(const CauseSearch&) = delete;
  CauseSearch& operator=(const CauseSearch&) = delete;

  // The cause of `v`, a violation of the history.
  Cause explain(const Violation& v);

  // For audits (tests/properties/cause_audit_test.cc): every violation the
  // run shows without `faults` (faults of this run, as a cause of `v` names
  // them), re-run as a proof re-runs it (the losses after `v` was found are
  // spared too), uncached and not counted in runs(). Throws
  // std::invalid_argument for a fault not of this run, std::runtime_error
  // when the run was not reproduced or the re-run cannot complete.
  std::vector<Violation> violations_without(const Violation& v, const std::vector<CauseFault>& faults);

  // Plan runs made so far (cache misses), for all violations.
  int runs() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Fills the cause of every violation in *violations that `want` selects
// (the others are left NotSearched), re-running `plan` (or the generated
// `scenario`), which gives `history`. With max_reruns 0 nothing is re-run.
void explain_violations(std::vector<Violation>* violations, const ExplicitPlan& plan,
                        const std::vector<Event>& history, const CheckConfig& config, BackendSource* source,
                        int max_reruns, const std::function<bool(const Violation&)>& want);
void explain_violations(std::vector<Violation>* violations, const Scenario& scenario,
                        const std::vector<Event>& history, const CheckConfig& config, BackendSource* source,
                        int max_reruns, const std::function<bool(const Violation&)>& want);

}  // namespace locksim
