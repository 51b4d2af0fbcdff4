// The spin lock (--lock spin, lock-semantics.md section 4b) end to end: its
// waiters never subscribe and its releases publish nothing; they back off
// (exponential by default, constant as an option) and poll at the rate the
// back-off gives; it is clean on `safe` on the model and on its own Lua,
// fails `pauses` only where the pause explains it, and its two client
// mutants are caught unexplained by the property each breaks. A pack
// without spin_release is refused naming it; --backoff is refused on other
// lock kinds. The seed counts are small (the suite stays fast); the x2000
// bar and its command are in docs/spin-lock.md.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "search/mutant_suite.h"
#include "tests/cli_runner.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;
using testing::CliRun;
using testing::run_locksim;
using testing::Stderr;
using testing::TempDir;

const fs::path kSource = LOCKSIM_SOURCE_DIR;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

nlohmann::json campaign_json(const std::string& args, int expected_exit) {
  const CliRun r = run_locksim("campaign --json --lock spin " + args, Stderr::Discard);
  EXPECT_EQ(r.exit_code, expected_exit) << args << "\n" << r.out.substr(0, 3000);
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 2000);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

TEST(SpinLock, CleanOnSafeOnTheModelAndItsLuaPollingAtTheBackoffsRate) {
  for (const char* backend : {"model", "lua"}) {
    const nlohmann::json j = campaign_json(std::string("--seeds 40 --profile safe --backend ") + backend, 0);
    EXPECT_EQ(j["ok"], true) << backend;
    EXPECT_GT(j["operations_ok"].get<uint64_t>(), 500u) << backend;
    EXPECT_EQ(j["script_errors"], 0) << backend;
    EXPECT_EQ(j["scenario"]["lock"], "spin");
    // Sleeps of 1, 2, ~4, ... ms up to 128: a waiter polls between 7.8 (every
    // 128 ms) and 14 times a second, more for short waits.
    const double rate = j["waiting"]["polls_per_second"].get<double>();
    EXPECT_GT(rate, 7.0) << backend;
    EXPECT_LT(rate, 15.0) << backend;
  }
  // The constant back-off sleeps 64 to 71 ms: about 14 to 16 polls a second.
  const nlohmann::json constant = campaign_json("--seeds 20 --profile safe --backoff constant", 0);
  EXPECT_EQ(constant["scenario"]["backoff"], "constant");
  const double rate = constant["waiting"]["polls_per_second"].get<double>();
  EXPECT_GT(rate, 12.0);
  EXPECT_LT(rate, 16.5);
}

// Nothing is published and nothing delivered: the trace of a spin run has
// no script that published ("p") and no delivery; every release is
// spin_release. Our reentrant lock's trace of the same seed has both.
TEST(SpinLock, ATraceHasNoPublishAndNoDelivery) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "t.jsonl";
  const CliRun r = run_locksim("run --seed 3 --profile safe --lock spin --trace " + trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(trace);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(nlohmann::json::parse(line)["scenario"]["lock"], "spin");
  std::set<std::string> scripts;
  int events = 0;
  while (std::getline(in, line)) {
    const nlohmann::json e = nlohmann::json::parse(line);
    ++events;
    EXPECT_NE(e.value("k", ""), "deliver") << line;
    EXPECT_FALSE(e.contains("p")) << line;
    if (e.contains("sc")) scripts.insert(e["sc"].get<std::string>());
  }
  EXPECT_GT(events, 100);
  EXPECT_EQ(scripts.count("spin_release"), 1u);
  EXPECT_EQ(scripts.count("rlock_acquire"), 1u);
  EXPECT_EQ(scripts.count("rlock_release"), 0u);
  // The same seed on our reentrant lock publishes and delivers.
  const fs::path rlock = tmp.path() / "r.jsonl";
  ASSERT_EQ(run_locksim("run --seed 3 --profile safe --lock rlock --trace " + rlock.string()).exit_code, 0);
  std::ifstream rin(rlock);
  bool published = false, delivered = false;
  while (std::getline(rin, line)) {
    published = published || contains(line, "\"p\":[");
    delivered = delivered || contains(line, "\"k\":\"deliver\"");
  }
  EXPECT_TRUE(published);
  EXPECT_TRUE(delivered);
}

