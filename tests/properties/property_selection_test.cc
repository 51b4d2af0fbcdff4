// --properties / --skip-property (properties/property_selection.h): parsed
// once, unknown names refused with the flag named; an unselected checker
// does not run, so its property neither reports nor fails.
#include <gtest/gtest.h>

#include <stdexcept>

#include "properties/checker_suite.h"
#include "properties/property_selection.h"
#include "properties/verdict_policy.h"
#include "tests/properties/history_builder.h"

namespace locksim {
namespace {

TEST(PropertySelection, ParsesListsAndSkips) {
  EXPECT_TRUE(PropertySelection().is_all());
  EXPECT_TRUE(PropertySelection::parse({}, {}).is_all());
  EXPECT_TRUE(PropertySelection::parse({"all"}, {}).is_all());
  const PropertySelection two = PropertySelection::parse({"liveness,mutual_exclusion"}, {});
  EXPECT_EQ(two.names(), (std::vector<std::string>{"mutual_exclusion", "liveness"}));  // checker order
  EXPECT_TRUE(two.has("liveness"));
  EXPECT_FALSE(two.has("fifo_fairness"));
  EXPECT_FALSE(two.has("all"));
  EXPECT_EQ(two.flag(), " --properties mutual_exclusion,liveness");
  const PropertySelection skip = PropertySelection::parse({}, {"fifo_fairness", "busy_poll"});
  EXPECT_FALSE(skip.has("fifo_fairness"));
  EXPECT_FALSE(skip.has("busy_poll"));
  EXPECT_TRUE(skip.has("liveness"));
  EXPECT_EQ(skip.flag(), " --skip-property fifo_fairness,busy_poll");
  EXPECT_EQ(PropertySelection::parse({"all"}, {"busy_poll"}), PropertySelection::parse({}, {"busy_poll"}));
}

TEST(PropertySelection, RefusesUnknownNamesAndNothingLeft) {
  try {
    PropertySelection::parse({"liveness,nonsense"}, {});
    FAIL() << "accepted an unknown property";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--properties: unknown property 'nonsense'"), std::string::npos) << e.what();
  }
  try {
    PropertySelection::parse({}, {"fifo"});
    FAIL() << "accepted an unknown property";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--skip-property: unknown property 'fifo'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(PropertySelection::parse({"liveness"}, {"liveness"}), std::invalid_argument);
  EXPECT_THROW(PropertySelection::parse({""}, {}), std::invalid_argument);
}

TEST(PropertySelection, FailOnOfAnUncheckedPropertyIsRefused) {
  const PropertySelection checked = PropertySelection::parse({}, {"busy_poll", "liveness"});
  VerdictPolicy policy;
  restrict_fail_on(&policy, checked, {});
  EXPECT_EQ(policy.fail_on.count("liveness"), 0u);
  EXPECT_EQ(policy.fail_on.count("mutual_exclusion"), 1u);
  EXPECT_THROW(restrict_fail_on(&policy, checked, {"busy_poll"}), std::invalid_argument);
  EXPECT_NO_THROW(restrict_fail_on(&policy, checked, {"all"}));
}

// Two owners in one hash break exclusive_ownership; with that property
// skipped its checker does not run.
TEST(PropertySelection, AnUnselectedCheckerDoesNotRun) {
  using testing::owner_of;
  testing::HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)});
  h.script(5, 2, "rlock_acquire", "nil", {owner_of(1), owner_of(2)});  // a broken acquire
  CheckConfig config;
  bool found = false;
  for (const Violation& v : check_history(h.events(), config)) found = found || v.property == "exclusive_ownership";
  EXPECT_TRUE(found);
  config.properties = PropertySelection::parse({}, {"exclusive_ownership"});
  for (const Violation& v : check_history(h.events(), config)) EXPECT_NE(v.property, "exclusive_ownership");
  config.properties = PropertySelection::parse({"liveness"}, {});
  CheckerSuite suite(config);
  ASSERT_EQ(suite.checkers().size(), 1u);
  EXPECT_EQ(suite.checkers()[0]->name(), "liveness");
}

}  // namespace
}  // namespace locksim
