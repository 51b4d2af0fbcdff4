// diff going on past differences (DiffOptions::max_divergences, --keep-going,
// --max-divergences) and skipping scripts (--skip-script): every divergence
// is listed with its sequence, step, script and text, and each script's
// agreed/diverged tally; a skipped script never runs; the default still
// stops at the first. --json carries the divergence text.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "impl/script_pack.h"
#include "sim/differential.h"
#include "sim/live_backend.h"
#include "sim/model_backend.h"
#include "tests/cli_runner.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

const std::string kSource = LOCKSIM_SOURCE_DIR;
const std::string kHistorical = kSource + "/tests/impl/packs/historical";

size_t idx(ScriptKind k) { return static_cast<size_t>(k); }

class DiffKeepGoing : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RedisServerOptions o;
    o.initial_clock_us = kDiffEpochUs;
    server_ = new RedisServer(o);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  DiffReport run(const DiffOptions& options) {
    LiveBackend live({server_}, ScriptPack::load(kHistorical), kDiffKeyPrefix);
    ModelBackend model;
    return run_differential(options, DiffSide{&model, [&model] { model.wipe(); }},
                            DiffSide{&live, [&live] { live.wipe(); }});
  }
  static DiffOptions base() {
    DiffOptions o;
    o.sequences = 20;
    o.length = 40;
    o.seed = 5;
    return o;
  }
  static RedisServer* server_;
};
RedisServer* DiffKeepGoing::server_ = nullptr;

TEST_F(DiffKeepGoing, DefaultStopsAtTheFirst) {
  const DiffReport r = run(base());
  EXPECT_EQ(r.divergences, 1);
  EXPECT_TRUE(r.all_divergences.empty());
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_FALSE(r.first_divergence->divergence.empty());
}

TEST_F(DiffKeepGoing, GoesOnAndTalliesEveryScript) {
  DiffOptions o = base();
  o.max_divergences = 0;
  const DiffReport r = run(o);
  EXPECT_EQ(r.sequences_run, 20);
  EXPECT_GT(r.divergences, 1);
  EXPECT_EQ(static_cast<size_t>(r.divergences), r.all_divergences.size());
  // The historical pack: a bare PEXPIRE renewal, a fixed 5 s slot and three
  // absent scripts differ; its acquire and releases agree.
  EXPECT_GT(r.per_script[idx(ScriptKind::RlockRenew)].diverged, 0);
  EXPECT_GT(r.per_script[idx(ScriptKind::FairAcquire)].diverged, 0);
  EXPECT_GT(r.per_script[idx(ScriptKind::FairAcquireFailed)].diverged, 0);
  EXPECT_EQ(r.per_script[idx(ScriptKind::FairAcquireFailed)].agreed, 0);
  EXPECT_EQ(r.per_script[idx(ScriptKind::RlockAcquire)].diverged, 0);
  EXPECT_GT(r.per_script[idx(ScriptKind::RlockAcquire)].agreed, 0);
  EXPECT_EQ(r.per_script[idx(ScriptKind::RlockRelease)].diverged, 0);
  EXPECT_EQ(r.per_script[idx(ScriptKind::FairRelease)].diverged, 0);
  EXPECT_GT(r.per_script[idx(ScriptKind::FairRelease)].agreed, 0);
  int64_t total = 0;
  for (const ScriptTally& t : r.per_script) total += t.agreed + t.diverged;
  EXPECT_EQ(total, r.steps_run);
  ASSERT_TRUE(r.counterexample.has_value());  // the first is still shrunk
  EXPECT_LE(r.counterexample->steps.size(), 3u);
}

TEST_F(DiffKeepGoing, StopsAtTheLimit) {
  DiffOptions o = base();
  o.max_divergences = 3;
  const DiffReport r = run(o);
  EXPECT_EQ(r.divergences, 3);
  EXPECT_EQ(r.all_divergences.size(), 3u);
}

TEST_F(DiffKeepGoing, SkippedScriptsNeverRun) {
  DiffOptions o = base();
  o.max_divergences = 0;
  o.skip_scripts = {ScriptKind::RlockRenew, ScriptKind::FairAcquire, ScriptKind::FairAcquireFailed,
                    ScriptKind::RlockForceRelease, ScriptKind::FairForceRelease};
  const DiffReport r = run(o);
  for (ScriptKind k : o.skip_scripts) {
    EXPECT_EQ(r.per_script[idx(k)].agreed + r.per_script[idx(k)].diverged, 0) << script_name(k);
  }
  EXPECT_EQ(r.divergences, 0);
  EXPECT_GT(r.steps_run, 0);
}

using testing::CliRun;

CliRun cli(const std::string& args) { return testing::run_locksim(args, testing::Stderr::Discard); }

TEST(DiffKeepGoingCli, JsonCarriesTheDivergenceText) {
  const CliRun r = cli("diff --scripts " + kHistorical + " --sequences 5 --json");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("divergence")) << r.out;
  EXPECT_FALSE(j["divergence"]["text"].get<std::string>().empty());
  EXPECT_TRUE(j["divergence"].contains("script"));
  EXPECT_FALSE(j.contains("divergence_list"));  // stopping at the first
}

TEST(DiffKeepGoingCli, KeepGoingListsEveryDivergence) {
  const CliRun r = cli("diff --scripts " + kHistorical + " --sequences 5 --keep-going --json");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["divergences"], j["divergence_list"].size());
  EXPECT_GT(j["divergence_list"].size(), 1u);
  EXPECT_GT(j["per_script"]["rlock_acquire"]["agreed"].get<int>(), 0);
}

TEST(DiffKeepGoingCli, SkippingTheDifferingScriptsAgrees) {
  const CliRun r = cli("diff --scripts " + kHistorical +
                       " --sequences 10 --skip-script rlock_renew --skip-script fair_acquire --skip-script "
                       "fair_acquire_failed --skip-script rlock_force_release --skip-script fair_force_release --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(DiffKeepGoingCli, BadInputIsExitTwo) {
  CliRun r = testing::run_locksim("diff --skip-script rlock_steal --sequences 1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown script 'rlock_steal'"), std::string::npos) << r.out;
  r = testing::run_locksim("diff --max-divergences -1 --sequences 1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

}  // namespace
}  // namespace locksim
