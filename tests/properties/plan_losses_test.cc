// Pinned link losses (sim/fault_plan.h LossScript, search/shrink.h
// pin_losses): a plan whose losses are pinned to their messages runs the
// history it was recorded from; dropping one pinned loss leaves every other
// on its message; the trace header carries them ("losses",
// sim/explicit_plan_json.h) and refuses bad ones, naming what is wrong.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/scenario_check.h"
#include "search/shrink.h"
#include "sim/explicit_plan.h"
#include "sim/explicit_plan_json.h"
#include "sim/model_backend_source.h"
#include "sim/scenario.h"
#include "tests/properties/hostile_scenario.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

Scenario hostile_rlock(uint64_t seed) { return testing::hostile_scenario("rlock", seed); }

std::vector<Event> run(const ExplicitPlan& plan) {
  ModelBackendSource model;
  VectorSink history;
  run_explicit(plan, model.fresh(plan.scenario), history);
  return history.events;
}

// "client|what" of every loss of a history, in order.
std::vector<std::string> losses_of(const std::vector<Event>& history) {
  std::vector<std::string> out;
  for (const Event& e : history)
    if (e.kind == EventKind::Fault && e.op == Op::Lost) out.push_back(std::to_string(e.client) + "|" + e.lost.text());
  return out;
}

ExplicitPlan pinned_plan(uint64_t seed) {
  const Scenario s = hostile_rlock(seed);
  VectorSink history;
  check_scenario(s, default_check_config(), &history);
  ExplicitPlan plan = plan_from_history(s, history.events);
  pin_losses(&plan, nullptr);
  return plan;
}

TEST(PlanLosses, APinnedPlanRunsTheHistoryItWasRecordedFrom) {
  const Scenario s = hostile_rlock(11);
  VectorSink history;
  check_scenario(s, default_check_config(), &history);
  const ExplicitPlan drawn = plan_from_history(s, history.events);
  ExplicitPlan pinned = drawn;
  pin_losses(&pinned, nullptr);
  ASSERT_TRUE(pinned.faults.losses.lost.has_value());
  const std::vector<Event> by_draw = run(drawn);
  EXPECT_GE(pinned.faults.losses.lost->size(), 3u);
  EXPECT_EQ(pinned.faults.losses.lost->size(), losses_of(by_draw).size());
  EXPECT_EQ(run(pinned), by_draw);
}

TEST(PlanLosses, DroppingOneLossLeavesTheOthersOnTheirMessages) {
  const ExplicitPlan plan = pinned_plan(11);
  const std::vector<std::string> all = losses_of(run(plan));
  ASSERT_GE(all.size(), 3u);
  // Without the first loss: its message gets through, and the other losses
  // strike the same messages (by client and text) as before, none new.
  ExplicitPlan fewer = plan;
  fewer.faults.losses.lost->erase(fewer.faults.losses.lost->begin());
  const std::vector<std::string> rest = losses_of(run(fewer));
  EXPECT_EQ(rest.size(), all.size() - 1);
  std::multiset<std::string> before(all.begin(), all.end()), after(rest.begin(), rest.end());
  for (const std::string& l : after) EXPECT_GE(before.count(l), after.count(l)) << l;
  // With every pin dropped no message is lost at all: the link still draws
  // its losses (its delays stay where they were) but none strikes.
  ExplicitPlan none = plan;
  none.faults.losses.lost->clear();
  EXPECT_TRUE(losses_of(run(none)).empty());
}

TEST(PlanLosses, TheTraceHeaderCarriesThemAndReadsThemBack) {
  const ExplicitPlan plan = pinned_plan(11);
  const nlohmann::json j = explicit_plan_to_json(plan);
  ASSERT_TRUE(j.contains("losses"));
  EXPECT_EQ(j["losses"].size(), plan.faults.losses.lost->size());
  const nlohmann::json& first = j["losses"][0];
  EXPECT_TRUE(first["client"].is_number_integer());
  EXPECT_GE(first["ordinal"].get<int64_t>(), 1);
  EXPECT_FALSE(first["message"].get<std::string>().empty());
  const ExplicitPlan back = explicit_plan_from_json(plan.scenario, j);
  EXPECT_EQ(back.faults.losses.lost, plan.faults.losses.lost);
  EXPECT_EQ(explicit_plan_to_json(back).dump(), j.dump());
  EXPECT_EQ(run(back), run(plan));
  // A plan without pinned losses writes none.
  ExplicitPlan drawn = plan;
  drawn.faults.losses.lost.reset();
  EXPECT_FALSE(explicit_plan_to_json(drawn).contains("losses"));
}

TEST(PlanLosses, BadLossesAreRefusedNamingWhatIsWrong) {
  const ExplicitPlan plan = pinned_plan(11);
  const nlohmann::json good = explicit_plan_to_json(plan);
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& says) {
    nlohmann::json j = good;
    edit(j);
    try {
      explicit_plan_from_json(plan.scenario, j);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused([](nlohmann::json& j) { j["losses"][0]["client"] = 9; }, "losses[0].client = 9 is outside [0, 3]");
  refused([](nlohmann::json& j) { j["losses"][0]["ordinal"] = 0; }, "losses[0].ordinal = 0 is outside");
  refused([](nlohmann::json& j) { j["losses"][0]["message"] = ""; }, "losses[0].message must be a non-empty string");
  refused([](nlohmann::json& j) { j["losses"][0]["when"] = 1; }, "losses[0]: unknown key \"when\"");
  refused([](nlohmann::json& j) { j["losses"] = 3; }, "plan.losses must be an array");
  refused([](nlohmann::json& j) { j["schedule"] = nlohmann::json::object(); }, "a plan with a schedule has no \"losses\"");
}

}  // namespace
}  // namespace locksim
