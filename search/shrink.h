// Shrinking: turns a failing run into a short counterexample. The failing
// scenario is re-run to record its history, which becomes an ExplicitPlan
// (sim/explicit_plan.h: exact operations per task plus exact fault actions);
// shrink_plan shrinks it with its link losses drawn and again with them
// pinned to their messages (pin_losses), and keeps the better.
// The shrinker then deletes whole tasks, fault actions, pinned losses, every task's
// operations before a common time, operations on locks other than the
// violation's, chunks of operations and single operations (the kept ones
// starting when they started), shortens delays and stretches them where waiting longer gives
// a shorter history, moves faults earlier where that gives a
// shorter history, keeping each change only if
// the run still shows a violation with the same signature (property plus the
// kind of fault blamed) and the counterexample does not grow; a change
// whose full run violates fewer other properties is kept even if it grows,
// so that the shrunk plan, run in full, shows one thing where it can. A
// change whose run keeps a hold with an explicit lease past what the
// workload does, or never releases one (Counterexample::overrun_holds),
// where the first counterexample did not, is never kept, and no violation
// whose own hold overruns counts (first_violation()): a shrunk plan must not
// make its own violations by dropping a release or stretching a hold. The
// counterexample is the shrunk history up to the event at which that
// violation was detected. When those passes find nothing more, a seeded
// walk of random changes, each kept when the counterexample does not grow,
// crosses plateaus that no single change leaves; then the passes again.
// Deterministic; bounded by kMaxShrinkRuns runs.
// Every run goes to a backend from `source` (sim/backend_source.h: live
// redis-servers shrink on live); a null source is the model, with the plan's
// model_variant. The blame_mutant baseline (correct client and scripts)
// always runs on the model.
#pragma once

#include <optional>
#include <string>

#include <functional>

#include "search/campaign.h"
#include "properties/check_config.h"
#include "sim/backend_source.h"
#include "sim/explicit_plan.h"

namespace locksim {

// Runs of the shrinking passes, of the walk (only for a counterexample of
// at most kWalkMaxEvents events), and of the passes after a walk that
// shortened it; kMaxShrinkRuns bounds them all.
constexpr int kPassRuns = 600;
constexpr int kWalkRuns = 3'000;
constexpr int kAfterWalkRuns = 200;
constexpr size_t kWalkMaxEvents = 200;
constexpr int kMaxShrinkRuns = kPassRuns + kWalkRuns + kAfterWalkRuns;

// "mutual_exclusion/pause": the property and the kind of fault blamed.
std::string violation_signature(const Violation& v);

// Runs an explicit plan on the model backend (its model_variant) through the
// CheckerSuite; returns the counterexample for the first violation that
// `accept` takes: the history up to the event where it was detected. A
// violation of the plan's own making is passed over: one whose owner kept
// its hold on the violation's lock past what the workload does
// (Counterexample::overrun_holds), with no fault to excuse it. A plan
// rebuilt from a history, or shrunk, can do that where the run it came
// from did not, and then shows an overlap that no fault explains.
std::optional<Counterexample> first_violation(const ExplicitPlan& plan, const CheckConfig& config,
                                              const std::function<bool(const Violation&)>& accept,
                                              BackendSource* source = nullptr);

// first_violation() for the violations with `signature` (any when empty).
std::optional<Counterexample> check_plan(const ExplicitPlan& plan, const CheckConfig& config,
                                         const std::string& signature, BackendSource* source = nullptr);

// Pins the plan's random link losses to the messages they strike
// (sim/fault_plan.h LossScript): the plan is run once on `source` (null:
// the model) recording each loss's message, and from then on exactly those
// messages are lost. Dropping an operation then leaves every other loss on
// its message, where a drawn loss would move to whichever message meets
// the draw. Nothing for a plan with a schedule or already pinned.
void pin_losses(ExplicitPlan* plan, BackendSource* source);

// The same plan with the correct client and scripts (no mutant, no variant).
ExplicitPlan baseline_plan(const ExplicitPlan& plan);

// A shrinking step's test: the counterexample `candidate` still shows, or
// nullopt when it no longer fails the way being shrunk.
using PlanProbe = std::function<std::optional<Counterexample>(const ExplicitPlan& candidate)>;

using ShrinkObserver = std::function<void(const ShrinkProgress&)>;

// The shrinking passes over `plan` (which `probe` must accept), keeping each
// change the probe accepts that leaves the counterexample showing fewer
// other properties' violations (Counterexample::other_violations), or as
// many and not more events. Returns the best counterexample (empty when the
// probe rejects `plan` itself) and leaves the shrunk plan in *plan.
// `observer`, if set, hears of every try (on the calling thread). At most
// kMaxShrinkRuns runs of the probe.
Counterexample shrink_with(ExplicitPlan* plan, const PlanProbe& probe, const ShrinkObserver& observer = {});

// Shrinks `plan` (which must fail with `signature`). Returns the shortest
// counterexample found and leaves the shrunk plan in *plan. With
// `blame_mutant`, every kept candidate must also *not* fail that way with the
// correct client and scripts, so the counterexample shows the mutant's bug.
// On a link that loses messages at random the plan is shrunk twice, its
// losses drawn and pinned (pin_losses), and the better result kept. At most
// kMaxShrinkRuns runs each, on every backend, so that lua and live shrink a
// failure alike.
Counterexample shrink_plan(ExplicitPlan* plan, const CheckConfig& config, const std::string& signature,
                           bool blame_mutant = false, BackendSource* source = nullptr,
                           const ShrinkObserver& observer = {});

// Fills cx->violation.cause (properties/cause_search.h): the counterexample's
// plan is run again whole and its violation's cause searched on re-runs of
// it; without a plan, nothing is searched.
void explain_counterexample(Counterexample* cx, const CheckConfig& config, BackendSource* source = nullptr,
                            int max_reruns = kDefaultCauseReruns);

// The whole path from a failing seed: record, convert, shrink. If the plan
// does not reproduce the violation, returns the original history up to it.
Counterexample shrink_scenario(const Scenario& scenario, const Violation& violation, const CheckConfig& config,
                               bool blame_mutant = false, BackendSource* source = nullptr,
                               const ShrinkObserver& observer = {});

}  // namespace locksim
