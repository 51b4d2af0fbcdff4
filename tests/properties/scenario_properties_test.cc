// RapidCheck scenario properties: whole explicit scenarios (clients, lock
// sessions with their timings, a fault plan of short pauses and clock jumps)
// are generated, run on the model backend and checked by the CheckerSuite.
// RapidCheck shrinks both the sessions and the fault plan. Under "safe"
// conditions every property holds for our client and scripts; with a client
// mutant the same generator finds a counterexample.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "reports/campaign_text.h"
#include "properties/scenario_check.h"
#include "search/shrink.h"
#include "sim/explicit_plan.h"

namespace locksim {
namespace {

// One lock session of a task: think, acquire, hold, unlock.
struct Session {
  int kind = 0;           // 0 lock(), 1 lock(lease), 2 tryLock(wait), 3 tryLock()
  int64_t think_ms = 0;
  int64_t hold_ms = 0;
  int64_t lease_ms = -1;
  int64_t wait_ms = -1;
};

struct SafeScenario {
  int clients = 2;
  ScenarioLockKind lock_kind = ScenarioLockKind::Rlock;
  std::vector<std::vector<Session>> sessions;  // per client (task 1)
  std::vector<FaultAction> faults;             // pauses <= 300 ms, clock jumps of a few ms
};

// inRange scales with RapidCheck's size; these draw from the whole range
// (shrinking still moves towards the low end).
template <typename T>
rc::Gen<T> uniform(T lo, T hi) {
  return rc::gen::resize(100, rc::gen::inRange<T>(lo, hi));
}

template <typename T, typename G>
rc::Gen<std::vector<T>> up_to(int max_count, G gen) {
  return rc::gen::mapcat(uniform<int>(0, max_count + 1),
                         [gen](int n) { return rc::gen::container<std::vector<T>>(static_cast<size_t>(n), gen); });
}

rc::Gen<Session> gen_session() {
  return rc::gen::apply(
      [](int kind, int64_t think_ms, int64_t lease_ms, int64_t hold_frac, int64_t wait_ms) {
        Session s;
        s.kind = kind;
        s.think_ms = think_ms;
        if (kind == 1) s.lease_ms = lease_ms;
        if (kind == 2) s.wait_ms = wait_ms;
        // Hold well under the lease (explicit) or any time (watchdog).
        s.hold_ms = kind == 1 ? lease_ms * hold_frac / 400 : hold_frac * 100;
        return s;
      },
      uniform<int>(0, 4), uniform<int64_t>(0, 2000), uniform<int64_t>(2000, 10000), uniform<int64_t>(0, 100),
      uniform<int64_t>(0, 5000));
}

rc::Gen<FaultAction> gen_fault(int clients) {
  return rc::gen::apply(
      [](int64_t at_ms, int target, bool pause, int64_t size) {
        FaultAction f;
        f.at_us = at_ms * 1000;
        f.target = target;
        f.kind = pause ? FaultKind::Pause : FaultKind::ClientClockJump;
        f.duration_ms = pause ? 10 + size % 290 : size % 11 - 5;
        return f;
      },
      uniform<int64_t>(0, 20000), uniform<int>(0, clients), rc::gen::arbitrary<bool>(), uniform<int64_t>(0, 1000));
}

rc::Gen<SafeScenario> gen_scenario() {
  return rc::gen::mapcat(uniform<int>(1, 4), [](int clients) {
    return rc::gen::apply(
        [clients](bool fair, std::vector<std::vector<Session>> sessions, std::vector<FaultAction> faults) {
          SafeScenario s;
          s.clients = clients;
          s.lock_kind = fair ? ScenarioLockKind::Fair : ScenarioLockKind::Rlock;
          s.sessions = std::move(sessions);
          s.faults = std::move(faults);
          std::stable_sort(s.faults.begin(), s.faults.end(),
                           [](const FaultAction& a, const FaultAction& b) { return a.at_us < b.at_us; });
          return s;
        },
        rc::gen::arbitrary<bool>(),
        rc::gen::container<std::vector<std::vector<Session>>>(static_cast<size_t>(clients),
                                                              up_to<Session>(6, gen_session())),
        up_to<FaultAction>(6, gen_fault(clients)));
  });
}

ExplicitPlan to_plan(const SafeScenario& g, ClientMutant mutant) {
  ExplicitPlan plan;
  plan.scenario.seed = 7;
  plan.scenario.clients = g.clients;
  plan.scenario.lock_kind = g.lock_kind;
  plan.scenario.profile = Profile::named("none");
  plan.scenario.mutant = mutant;
  plan.faults = scenario_fault_plan(plan.scenario, 1);
  plan.faults.actions = g.faults;
  plan.drain_ms = 40'000;
  for (int c = 0; c < g.clients; ++c) {
    ExplicitTask t{c, 0, 1, {}};
    int64_t carry_us = 0;  // a session whose acquire is skipped still spends its time
    for (const Session& s : g.sessions[static_cast<size_t>(c)]) {
      ExplicitOp acquire;
      acquire.kind = s.kind == 2 ? ExplicitOp::Kind::TryLock : s.kind == 3 ? ExplicitOp::Kind::TryOnce
                                                                           : ExplicitOp::Kind::Lock;
      acquire.lease_ms = s.lease_ms;
      acquire.wait_ms = s.wait_ms;
      acquire.delay_us = carry_us + s.think_ms * 1000;
      ExplicitOp unlock;
      unlock.kind = ExplicitOp::Kind::Unlock;
      unlock.delay_us = s.hold_ms * 1000;
      t.ops.push_back(acquire);
      t.ops.push_back(unlock);
      carry_us = 0;
    }
    plan.tasks.push_back(std::move(t));
  }
  return plan;
}

std::string describe(const std::optional<Counterexample>& cx) {
  if (!cx) return "";
  std::string out = cx->violation.to_string() + "\n";
  for (const Event& e : cx->events) out += "  " + format_event(e) + "\n";
  return out;
}

RC_GTEST_PROP(ScenarioProperties, SafeScenariosKeepEveryProperty, ()) {
  const SafeScenario g = *gen_scenario();
  const auto cx = check_plan(to_plan(g, ClientMutant::None), default_check_config(), "");
  if (cx) RC_LOG() << describe(cx);
  RC_ASSERT_FALSE(cx.has_value());
}

// The same generator exposes a client mutant: the property fails, so the
// checkers and the generator can find it (RapidCheck shrinks it for us).
TEST(ScenarioProperties, GeneratorFindsTheLeaseUnitMutant) {
  const auto result = rc::check("lease_unit_seconds is caught", [] {
    const SafeScenario g = *gen_scenario();
    RC_ASSERT_FALSE(check_plan(to_plan(g, ClientMutant::LeaseUnitSeconds), default_check_config(), "").has_value());
  });
  EXPECT_FALSE(result) << "the mutant survived every generated scenario";
}

}  // namespace
}  // namespace locksim
