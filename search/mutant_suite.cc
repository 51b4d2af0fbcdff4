#include "search/mutant_suite.h"

#include <algorithm>
#include <cassert>
#include <functional>

#include "impl/client_mutant.h"
#include "model/variant.h"
#include "properties/cause_search.h"
#include "properties/scenario_check.h"
#include "search/shrink.h"
#include "sim/model_backend_source.h"
#include "sim/rng.h"

namespace locksim {

namespace {

CampaignOptions tmpl(ScenarioLockKind lock_kind, const std::string& profile) {
  CampaignOptions o;
  o.scenario.lock_kind = lock_kind;
  o.scenario.profile = Profile::named(profile);
  if (lock_kind == ScenarioLockKind::FasterMulti) o.scenario.values = kDefaultValues;
  o.scenario.clients = 4;
  o.scenario.duration_ms = 60'000;
  return o;
}

// The workload that exposes each mutant. Most show without any fault; the
// ones that need a non-owner to act on a lock (stale renewals, releases of
// an expired hold) need holders paused past their lease; the stale-purge
// mutant needs a waiter that dies in the line (a crash: no acquire_failed)
// and a newcomer after its slot: three clients on the safe profile's link
// and clocks (no loss), with the explicit workload of dead_waiter_plan().
// The first-thread watchdog entry needs two tasks of one client around a
// pause longer than the lease (stale_co_task_plan()).
CampaignOptions template_for(const std::string& name) {
  if (name == "renew_no_owner_check" || name == "release_no_owner_check") {
    return tmpl(ScenarioLockKind::Rlock, "pauses");
  }
  if (name == "fair_no_stale_purge") {
    CampaignOptions o = tmpl(ScenarioLockKind::Fair, "safe");
    o.scenario.clients = 3;
    o.scenario.duration_ms = 30'000;
    return o;
  }
  if (name == "fair_giveup_no_acquire_failed" || name == "fair_no_acquire_failed" || name == "fair_same_deadline")
    return tmpl(ScenarioLockKind::Fair, "none");
  if (name == "fair_ttl_from_deadline") {
    CampaignOptions o = tmpl(ScenarioLockKind::Fair, "none");
    o.scenario.clients = 3;
    o.scenario.duration_ms = 30'000;
    return o;
  }
  // The spin lock's: a waiter that never backs off past 1 ms polls a held
  // lock hundreds of times a second; a watchdog left running after the
  // last release (spin_watchdog_not_cancelled, the client mutant
  // watchdog_not_cancelled on spin locks) renews nothing it holds.
  // busy_poll is advisory: the first one's campaign fails on it (--fail-on
  // busy_poll). Its waiters poll every millisecond or two, so its runs are
  // the small explicit workload of spin_waiter_plan() (one holder, one
  // waiter), which keeps each of the shrinker's re-runs short.
  if (name == "backoff_no_growth") {
    CampaignOptions o = tmpl(ScenarioLockKind::Spin, "none");
    o.policy.fail_on.insert(property::kBusyPoll);
    o.scenario.clients = 2;
    o.scenario.duration_ms = 5'000;
    return o;
  }
  if (name == "spin_watchdog_not_cancelled") return tmpl(ScenarioLockKind::Spin, "none");
  // The faster multi-lock's (three values, each task takes two): an
  // acquire that compares deadlines the wrong way round takes a value its
  // holder is within, with no fault at all; a release that gives values back
  // before it finds one not the caller's, and a renewal that writes into
  // values the caller does not hold, need a value taken over first: by a
  // client whose clock runs ahead of the holder's (skew), or from a
  // watchdog's holder paused past its lease (pauses).
  if (name == "faster_multi_expiry_inverted") return tmpl(ScenarioLockKind::FasterMulti, "none");
  if (name == "faster_multi_release_frees_early") return tmpl(ScenarioLockKind::FasterMulti, "skew");
  if (name == "faster_multi_renew_unheld") return tmpl(ScenarioLockKind::FasterMulti, "pauses");
  if (name == "watchdog_first_thread_entry") {
    CampaignOptions o = tmpl(ScenarioLockKind::Rlock, "pauses");
    o.scenario.clients = 1;
    o.scenario.duration_ms = 30'000;
    return o;
  }
  return tmpl(ScenarioLockKind::Rlock, "none");
}

// watchdog_first_thread_entry: two tasks of client 0 on one lock. Task 1
// takes it with the watchdog; the client is paused longer than the lease, so
// the lock expires; task 2 calls lock() before the resume (while task 1
// holds it, or during the pause), so at the resume its acquire and task 1's
// deferred renewal go out together. Whenever task 2's grant comes back
// first, it joins the stale entry, the stale renewal is refused and stops
// the entry: task 2's lock is no longer renewed, and its unlock more than a
// lease later answers illegal monitor state although no fault hit its hold.
// Task 1 unlocks some time after the resume (it learns it lost the lock).
// Link and clocks are the scenario profile's (pauses: no loss, exact clocks).
ExplicitPlan stale_co_task_plan(const Scenario& scenario) {
  assert(scenario.clients >= 1 && scenario.locks >= 1);
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = scenario_fault_plan(scenario, scenario.servers);
  plan.faults.actions.clear();
  plan.drain_ms = 60'000;  // outlasts the fresh task's unrenewed lease
  Rng rng = Rng(scenario.seed).split("stale_co_task");
  const int64_t lease_ms = ClientConfig{}.watchdog_lease_ms;
  const int64_t pause_at_ms = rng.uniform(2'000, 12'000);
  const int64_t pause_ms = rng.uniform(lease_ms + 1'000, lease_ms + 15'000);
  const int64_t resume_ms = pause_at_ms + pause_ms;

  ExplicitTask stale{0, 0, 1, {}};
  ExplicitOp take;  // lock() with the watchdog
  take.delay_us = rng.uniform(0, 1'000) * 1000;
  ExplicitOp leave;
  leave.kind = ExplicitOp::Kind::Unlock;
  leave.delay_us = (resume_ms + rng.uniform(1'000, 20'000)) * 1000;  // after its lock's reply: well past the resume
  stale.ops = {take, leave};

  ExplicitTask fresh{0, 0, 2, {}};
  ExplicitOp wait = take;
  wait.delay_us = rng.uniform(take.delay_us / 1000 + 100, resume_ms - 1) * 1000;
  ExplicitOp release = leave;
  release.delay_us = (lease_ms + rng.uniform(1'000, 20'000)) * 1000;
  fresh.ops = {wait, release};
  plan.tasks = {stale, fresh};

  FaultAction pause;
  pause.at_us = pause_at_ms * 1000;
  pause.kind = FaultKind::Pause;
  pause.target = 0;
  pause.duration_ms = pause_ms;
  plan.faults.actions.push_back(pause);
  return plan;
}

// backoff_no_growth: client 0 takes the spin lock and holds it 200 to 800
// ms; client 1 asks for it meanwhile and spins until it is free, then
// releases. Link and clocks are the scenario profile's (none).
ExplicitPlan spin_waiter_plan(const Scenario& scenario) {
  assert(scenario.clients >= 2 && scenario.locks >= 1);
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = scenario_fault_plan(scenario, scenario.servers);
  plan.faults.actions.clear();
  plan.drain_ms = 1'500;  // past both releases; short, for runs in which a waiter spins to the end
  Rng rng = Rng(scenario.seed).split("spin_waiter");
  ExplicitOp take;  // lock() with the watchdog
  take.delay_us = rng.uniform(0, 50) * 1000;
  ExplicitOp release;
  release.kind = ExplicitOp::Kind::Unlock;
  release.delay_us = rng.uniform(200, 800) * 1000;
  plan.tasks.push_back(ExplicitTask{0, 0, 1, {take, release}});
  ExplicitOp wait = take;
  wait.delay_us = (take.delay_us / 1000 + rng.uniform(20, 150)) * 1000;
  ExplicitOp leave = release;
  leave.delay_us = rng.uniform(0, 100) * 1000;
  plan.tasks.push_back(ExplicitTask{1, 0, 1, {wait, leave}});
  return plan;
}

// fair_no_stale_purge: three clients, one task each, a few fair-lock
// operations with explicit leases and short tryLock waits, and crash faults
// (no restart) while some of them wait: a waiter that dies in the line is
// never removed by acquire_failed, so only the purge can drop it. Link and
// clocks are the scenario profile's (safe: small delays, no loss).
ExplicitPlan dead_waiter_plan(const Scenario& scenario) {
  assert(scenario.clients >= 2 && scenario.locks >= 1);
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = scenario_fault_plan(scenario, scenario.servers);
  plan.faults.actions.clear();
  plan.drain_ms = 20'000;
  Rng rng = Rng(scenario.seed).split("dead_waiter");
  for (int c = 0; c < scenario.clients; ++c) {
    ExplicitTask t;
    t.client = c;
    t.task = 1;
    const int acquires = 1 + static_cast<int>(rng.below(3));
    for (int k = 0; k < acquires; ++k) {
      ExplicitOp acquire;
      acquire.delay_us = rng.uniform(0, 4'000) * 1000;
      acquire.lease_ms = rng.uniform(1'000, 4'000);
      if (rng.chance(0.5)) {
        acquire.kind = ExplicitOp::Kind::TryLock;
        acquire.wait_ms = rng.uniform(200, 3'000);
      }
      ExplicitOp unlock;
      unlock.kind = ExplicitOp::Kind::Unlock;
      unlock.delay_us = rng.uniform(0, 1'000) * 1000;
      t.ops.push_back(acquire);
      t.ops.push_back(unlock);
    }
    plan.tasks.push_back(std::move(t));
  }
  const int crashes = 1 + static_cast<int>(rng.below(2));
  for (int k = 0; k < crashes; ++k) {
    FaultAction a;
    a.at_us = rng.uniform(0, 8'000) * 1000;
    a.kind = FaultKind::Crash;
    a.target = static_cast<int>(rng.below(static_cast<uint64_t>(scenario.clients)));
    a.restart_after_ms = -1;
    plan.faults.actions.push_back(a);
  }
  std::stable_sort(plan.faults.actions.begin(), plan.faults.actions.end(),
                   [](const FaultAction& a, const FaultAction& b) { return a.at_us < b.at_us; });
  return plan;
}

// fair_ttl_from_deadline: client 0 takes the fair lock with an explicit lease
// and takes it again (reentry) before it runs out, so it holds longer than
// the lock's remaining time when client 1 joined the line: client 1's
// lock() polls after its estimate ran out and the old step-4 answer is
// negative, so it waits for a wake-up message with no time limit. Client 0
// dies before unlocking: its lease runs out and nobody ever publishes.
// Client 2 comes by later with a long tryLock (its scripts show the lock
// free) and gives up after its budget, while client 1 still waits on the
// free lock. (Client 2 does not unlock afterwards: a release of the free
// fair lock publishes to the head of the line and would wake client 1.)
// Link and clocks are the scenario profile's (none: small delays, exact clocks).
ExplicitPlan negative_wait_plan(const Scenario& scenario) {
  assert(scenario.clients >= 3 && scenario.locks >= 1);
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = scenario_fault_plan(scenario, scenario.servers);
  plan.faults.actions.clear();
  plan.drain_ms = 70'000;  // outlasts client 2's tryLock
  Rng rng = Rng(scenario.seed).split("negative_wait");
  const int64_t lease_ms = rng.uniform(1'500, 4'000);
  const int64_t start_ms = rng.uniform(0, 300);
  const int64_t reenter_ms = rng.uniform(lease_ms / 2, lease_ms - 300);  // after the first grant
  const int64_t crash_ms = start_ms + reenter_ms + rng.uniform(100, 1'000);

  ExplicitOp take;
  take.lease_ms = lease_ms;
  take.delay_us = start_ms * 1000;
  ExplicitOp again = take;
  again.delay_us = reenter_ms * 1000;
  ExplicitOp unlock;
  unlock.kind = ExplicitOp::Kind::Unlock;
  unlock.delay_us = rng.uniform(5'000, 10'000) * 1000;  // never reached: the client dies first
  ExplicitOp unlock_again = unlock;
  unlock_again.delay_us = rng.uniform(0, 1'000) * 1000;
  plan.tasks.push_back(ExplicitTask{0, 0, 1, {take, again, unlock, unlock_again}});

  ExplicitOp wait;  // lock() with the watchdog, while client 0 holds
  wait.delay_us = (start_ms + rng.uniform(50, lease_ms / 2 - 100)) * 1000;
  ExplicitOp release = unlock;
  release.delay_us = rng.uniform(500, 3'000) * 1000;
  plan.tasks.push_back(ExplicitTask{1, 0, 1, {wait, release}});

  // tryLock after client 0's lease ran out, waiting longer than a waiter may
  // sit on a free lock (CheckConfig::free_lock_bound_ms: a lease + slack).
  ExplicitOp late;
  late.kind = ExplicitOp::Kind::TryLock;
  late.wait_ms = rng.uniform(45'000, 60'000);
  late.delay_us = (start_ms + reenter_ms + lease_ms + rng.uniform(500, 3'000)) * 1000;
  plan.tasks.push_back(ExplicitTask{2, 0, 1, {late}});

  FaultAction crash;
  crash.at_us = crash_ms * 1000;
  crash.kind = FaultKind::Crash;
  crash.target = 0;
  crash.restart_after_ms = -1;
  plan.faults.actions.push_back(crash);
  return plan;
}

// Whether the spec's campaign fails on v's property (an advisory one only
// when its template's policy names it: backoff_no_growth's busy_poll).
std::function<bool(const Violation&)> counted_by(const VerdictPolicy& policy) {
  return [&policy](const Violation& v) { return policy.fail_on.count(v.property) > 0; };
}

// The first violation of the plan's run that the policy counts and that no
// fault explains (properties/cause_search.h), as a counterexample.
std::optional<Counterexample> unexplained(const ExplicitPlan& plan, const CheckConfig& cfg,
                                          const VerdictPolicy& policy) {
  const auto counted = counted_by(policy);
  ModelBackendSource model;  // the scenario's model_variant
  VectorSink history;
  std::vector<Violation> found = check_plan_on(model, plan, cfg, &history).violations;
  explain_violations(&found, plan, history.events, cfg, nullptr, kDefaultCauseReruns, counted);
  for (const Violation& v : found) {
    if (!counted(v) || v.explained()) continue;
    Counterexample cx;
    const size_t end = std::min<size_t>(history.events.size(), v.detected_at_event + 1);
    cx.events.assign(history.events.begin(), history.events.begin() + static_cast<std::ptrdiff_t>(end));
    cx.violation = v;
    cx.plan = plan;
    return cx;
  }
  return std::nullopt;
}

}  // namespace

std::vector<MutantSpec> mutant_specs() {
  std::vector<MutantSpec> out;
  for (ClientMutant m : all_client_mutants()) {
    if (m == ClientMutant::None) continue;
    const std::string name(client_mutant_name(m));
    CampaignOptions o = template_for(name);
    o.scenario.mutant = m;
    MutantSpec spec{name, true, o, {}};
    if (m == ClientMutant::WatchdogFirstThreadEntry) spec.plan_template = stale_co_task_plan;
    if (m == ClientMutant::BackoffNoGrowth) spec.plan_template = spin_waiter_plan;
    out.push_back(std::move(spec));
    if (m == ClientMutant::WatchdogNotCancelled) {  // the same bug in a spin lock's client
      CampaignOptions spin = template_for("spin_watchdog_not_cancelled");
      spin.scenario.mutant = m;
      out.push_back(MutantSpec{"spin_watchdog_not_cancelled", true, spin, {}});
    }
  }
  for (ModelVariant v : mutant_variants()) {  // design variants are not mutants
    const std::string name(variant_name(v));
    CampaignOptions o = template_for(name);
    o.scenario.model_variant = v;
    MutantSpec spec{name, false, o, {}};
    if (v == ModelVariant::FairNoStalePurge) spec.plan_template = dead_waiter_plan;
    if (v == ModelVariant::FairTtlFromDeadline) spec.plan_template = negative_wait_plan;
    out.push_back(std::move(spec));
  }
  return out;
}

MutantResult run_mutant(const MutantSpec& spec, int max_seeds, bool shrink) {
  // After the first catching seed, up to this many more catching seeds are
  // shrunk too and the shortest counterexample kept (shrinking is a local
  // search; different starting histories reach different minima).
  constexpr int kExtraCatches = 4;
  constexpr int kExtraSeeds = 40;
  MutantResult r;
  r.name = spec.name;
  const CheckConfig cfg = default_check_config();
  const auto counted = counted_by(spec.tmpl.policy);
  const Scenario base = campaign_template(spec.tmpl);
  int extra_catches = 0;
  int first_catch = -1;
  for (int i = 0; i < max_seeds; ++i) {
    if (first_catch >= 0 && (!shrink || extra_catches >= kExtraCatches || i > first_catch + kExtraSeeds)) break;
    Scenario s = base;
    s.seed = base.seed + static_cast<uint64_t>(i);
    if (first_catch < 0) r.seeds = i + 1;
    if (spec.plan_template) {
      ExplicitPlan plan = spec.plan_template(s);
      auto cx = unexplained(plan, cfg, spec.tmpl.policy);
      if (!cx) continue;
      const std::string signature = violation_signature(cx->violation);
      if (check_plan(baseline_plan(plan), cfg, signature)) continue;  // not the mutant's doing
      if (first_catch >= 0) extra_catches++;
      if (first_catch < 0) {
        first_catch = i;
        r.caught = true;
      }
      if (shrink) {
        *cx = shrink_plan(&plan, cfg, signature, /*blame_mutant=*/true);
        explain_counterexample(&*cx, cfg);
      }
      if (!r.counterexample || cx->events.size() < r.counterexample_events) {
        r.counterexample_events = cx->events.size();
        r.property = cx->violation.property;
        r.violation = cx->violation.to_string();
        r.counterexample = std::move(*cx);
      }
      continue;
    }
    VectorSink history;
    ScenarioVerdict verdict = check_scenario(s, cfg, &history);
    explain_violations(&verdict.violations, s, history.events, cfg, nullptr, kDefaultCauseReruns, counted);
    for (const Violation& v : verdict.violations) {
      if (v.explained() || !counted(v)) continue;  // the profile's own doing, or advisory
      if (first_catch >= 0) extra_catches++;
      if (first_catch < 0) {
        first_catch = i;
        r.caught = true;
        r.property = v.property;
        r.violation = v.to_string();
        r.counterexample_events = v.detected_at_event + 1;
      }
      if (shrink) {
        Counterexample cx = shrink_scenario(s, v, cfg, /*blame_mutant=*/true);
        explain_counterexample(&cx, cfg);
        if (!r.counterexample || cx.events.size() < r.counterexample_events) {
          r.counterexample_events = cx.events.size();
          r.property = cx.violation.property;
          r.violation = cx.violation.to_string();
          r.counterexample = std::move(cx);
        }
      }
      break;
    }
  }
  return r;
}

nlohmann::json mutant_results_to_json(const std::vector<MutantResult>& results) {
  nlohmann::json list = nlohmann::json::array();
  for (const MutantResult& r : results) {
    nlohmann::json j;
    j["name"] = r.name;
    j["caught"] = r.caught;
    j["property"] = r.caught ? nlohmann::json(r.property) : nlohmann::json(nullptr);
    j["seeds"] = r.seeds;
    j["wall_s"] = r.wall_s;
    j["counterexample_events"] = r.counterexample_events;
    j["explained"] = r.counterexample && r.counterexample->violation.explained();
    j["cause"] = r.counterexample ? cause_to_json(r.counterexample->violation.cause) : nlohmann::json(nullptr);
    list.push_back(j);
  }
  return nlohmann::json{{"mutants", list}};
}

}  // namespace locksim
