// Coverage (properties/coverage.h, coverage_observer.h, the backends'
// script coverage): sums and merges, and campaigns that cannot reach an
// item report it never covered while campaigns that do report it covered:
// a pause longer than the lease left (safe cannot, pauses does), the
// model's refused renewal and the same line of our pack's Lua on the lua
// backend (no faults cannot, pauses does). The result does not depend on
// the number of workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "search/campaign.h"
#include "properties/coverage.h"
#include "properties/coverage_observer.h"
#include "properties/scenario_check.h"
#include "tests/campaign_workers.h"

namespace locksim {
namespace {

bool in(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

RunCoverage run_of(std::vector<std::string> items, std::vector<std::string> states, std::vector<std::string> universe) {
  RunCoverage r{std::move(items), std::move(states), std::move(universe), {}};
  r.normalise();
  return r;
}

TEST(Coverage, SumsRunsAndKeepsTheFirst) {
  Coverage c;
  c.add(run_of({"state/line=1", "reply/x=nil"}, {"s1"}, {"state/line=1", "state/line=2"}), 7);
  c.add(run_of({"state/line=1"}, {"s1", "s2"}, {"state/line=3+"}), 5);
  EXPECT_EQ(c.runs(), 2u);
  EXPECT_EQ(c.items().at("state/line=1"), (CoverageHits{2, 5}));
  EXPECT_EQ(c.items().at("reply/x=nil"), (CoverageHits{1, 7}));
  EXPECT_EQ(c.states().at("s2"), (CoverageHits{1, 5}));
  EXPECT_EQ(c.never_covered(), (std::vector<std::string>{"state/line=2", "state/line=3+"}));
  // The curve: by run number, what was reached by then.
  const auto curve = c.curve();
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_EQ(curve[0].run, 5u);
  EXPECT_EQ(curve[0].items, 1u);
  EXPECT_EQ(curve[0].states, 2u);
  EXPECT_EQ(curve[1].run, 7u);
  EXPECT_EQ(curve[1].items, 2u);
}

TEST(Coverage, MergeEqualsAddingEveryRunAndJsonRoundTrips) {
  const RunCoverage a = run_of({"state/line=1"}, {"s1"}, {"state/line=1", "state/line=2"});
  const RunCoverage b = run_of({"state/line=2", "fault/pause:idle"}, {"s2"}, {"fault/pause:idle"});
  Coverage whole, left, right;
  whole.add(a, 1);
  whole.add(b, 2);
  whole.add(a, 3);
  left.add(a, 1);
  left.add(a, 3);
  right.add(b, 2);
  Coverage merged = right;
  merged.merge(left);
  EXPECT_EQ(merged, whole);
  EXPECT_EQ(Coverage::from_json(whole.to_json(), "test", 3), whole);
  EXPECT_TRUE(whole.never_covered().empty());
}

TEST(Coverage, FromJsonRefusesWhatItCannotRead) {
  Coverage c;
  c.add(run_of({"a/b"}, {}, {"a/b", "a/c"}), 1);
  nlohmann::json j = c.to_json();
  EXPECT_THROW(Coverage::from_json(j, "t", 0), std::runtime_error);  // more runs than the campaign's
  nlohmann::json unsorted = j;
  unsorted["universe"] = {"a/c", "a/b"};
  EXPECT_THROW(Coverage::from_json(unsorted, "t", 1), std::runtime_error);
  nlohmann::json zero = j;
  zero["items"]["a/b"]["runs"] = 0;
  EXPECT_THROW(Coverage::from_json(zero, "t", 1), std::runtime_error);
  nlohmann::json extra = j;
  extra["more"] = 1;
  EXPECT_THROW(Coverage::from_json(extra, "t", 1), std::runtime_error);
}

// A campaign's coverage on the given workers' sources.
Coverage campaign_coverage(const std::string& profile, const std::string& lock, int seeds,
                           std::vector<CampaignWorker> workers) {
  CampaignOptions o = testing::every_seed_options(profile, lock, seeds);
  o.policy.unexplained_only = true;
  o.workers = static_cast<int>(workers.size());
  const Scenario tmpl = campaign_template(o);
  return run_campaign(tmpl, o, workers).coverage;
}

using testing::lua_workers;
using testing::model_workers;

TEST(Coverage, PausePastTheLeaseNeverCoveredUnderSafeCoveredUnderPauses) {
  const std::string item = "fault/pause:holding_past_lease";
  const Coverage safe = campaign_coverage("safe", "rlock", 20, model_workers(1));
  ASSERT_TRUE(in(safe.universe(), item)) << "safe pauses, so its crossings are in the universe";
  EXPECT_TRUE(in(safe.never_covered(), item));
  EXPECT_FALSE(safe.covers(item));
  const Coverage pauses = campaign_coverage("pauses", "rlock", 20, model_workers(1));
  EXPECT_TRUE(pauses.covers(item));
  EXPECT_FALSE(in(pauses.never_covered(), item));
}

TEST(Coverage, RefusedRenewalOnTheModelAndOnOurLua) {
  // No faults: a holder's renewal is never refused; pauses longer than the
  // lease make the lock expire under a paused holder, whose renewal then is.
  const Coverage none = campaign_coverage("none", "rlock", 10, model_workers(1));
  EXPECT_TRUE(in(none.never_covered(), "script/rlock_renew:refused"));
  EXPECT_TRUE(in(none.never_covered(), "reply/rlock_renew=0"));
  EXPECT_TRUE(none.covers("script/rlock_renew:renewed"));
  const Coverage pauses = campaign_coverage("pauses", "rlock", 20, model_workers(1));
  EXPECT_TRUE(pauses.covers("script/rlock_renew:refused"));
  EXPECT_TRUE(pauses.covers("reply/rlock_renew=0"));
  // impl/lua/rlock_renew.lua: line 13 is its `return 0`.
  const std::string line = "script/rlock_renew.lua:13";
  const Coverage lua_none = campaign_coverage("none", "rlock", 10, lua_workers(1));
  ASSERT_TRUE(in(lua_none.universe(), line));
  EXPECT_TRUE(in(lua_none.never_covered(), line));
  EXPECT_TRUE(lua_none.covers("script/rlock_renew.lua:11"));  // return 1
  const Coverage lua_pauses = campaign_coverage("pauses", "rlock", 20, lua_workers(1));
  EXPECT_TRUE(lua_pauses.covers(line));
  // The model's branches are not the lua backend's items, and the
  // history's are the same on both.
  EXPECT_FALSE(lua_pauses.covers("script/rlock_renew:refused"));
  EXPECT_EQ(lua_pauses.covers("reply/rlock_renew=0"), pauses.covers("reply/rlock_renew=0"));
}

TEST(Coverage, UniverseFollowsTheLockKind) {
  const Coverage rlock = campaign_coverage("none", "rlock", 3, model_workers(1));
  for (const std::string& item : rlock.universe()) {
    EXPECT_EQ(item.find("fair"), std::string::npos) << item;
    EXPECT_EQ(item.find("line"), std::string::npos) << item;
  }
  const Coverage fair = campaign_coverage("none", "fair", 3, model_workers(1));
  EXPECT_TRUE(in(fair.universe(), "state/head=crashed"));
  EXPECT_TRUE(in(fair.universe(), "script/fair_acquire:enqueue_after"));
  EXPECT_TRUE(in(fair.universe(), "script/rlock_renew:refused"));  // the fair lock's watchdog
  EXPECT_FALSE(in(fair.universe(), "script/rlock_acquire:free"));
  // No fault of any kind under `none`: no crossing in the universe.
  for (const std::string& item : fair.universe()) EXPECT_NE(coverage_category(item), "fault") << item;
  // Violations are not in the universe.
  EXPECT_FALSE(in(fair.universe(), "state/holders=2+"));
}

TEST(Coverage, TheSameForAnyNumberOfWorkers) {
  const Coverage one = campaign_coverage("hostile", "mixed", 24, model_workers(1));
  const Coverage two = campaign_coverage("hostile", "mixed", 24, model_workers(2));
  EXPECT_EQ(one, two);
  EXPECT_EQ(one.runs(), 24u);
  EXPECT_GT(one.states().size(), 20u);
}

TEST(Coverage, ARunSaysWhereItFirstReachedEachItemAndState) {
  Scenario s;
  s.seed = 3;
  s.profile = Profile::named("hostile");
  s.lock_kind = ScenarioLockKind::Mixed;
  s.locks = 2;
  const ScenarioVerdict v = check_scenario(s);
  std::vector<std::string> named, expected = v.coverage.states;
  for (const std::string& item : v.coverage.items)
    if (coverage_category(item) != "script") expected.push_back(item);
  int64_t last_us = 0;
  for (const CoverageFirst& f : v.coverage.firsts) {
    named.push_back(f.name);
    EXPECT_GE(f.true_us, last_us) << f.name << ": in run order";
    last_us = f.true_us;
    EXPECT_LT(f.client, s.clients) << f.name;
  }
  std::sort(named.begin(), named.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(named, expected);
}

TEST(Coverage, EveryItemHasWords) {
  const Coverage c = campaign_coverage("hostile", "mixed", 12, model_workers(1));
  for (const std::string& item : c.universe()) EXPECT_FALSE(describe_coverage_item(item).empty()) << item;
  for (const auto& [item, hits] : c.items()) {
    if (coverage_category(item) == "reply") continue;  // any reply class is named by its text
    EXPECT_FALSE(describe_coverage_item(item).empty()) << item;
  }
}

}  // namespace
}  // namespace locksim
