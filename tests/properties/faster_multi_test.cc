// The faster multi-lock (--lock faster_multi, lock-semantics.md section 4b)
// end to end: each operation takes, renews and gives back a window of the
// group's values in one script, and the history records every value as a
// lock of its own ("<group>@<value>", with its owners read from the hash's
// fields), so the checkers judge each value as a lock. It is clean without
// faults on the model and on its own Lua; its three script mutants are
// caught unexplained; a pack without its scripts is refused naming them,
// and --values is refused on other lock kinds. Seed counts are small (the
// suite stays fast); the larger bars are in docs/faster-multi-lock.md.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
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

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

nlohmann::json campaign_json(const std::string& args, int expected_exit) {
  const CliRun r = run_locksim("campaign --json --lock faster_multi " + args, Stderr::Discard);
  EXPECT_EQ(r.exit_code, expected_exit) << args << "\n" << r.out.substr(0, 3000);
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 2000);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

TEST(FasterMultiLock, CleanWithoutFaultsOnTheModelAndItsLua) {
  for (const char* backend : {"model", "lua"}) {
    const nlohmann::json j = campaign_json(std::string("--seeds 30 --profile none --backend ") + backend, 0);
    EXPECT_EQ(j["ok"], true) << backend;
    EXPECT_GT(j["operations_ok"].get<uint64_t>(), 300u) << backend;
    EXPECT_EQ(j["script_errors"], 0) << backend;
    EXPECT_EQ(j["scenario"]["lock"], "faster_multi");
    EXPECT_EQ(j["scenario"]["values"], 3);
  }
}

// One script per operation, one event per value: a trace's faster multi
// scripts name the group's values ("lsim:L0@1"), never the group, each with
// at most one owner; an operation's values share their instant and owner.
TEST(FasterMultiLock, ATraceRecordsEveryValueAsALockOfItsOwn) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "t.jsonl";
  const CliRun r = run_locksim("run --seed 3 --profile none --lock faster_multi --values 4 --trace " + trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(trace);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(nlohmann::json::parse(line)["scenario"]["values"], 4);
  std::set<std::string> scripts, locks;
  std::map<std::string, int> invokes_at;  // "<true us> <owner>" -> values invoked
  while (std::getline(in, line)) {
    const nlohmann::json e = nlohmann::json::parse(line);
    const std::string lock = e.value("l", "");
    if (e.contains("sc")) {
      const std::string script = e["sc"].get<std::string>();
      scripts.insert(script);
      EXPECT_EQ(script.rfind("faster_multi_", 0), 0u) << line;
      EXPECT_TRUE(contains(lock, "@")) << line;
      if (e.contains("h")) {
        EXPECT_LE(e["h"].size(), 1u) << line;
      }
    }
    if (!lock.empty()) locks.insert(lock);
    if (e.value("k", "") == "invoke" && e.value("op", "") == "lock") {
      invokes_at[std::to_string(e["t"].get<int64_t>()) + " " + e.value("o", "")]++;
    }
  }
  EXPECT_TRUE(scripts.count("faster_multi_acquire"));
  EXPECT_TRUE(scripts.count("faster_multi_release"));
  EXPECT_EQ(locks.count("lsim:L0"), 0u);
  for (const char* v : {"lsim:L0@0", "lsim:L0@1", "lsim:L0@2", "lsim:L0@3"}) EXPECT_TRUE(locks.count(v)) << v;
  ASSERT_FALSE(invokes_at.empty());
  for (const auto& [when, n] : invokes_at) EXPECT_EQ(n, 3) << when;  // each operation takes 3 of the 4 values
}

// A client whose clock runs ahead judges another's deadline passed and
// takes its value: under `skew` our lock fails, every violation explained
// by a client's clock, and nothing stays unexplained.
TEST(FasterMultiLock, SkewFailsOnlyWhereAClientsClockExplainsIt) {
  const nlohmann::json j = campaign_json("--seeds 30 --profile skew --keep-going --no-shrink", 1);
  ASSERT_FALSE(j["failures"].empty());
  int violations = 0;
  for (const auto& f : j["failures"])
    for (const auto& v : f["violations"]) {
      ++violations;
      EXPECT_EQ(v["cause"]["kind"], "clock skew") << v.dump();
    }
  EXPECT_GT(violations, 0);
  campaign_json("--seeds 30 --profile skew --unexplained-only", 0);
  campaign_json("--seeds 30 --profile pauses --unexplained-only", 0);
}

std::optional<MutantSpec> spec_named(const std::string& name) {
  for (const MutantSpec& spec : mutant_specs())
    if (spec.name == name) return spec;
  return std::nullopt;
}

// Each script mutant is caught, unexplained, within 25 events: an acquire
// that takes a live value by mutual_exclusion (no fault at all), a renewal
// that writes into a value another owner holds by exclusive_ownership (a
// holder paused past its lease), a release that gives values back before it
// finds one not the caller's by reentrancy (its contract: "not owned"
// changes nothing; a value taken by a client whose clock runs ahead).
TEST(FasterMultiLock, EveryMutantIsCaughtUnexplained) {
  const std::pair<const char*, const char*> mutants[] = {{"faster_multi_expiry_inverted", "mutual_exclusion"},
                                                         {"faster_multi_renew_unheld", "exclusive_ownership"},
                                                         {"faster_multi_release_frees_early", "reentrancy"}};
  for (const auto& [name, property] : mutants) {
    const auto spec = spec_named(name);
    ASSERT_TRUE(spec.has_value()) << name;
    EXPECT_EQ(spec->tmpl.scenario.lock_kind, ScenarioLockKind::FasterMulti) << name;
    const MutantResult r = run_mutant(*spec, 200);
    ASSERT_TRUE(r.caught) << name;
    EXPECT_EQ(r.property, property) << name << ": " << r.violation;
    EXPECT_LE(r.counterexample_events, 25u) << name << ": " << r.violation;
    ASSERT_TRUE(r.counterexample.has_value()) << name;
    EXPECT_FALSE(r.counterexample->violation.cause.confirmed()) << name << ": " << r.violation;
  }
}

TEST(FasterMultiLock, APackWithoutItsScriptsAndValuesOnAnotherKindAreRefused) {
  const CliRun old = run_locksim("campaign --seeds 1 --lock faster_multi --scripts builtin:impl/mutants/renew_no_owner_check");
  EXPECT_EQ(old.exit_code, 2) << old.out;
  EXPECT_TRUE(contains(old.out, "has no faster_multi_acquire script, which --lock faster_multi needs")) << old.out;
  const CliRun rlock = run_locksim("campaign --seeds 1 --lock rlock --values 3");
  EXPECT_EQ(rlock.exit_code, 2) << rlock.out;
  EXPECT_TRUE(contains(rlock.out, "--values is a faster multi-lock option")) << rlock.out;
  const CliRun zero = run_locksim("campaign --seeds 1 --lock faster_multi --values 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out;
  const CliRun servers = run_locksim("campaign --seeds 1 --lock faster_multi --servers 2");
  EXPECT_EQ(servers.exit_code, 2) << servers.out;
  EXPECT_TRUE(contains(servers.out, "a faster multi-lock runs on one server")) << servers.out;
}

}  // namespace
}  // namespace locksim
