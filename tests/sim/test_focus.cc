// Focused runs (sim/focus.h, sim/targeted_nemesis.h): the focus a seed
// draws, its JSON form, that each trigger fires where it says and only
// within its profile, that a focused run replays from its seed, and that
// the plan recovered from its history runs the same history again.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "sim/explicit_plan.h"
#include "sim/focus.h"
#include "sim/model_backend.h"
#include "sim/profiles.h"
#include "sim/simulator.h"

namespace locksim {
namespace {

Scenario focused(uint64_t seed, FocusTrigger trigger, const std::string& profile = "safe",
                 ScenarioLockKind kind = ScenarioLockKind::Mixed) {
  Scenario s;
  s.seed = seed;
  s.clients = 4;
  s.locks = 2;
  s.lock_kind = kind;
  s.profile = Profile::named(profile);
  s.focus = Focus{trigger, 100, 4};
  return s;
}

std::vector<Event> run(const Scenario& s) {
  ModelBackend backend(s.servers);
  VectorSink sink;
  Simulator sim(s, backend, sink);
  sim.run();
  return sink.events;
}

std::vector<Event> run_plan(const ExplicitPlan& p) {
  ModelBackend backend(p.scenario.servers);
  VectorSink sink;
  run_explicit(p, backend, sink);
  return sink.events;
}

// The client faults of a history: (time, op, client, size).
using FaultKey = std::tuple<int64_t, std::string, int, int64_t>;
std::multiset<FaultKey> client_faults(const std::vector<Event>& h) {
  std::multiset<FaultKey> out;
  for (const Event& e : h) {
    if (e.kind == EventKind::Fault && e.client >= 0 && e.op != Op::Resume && e.op != Op::Restart)
      out.insert({e.true_us, std::string(op_name(e.op)), e.client, e.duration_ms});
  }
  return out;
}

// The faults a focused run has beyond those of the same seed unfocused
// can differ anywhere after the first one (the run goes otherwise), so the
// tests count what plan recovery names as the nemesis's instead.
size_t injected(const Scenario& s, const std::vector<Event>& h) {
  return run_fault_plan(s, s.servers, h).actions.size() - scenario_fault_plan(s, s.servers).actions.size();
}

TEST(Focus, DrawIsDeterministicAndOftenPlain) {
  const Profile safe = Profile::named("safe");
  int plain = 0;
  std::map<FocusTrigger, int> seen;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    const auto a = draw_focus(seed, safe, ScenarioLockKind::Mixed, 2);
    const auto b = draw_focus(seed, safe, ScenarioLockKind::Mixed, 2);
    ASSERT_EQ(a, b) << seed;
    if (!a) {
      ++plain;
      continue;
    }
    seen[a->trigger]++;
    EXPECT_TRUE(focus_applies(a->trigger, safe, ScenarioLockKind::Mixed));
  }
  EXPECT_GT(plain, 400);  // a quarter of 2000, give or take
  EXPECT_LT(plain, 600);
  EXPECT_EQ(static_cast<int>(seen.size()), kFocusTriggerCount);  // safe + mixed: every trigger applies
}

TEST(Focus, TriggersFollowTheProfileAndLockKind) {
  // pauses draws pauses only; a reentrant lock has no fair line.
  const Profile pauses = Profile::named("pauses");
  EXPECT_FALSE(focus_applies(FocusTrigger::CrashContendedHolder, pauses, ScenarioLockKind::Rlock));
  EXPECT_TRUE(focus_applies(FocusTrigger::PauseContendedHolder, pauses, ScenarioLockKind::Rlock));
  EXPECT_FALSE(focus_applies(FocusTrigger::CrashLineHead, Profile::named("safe"), ScenarioLockKind::Rlock));
  EXPECT_TRUE(focus_applies(FocusTrigger::CrashLineHead, Profile::named("safe"), ScenarioLockKind::Fair));
  // restarts draws no client fault: only HoldToRenewal can be drawn.
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const auto f = draw_focus(seed, Profile::named("restarts"), ScenarioLockKind::Rlock, 1);
    if (f) {
      EXPECT_EQ(f->trigger, FocusTrigger::HoldToRenewal);
    }
  }
  // A scenario whose focus cannot fire is refused, and one on a lock it lacks.
  Scenario s = focused(1, FocusTrigger::CrashLineHead, "safe", ScenarioLockKind::Rlock);
  EXPECT_THROW(validate_scenario(s), ScenarioError);
  s = focused(1, FocusTrigger::CrashContendedHolder);
  s.focus->only_lock = 2;
  EXPECT_THROW(validate_scenario(s), ScenarioError);
}

TEST(Focus, JsonRoundTripAndErrors) {
  const Focus f{FocusTrigger::PauseAcrossRenewal, 25, 2, OpMix::TryOnly, 1};
  EXPECT_EQ(focus_from_json(focus_to_json(f)), f);
  Scenario s = focused(9, FocusTrigger::HoldToRenewal);
  EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
  Scenario plain = s;
  plain.focus.reset();
  EXPECT_FALSE(scenario_to_json(plain).contains("focus"));  // older headers read unchanged
  for (const char* bad : {R"({"trigger":"nope","chance_pct":5,"max_faults":1})",
                          R"({"trigger":"pause_waiter","chance_pct":0,"max_faults":1})",
                          R"({"trigger":"pause_waiter","chance_pct":5,"max_faults":99})",
                          R"({"trigger":"pause_waiter","chance_pct":5.5,"max_faults":1})",
                          R"({"trigger":"pause_waiter","chance_pct":5,"max_faults":1,"x":1})", R"([1])",
                          R"({"trigger":"pause_waiter","chance_pct":5,"max_faults":1,"mix":"all","only_lock":-1})",
                          R"({"trigger":"pause_waiter","chance_pct":5,"max_faults":1,"mix":"any","only_lock":-2})",
                          R"({"trigger":"pause_waiter","chance_pct":5,"max_faults":1})"}) {
    EXPECT_THROW(focus_from_json(nlohmann::json::parse(bad)), FocusError) << bad;
  }
}

