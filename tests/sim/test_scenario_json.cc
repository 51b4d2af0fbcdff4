// scenario_from_json (the trace header's "scenario") is strict: an integer
// field takes only a JSON integer in range, never a float, a boolean or a
// value that would be narrowed (4294967300 clients must not become 4); each
// error names the field.
#include <gtest/gtest.h>

#include <string>

#include "sim/scenario.h"

namespace locksim {
namespace {

nlohmann::json good() { return scenario_to_json(Scenario{}); }

std::string error_of(const nlohmann::json& j) {
  try {
    scenario_from_json(j);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioJson, RoundTrips) { EXPECT_EQ(scenario_from_json(good()), Scenario{}); }

TEST(ScenarioJson, IntegerFieldsAreNeverNarrowed) {
  auto j = good();
  j["clients"] = 4294967300ull;
  EXPECT_EQ(error_of(j), "scenario: field 'clients' must be in [1, 4096], got 4294967300");
  j["clients"] = -4294967292ll;
  EXPECT_EQ(error_of(j), "scenario: field 'clients' must be in [1, 4096], got -4294967292");
  j = good();
  j["duration_ms"] = 18446744073709551615ull;
  EXPECT_EQ(error_of(j), "scenario: field 'duration_ms' must be in [0, 604800000], got 18446744073709551615");
}

TEST(ScenarioJson, FloatsAndBooleansAreNotIntegers) {
  for (const char* field : {"clients", "locks", "servers", "duration_ms"}) {
    for (const nlohmann::json& bad : {nlohmann::json(4.0), nlohmann::json(2.5), nlohmann::json(true),
                                      nlohmann::json("4"), nlohmann::json(nullptr)}) {
      auto j = good();
      j[field] = bad;
      EXPECT_EQ(error_of(j), std::string("scenario: field '") + field + "' must be an integer") << bad.dump();
    }
  }
  auto j = good();
  j["seed"] = 1.0;
  EXPECT_EQ(error_of(j), "scenario: field 'seed' must be a non-negative integer");
  j["seed"] = -1;
  EXPECT_EQ(error_of(j), "scenario: field 'seed' must be a non-negative integer");
}

TEST(ScenarioJson, StringsMissingAndUnknownFieldsAreNamed) {
  auto j = good();
  j["profile"] = 3;
  EXPECT_EQ(error_of(j), "scenario: field 'profile' must be a string");
  j = good();
  j.erase("locks");
  EXPECT_EQ(error_of(j), "scenario: missing field 'locks'");
  j = good();
  j["cleints"] = 4;
  EXPECT_EQ(error_of(j), "scenario: unknown field 'cleints'");
  EXPECT_EQ(error_of(nlohmann::json::array()), "scenario: not a JSON object");
}

}  // namespace
}  // namespace locksim
