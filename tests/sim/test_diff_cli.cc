// `locksim diff` end to end (the built binary, LOCKSIM_CLI_PATH): our pack
// agrees with the model over 1000 sequences of 50 steps; every mutant pack is
// caught with a counterexample of at most 10 steps, and matches its own model
// variant exactly, as does the design variant pack; the reordered test pack
// agrees; bad input exits 2.
#include <gtest/gtest.h>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

const std::string kSource = LOCKSIM_SOURCE_DIR;
const char* const kMutants[] = {"renew_no_owner_check", "release_no_owner_check", "reentry_no_expiry_reset",
                                "fair_no_stale_purge",  "fair_same_deadline",     "release_no_publish",
                                "fair_ttl_from_deadline", "fair_no_acquire_failed"};

using locksim::testing::CliRun;

// Runs `[env] locksim <args>`; captures stdout (stderr is discarded).
CliRun locksim_env(const std::string& env, const std::string& args) {
  return locksim::testing::run_locksim(args, locksim::testing::Stderr::Discard, env);
}

CliRun locksim(const std::string& args) { return locksim_env("", args); }

nlohmann::json parse_summary(const CliRun& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout is not one JSON object: " << r.out;
  return j;
}

TEST(DiffCli, OurPackAgreesOverAThousandSequences) {
  const CliRun r = locksim("diff --sequences 1000 --length 50 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = parse_summary(r);
  EXPECT_EQ(j["sequences"], 1000);
  EXPECT_EQ(j["steps"], 50000);
  EXPECT_EQ(j["divergences"], 0);
  EXPECT_EQ(j["counterexample_steps"], 0);
}

TEST(DiffCli, EveryMutantIsCaughtWithAShortCounterexample) {
  for (const char* m : kMutants) {
    const CliRun r = locksim("diff --scripts " + kSource + "/impl/mutants/" + m + " --json");
    EXPECT_EQ(r.exit_code, 1) << m << ": " << r.out;
    const auto j = parse_summary(r);
    EXPECT_EQ(j["divergences"], 1) << m;
    EXPECT_GE(j["counterexample_steps"].get<int>(), 1) << m;
    EXPECT_LE(j["counterexample_steps"].get<int>(), 10) << m;
  }
}

TEST(DiffCli, EveryMutantMatchesItsModelVariant) {
  for (const char* m : kMutants) {
    const CliRun r = locksim("diff --scripts " + kSource + "/impl/mutants/" + m + " --match-variant --sequences 100 --json");
    EXPECT_EQ(r.exit_code, 0) << m << ": " << r.out;
  }
}

// The design variant pack (impl/variants/) matches its own model variant and
// differs from ours.
TEST(DiffCli, DesignVariantPackMatchesItsModelVariant) {
  const std::string pack = kSource + "/impl/variants/fair_wait_for_head";
  const CliRun same = locksim("diff --scripts " + pack + " --match-variant --sequences 300 --json");
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_EQ(parse_summary(same)["divergences"], 0);
  const CliRun other = locksim("diff --scripts " + pack + " --json");
  EXPECT_EQ(other.exit_code, 1) << other.out;
  EXPECT_EQ(parse_summary(other)["divergences"], 1);
}

TEST(DiffCli, ReorderedPackAgrees) {
  const CliRun r = locksim("diff --scripts " + kSource + "/tests/impl/packs/reordered --sequences 200 --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(DiffCli, HumanCounterexampleIsDeterministic) {
  const std::string args = "diff --scripts " + kSource + "/impl/mutants/fair_same_deadline --seed 9";
  const CliRun a = locksim(args);
  const CliRun b = locksim(args);
  EXPECT_EQ(a.exit_code, 1);
  EXPECT_NE(a.out.find("DIVERGES at step"), std::string::npos) << a.out;
  EXPECT_EQ(a.out, b.out);
}

TEST(DiffCli, BadInputExitsTwo) {
  EXPECT_EQ(locksim("diff --scripts /nonexistent/pack").exit_code, 2);
  EXPECT_EQ(locksim("diff --length 0").exit_code, 2);
  EXPECT_EQ(locksim("diff --sequences -5").exit_code, 2);
  EXPECT_EQ(locksim("diff --sequences lots").exit_code, 2);
  // redis-server missing: not the input but the environment, exit 3.
  EXPECT_EQ(locksim_env("PATH=/nonexistent", "diff --sequences 1").exit_code, 3);
}

}  // namespace