// Every trigger but HoldToRenewal fires in some of a few seeds, never more
// than its budget, only before the operations end, and everything it
// injects is a fault its profile could draw.
TEST(Focus, EachTriggerFiresWithinItsProfile) {
  for (int t = 0; t < kFocusTriggerCount; ++t) {
    const auto trigger = static_cast<FocusTrigger>(t);
    if (!focus_fault_kind(trigger)) continue;
    size_t total = 0;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      const Scenario s = focused(seed, trigger);
      const std::vector<Event> h = run(s);
      const size_t n = injected(s, h);
      EXPECT_LE(n, 4u) << focus_trigger_name(trigger) << " seed " << seed;
      const FaultPlan plan = run_fault_plan(s, s.servers, h);
      EXPECT_EQ(fault_outside_profile(s.profile, plan.actions, s.clients, s.servers, s.duration_ms * 1000), "")
          << focus_trigger_name(trigger) << " seed " << seed;
      // What the nemesis added is of the trigger's kind.
      std::multiset<std::tuple<int64_t, int, int>> planned;
      for (const FaultAction& a : scenario_fault_plan(s, s.servers).actions)
        planned.insert({a.at_us, static_cast<int>(a.kind), a.target});
      for (const FaultAction& a : plan.actions) {
        const auto it = planned.find({a.at_us, static_cast<int>(a.kind), a.target});
        if (it != planned.end()) {
          planned.erase(it);
          continue;
        }
        EXPECT_EQ(a.kind, *focus_fault_kind(trigger)) << focus_trigger_name(trigger) << " seed " << seed;
      }
      total += n;
    }
    EXPECT_GT(total, 0u) << focus_trigger_name(trigger) << " never fired in 8 seeds";
  }
}

TEST(Focus, FocusedRunReplaysFromItsSeed) {
  for (int t = 0; t < kFocusTriggerCount; ++t) {
    const Scenario s = focused(40 + static_cast<uint64_t>(t), static_cast<FocusTrigger>(t));
    EXPECT_EQ(run(s), run(s)) << focus_trigger_name(s.focus->trigger);
  }
}

// The plan recovered from a focused run's history (its injected faults as
// plan actions) runs the same client faults again: what shrinking and the
// causes' re-runs start from. (Not always the same history to the event:
// an operation a pause deferred to its end can start before the resume in
// a plan's run; unfocused plans share that.)
TEST(Focus, RecoveredPlanRunsTheSameFaults) {
  int compared = 0;
  for (int t = 0; t < kFocusTriggerCount; ++t) {
    const auto trigger = static_cast<FocusTrigger>(t);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const Scenario s = focused(seed, trigger);
      const std::vector<Event> h = run(s);
      if (focus_fault_kind(trigger) && injected(s, h) == 0) continue;
      const ExplicitPlan p = plan_from_history(s, h);
      const std::vector<Event> again = run_plan(p);
      EXPECT_EQ(client_faults(again), client_faults(h)) << focus_trigger_name(trigger) << " seed " << seed;
      ++compared;
    }
  }
  EXPECT_GT(compared, 15);
}

// Without a focus, nothing changes: the nemesis is not there, and a plan's
// faults are the profile's.
TEST(Focus, UnfocusedRunsAreUntouched) {
  Scenario s = focused(5, FocusTrigger::CrashContendedHolder);
  s.focus.reset();
  const std::vector<Event> h = run(s);
  EXPECT_EQ(run_fault_plan(s, s.servers, h).actions.size(), scenario_fault_plan(s, s.servers).actions.size());
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// A focus's workload: WaitOnly draws lock() alone, TryOnly tryLock alone,
// and only_lock puts every operation on that lock.
TEST(Focus, OperationMixAndOneLock) {
  Scenario s = focused(3, FocusTrigger::HoldToRenewal);
  s.focus->mix = OpMix::WaitOnly;
  s.focus->only_lock = 1;
  std::set<std::string> ops, locks;
  for (const Event& e : run(s)) {
    if (e.kind != EventKind::Invoke || e.op == Op::Unlock) continue;
    ops.insert(std::string(op_name(e.op)) + (e.wait_ms >= 0 ? "+wait" : ""));
    locks.insert(e.lock.name());
  }
  EXPECT_EQ(ops, (std::set<std::string>{"lock"}));
  EXPECT_EQ(locks, (std::set<std::string>{"lsim:L1"}));
  s.focus->mix = OpMix::TryOnly;
  s.focus->only_lock = -1;
  ops.clear();
  locks.clear();
  for (const Event& e : run(s)) {
    if (e.kind != EventKind::Invoke || e.op == Op::Unlock) continue;
    ops.insert(std::string(op_name(e.op)));
    locks.insert(e.lock.name());
  }
  EXPECT_EQ(ops, (std::set<std::string>{"try_lock"}));
  EXPECT_EQ(locks.size(), 2u);
}

}  // namespace
}  // namespace locksim