TEST(SpinLock, FailsPausesWithMutualExclusionExplainedByThePause) {
  const nlohmann::json j = campaign_json("--seeds 40 --profile pauses --keep-going --no-shrink", 1);
  ASSERT_FALSE(j["failures"].empty());
  int violations = 0;
  for (const auto& f : j["failures"])
    for (const auto& v : f["violations"]) {
      ++violations;
      EXPECT_EQ(v["cause"]["kind"], "pause") << v.dump();
    }
  EXPECT_GT(violations, 0);
  campaign_json("--seeds 40 --profile pauses --unexplained-only", 0);
}

std::optional<MutantSpec> spec_named(const std::string& name) {
  for (const MutantSpec& spec : mutant_specs())
    if (spec.name == name) return spec;
  return std::nullopt;
}

// A waiter that never backs off past 1 ms polls a held lock hundreds of
// times a second: busy_poll (with --fail-on busy_poll: it is advisory),
// judged attempt by attempt against the back-off's own least sleeps.
TEST(SpinLock, BackoffNoGrowthIsCaughtByBusyPollUnexplained) {
  const auto spec = spec_named("backoff_no_growth");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->tmpl.scenario.lock_kind, ScenarioLockKind::Spin);
  const MutantResult r = run_mutant(*spec, 50);
  ASSERT_TRUE(r.caught);
  EXPECT_EQ(r.property, "busy_poll");
  EXPECT_LE(r.counterexample_events, 25u) << r.violation;
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_FALSE(r.counterexample->violation.cause.confirmed()) << r.violation;
  EXPECT_TRUE(contains(r.violation, "exponential back-off sleeps at least")) << r.violation;
}

// The final release leaves the watchdog renewing: a renewal after the
// release, which the watchdog checker names.
TEST(SpinLock, WatchdogNotCancelledIsCaughtUnexplained) {
  const auto spec = spec_named("spin_watchdog_not_cancelled");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->tmpl.scenario.lock_kind, ScenarioLockKind::Spin);
  EXPECT_EQ(spec->tmpl.scenario.mutant, ClientMutant::WatchdogNotCancelled);
  const MutantResult r = run_mutant(*spec, 50);
  ASSERT_TRUE(r.caught);
  EXPECT_LE(r.counterexample_events, 25u) << r.violation;
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_FALSE(r.counterexample->violation.cause.confirmed()) << r.violation;
}

TEST(SpinLock, APackWithoutSpinReleaseAndABackoffOnAnotherKindAreRefused) {
  const std::string token_lock = (kSource / "tests" / "impl" / "packs" / "token_lock").string();
  const CliRun pack = run_locksim("campaign --backend lua --seeds 1 --lock spin --scripts " + token_lock);
  EXPECT_EQ(pack.exit_code, 2) << pack.out;
  EXPECT_TRUE(contains(pack.out, "has no spin_release script, which --lock spin needs")) << pack.out;
  // A pack without a design and without the spin scripts (every pack
  // written before the spin lock) still runs every other kind.
  const CliRun old = run_locksim("campaign --seeds 1 --lock spin --scripts builtin:impl/mutants/renew_no_owner_check");
  EXPECT_EQ(old.exit_code, 2) << old.out;
  EXPECT_TRUE(contains(old.out, "has no spin_release script, which --lock spin needs")) << old.out;
  EXPECT_EQ(run_locksim("campaign --seeds 1 --profile none --scripts builtin:impl/mutants/renew_no_owner_check").exit_code,
            0);
  const CliRun rlock = run_locksim("campaign --seeds 1 --lock rlock --backoff constant");
  EXPECT_EQ(rlock.exit_code, 2) << rlock.out;
  EXPECT_TRUE(contains(rlock.out, "the back-off is a spin lock option")) << rlock.out;
  const CliRun bad = run_locksim("campaign --seeds 1 --lock spin --backoff linear");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_TRUE(contains(bad.out, "--backoff: unknown value 'linear' (exponential, constant)")) << bad.out;
}

}  // namespace
}  // namespace locksim
