// scenario_from_json (the trace header's "scenario") is strict: an integer
// field takes only a JSON integer in range, never a float, a boolean or a
// value that would be narrowed (4294967300 clients must not become 4); each
// error names the field.
#include <gtest/gtest.h>

#include <string>

#include "sim/run.h"
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

// The names of the lock kind, the profile, the client mutant and the model
// variant are read once, here, into their types: an unknown one is refused naming the
// known ones, and every known one comes back as itself.
TEST(ScenarioJson, NamesAreParsedOnceIntoTheirTypes) {
  auto j = good();
  j["lock"] = "spinlock";
  EXPECT_EQ(error_of(j),
            "scenario: unknown lock kind 'spinlock' (rlock, fair, mixed, multi, redlock, spin, faster_multi)");
  for (ScenarioLockKind k : all_lock_kinds()) {
    Scenario s;
    s.lock_kind = k;
    if (is_group_kind(k)) s.servers = 3;
    if (k == ScenarioLockKind::FasterMulti) s.values = 5;
    EXPECT_EQ(scenario_to_json(s)["lock"], std::string(lock_kind_name(k)));
    EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
  }
  // A faster multi-lock's values: present exactly for that kind, in [1, 16].
  j = good();
  j["values"] = 3;
  EXPECT_EQ(error_of(j), "values are a faster multi-lock option (lock kind faster_multi), not rlock");
  j["lock"] = "faster_multi";
  j["values"] = 17;
  EXPECT_EQ(error_of(j), "scenario: field 'values' must be in [0, 16], got 17");
  j.erase("values");
  EXPECT_EQ(error_of(j), "a faster multi-lock's values must be in [1, 16], got 0");
  j = good();
  j["profile"] = "pauses+pauses";
  EXPECT_EQ(error_of(j),
            "scenario: unknown profile 'pauses+pauses' (none, safe, pauses, skew, hostile, restarts, failover, "
            "server-clock)");
  for (const char* name : {"none", "hostile", "pauses+restarts", "restarts+pauses", "safe+server-clock"}) {
    Scenario s;
    s.profile = Profile::named(name);
    EXPECT_EQ(scenario_to_json(s)["profile"], name);  // as written: the name seeds the fault plan
    EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
  }
  EXPECT_THROW(Profile::named("pauses+"), std::invalid_argument);
  EXPECT_FALSE(Profile::from_name("").has_value());
  j = good();
  j["mutant"] = "watchdog_not_canceled";
  const std::string mutant_error = error_of(j);
  EXPECT_EQ(mutant_error.rfind("scenario: unknown client mutant 'watchdog_not_canceled' (none, ", 0), 0u)
      << mutant_error;
  j = good();
  j["model_variant"] = "no_such_bug";
  const std::string variant_error = error_of(j);
  EXPECT_EQ(variant_error.rfind("scenario: unknown model variant 'no_such_bug' (correct, ", 0), 0u) << variant_error;
  for (ClientMutant m : all_client_mutants()) {
    Scenario s;
    s.mutant = m;
    EXPECT_EQ(scenario_to_json(s)["mutant"], std::string(client_mutant_name(m)));
    EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
  }
  for (ModelVariant v : all_variants()) {
    Scenario s;
    s.model_variant = v;
    EXPECT_EQ(scenario_to_json(s)["model_variant"], std::string(variant_name(v)));
    EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
  }
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// "wakeups": written only for the client that drops a wake-up reaching a
// waiter whose poll is in flight; a trace older than version 5 was written
// by that client and reads so, and cannot name the field itself.
TEST(ScenarioJson, WakeupsOnlyWhenLostAndOlderTracesLoseThem) {
  Scenario s;
  EXPECT_FALSE(scenario_to_json(s).contains("wakeups"));
  s.lost_wakeups = true;
  const nlohmann::json j = scenario_to_json(s);
  EXPECT_EQ(j["wakeups"], "lost");
  EXPECT_EQ(scenario_from_json(j), s);
  nlohmann::json kept = good();
  kept["wakeups"] = "kept";
  EXPECT_EQ(scenario_from_json(kept), Scenario{});
  nlohmann::json bad = good();
  bad["wakeups"] = "sometimes";
  EXPECT_EQ(error_of(bad), "scenario: field 'wakeups' must be kept or lost, got 'sometimes'");
  bad["wakeups"] = false;
  EXPECT_EQ(error_of(bad), "scenario: field 'wakeups' must be a string");

  TraceHeader h = make_trace_header(Scenario{}, "model");
  EXPECT_EQ(h.version, kTraceVersion);
  EXPECT_FALSE(scenario_from_header(h).lost_wakeups);
  for (int version = kOldestTraceVersion; version < kKeptWakeupsTraceVersion; ++version) {
    h.version = version;
    EXPECT_TRUE(scenario_from_header(h).lost_wakeups) << version;
  }
  h.version = 4;
  h.scenario["wakeups"] = "lost";
  try {
    scenario_from_header(h);
    ADD_FAILURE() << "a version 4 header named 'wakeups'";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "scenario: field 'wakeups' in a version 4 trace (version 5 and later)");
  }
}

}  // namespace
}  // namespace locksim
