// Lock designs declared by the pack, end to end on the lua backend (the
// pack's own scripts in process): the token lock of tests/impl/packs/
// token_lock (a token in a string key, non-reentrant, polling waiters, a
// fresh token per acquire) is clean on `safe`, fails `pauses` only where a
// pause explains it, and each of its three mutants is caught in a shrunk
// counterexample of at most 20 events with no fault to blame; the RedLock
// over it (token_redlock) is clean on three servers and caught by a restart
// without persistence; a kind the pack does not provide is refused, naming
// it; a trace records the design, so `locksim check` judges it by it; a
// failing holder read stops the run naming the key. Our hash pack with its
// design declared gives the same verdicts as a manifest that declares
// nothing. The seed counts here are small (the suite stays fast); the bars
// (x2000, x500) are in docs/lock-designs.md with their commands.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::read_file;
using locksim::testing::run_locksim;
using locksim::testing::Stderr;

const fs::path kSource = LOCKSIM_SOURCE_DIR;
const std::string kTokenLock = (kSource / "tests" / "impl" / "packs" / "token_lock").string();
const std::string kTokenRedlock = (kSource / "tests" / "impl" / "packs" / "token_redlock").string();

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

nlohmann::json campaign_json(const std::string& args, int expected_exit, const std::string& backend = "lua") {
  const CliRun r = run_locksim("campaign --backend " + backend + " --json " + args, Stderr::Discard);
  EXPECT_EQ(r.exit_code, expected_exit) << args << "\n" << r.out.substr(0, 3000);
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 2000);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

using locksim::testing::TempDir;

TEST(TokenLock, CleanOnSafe) {
  const nlohmann::json j = campaign_json("--seeds 60 --profile safe --scripts " + kTokenLock, 0);
  EXPECT_EQ(j["ok"], true);
  EXPECT_GT(j["operations_ok"].get<uint64_t>(), 1000u);
  EXPECT_EQ(j["script_errors"], 0);
  // The design reaches the scenario (and so every trace header).
  EXPECT_EQ(j["scenario"]["design"]["wake_up"]["mode"], "poll");
  EXPECT_EQ(j["scenario"]["design"]["reentrant"], false);
  // Waiters poll every 100-150 ms: 6.7 to 10 polls per second of waiting.
  const double rate = j["waiting"]["polls_per_second"].get<double>();
  EXPECT_GT(rate, 6.6);
  EXPECT_LT(rate, 10.1);
  EXPECT_TRUE(j["advisories"].empty()) << j["advisories"].dump();
  // Our pub/sub lock polls far less: once per wake-up.
  const nlohmann::json ours = campaign_json("--seeds 20 --profile safe", 0);
  EXPECT_LT(ours["waiting"]["polls_per_second"].get<double>(), 1.0);
}

TEST(TokenLock, FailsPausesWithMutualExclusionEveryViolationExplainedByThePause) {
  const nlohmann::json j =
      campaign_json("--seeds 40 --profile pauses --keep-going --no-shrink --scripts " + kTokenLock, 1);
  ASSERT_FALSE(j["failures"].empty());
  int violations = 0;
  for (const auto& f : j["failures"]) {
    for (const auto& v : f["violations"]) {
      ++violations;
      EXPECT_EQ(v["property"], "mutual_exclusion") << v.dump();
      // The checker guesses a pause; the re-runs prove one (not always the
      // same: then the guess is not printed beside the proof).
      EXPECT_TRUE(contains(v["hypothesis"].get<std::string>(), "paused")) << v.dump();
      EXPECT_EQ(v["cause"]["kind"], "pause") << v.dump();
      if (!v["blamed_fault"].get<std::string>().empty()) {
        EXPECT_EQ(v["blamed_fault"], v["hypothesis"]) << v.dump();
      }
    }
  }
  EXPECT_GT(violations, 0);
  // Nothing is left once the pauses are set aside.
  campaign_json("--seeds 40 --profile pauses --unexplained-only --scripts " + kTokenLock, 0);
}

TEST(TokenLock, EachMutantIsCaughtWithin20EventsUnexplained) {
  struct Catch {
    const char* mutant;
    const char* settings;
    std::set<std::string> properties;  // the first violation's is one of them
  };
  const Catch catches[] = {
      // A release that deletes whoever holds the lock: the non-owner's release
      // changes the lock (reentrancy), and the next client gets in (mutual_exclusion).
      {"release_no_compare", "--profile pauses --unexplained-only", {"reentrancy", "mutual_exclusion"}},
      {"extend_no_compare", "--profile pauses --unexplained-only", {"watchdog_expiry"}},
      {"acquire_without_nx", "--profile none", {"mutual_exclusion"}},
  };
  for (const Catch& c : catches) {
    const nlohmann::json j = campaign_json(std::string("--seeds 100 ") + c.settings + " --shrink-seeds 1 --scripts " +
                                               kTokenLock + "/mutants/" + c.mutant,
                                           1);
    ASSERT_FALSE(j["failures"].empty()) << c.mutant;
    const auto& first = j["failures"][0];
    EXPECT_EQ(c.properties.count(first["violations"][0]["property"].get<std::string>()), 1u)
        << c.mutant << ": " << first["violations"][0].dump();
    for (const auto& v : first["violations"]) EXPECT_EQ(v["blamed_fault"], "") << c.mutant << ": " << v.dump();
    size_t shortest = SIZE_MAX;
    for (const auto& cx : first["counterexamples"]) {
      shortest = std::min(shortest, cx["events"].get<size_t>());
      EXPECT_EQ(cx["blamed_fault"], "") << c.mutant << ": " << cx.dump().substr(0, 2000);
    }
    EXPECT_LE(shortest, 20u) << c.mutant << ": " << first["counterexamples"].dump().substr(0, 2000);
    // The correct lock passes the same campaign up to the catching seed.
    campaign_json("--seeds " + std::to_string(first["seed"].get<uint64_t>()) + " " + c.settings + " --scripts " +
                      kTokenLock,
                  0);
  }
}

TEST(TokenRedlock, CleanOnSafeWithThreeServersAndCaughtByARestart) {
  const nlohmann::json ok =
      campaign_json("--seeds 25 --profile safe --lock redlock --servers 3 --scripts " + kTokenRedlock, 0);
  EXPECT_GT(ok["operations_ok"].get<uint64_t>(), 300u);
  const nlohmann::json failed = campaign_json(
      "--seeds 20 --profile restarts --lock redlock --servers 3 --no-shrink --scripts " + kTokenRedlock, 1);
  ASSERT_FALSE(failed["failures"].empty());
  bool restart = false;
  for (const auto& v : failed["failures"][0]["violations"]) {
    restart = restart || (v["property"] == "mutual_exclusion" &&
                          contains(v["blamed_fault"].get<std::string>(), "restarted without persistence"));
  }
  EXPECT_TRUE(restart) << failed["failures"][0]["violations"].dump().substr(0, 3000);
  // With persistence the restarts keep the tokens: nothing is lost.
  campaign_json("--seeds 20 --profile restarts --persistence always --lock redlock --servers 3 --scripts " +
                    kTokenRedlock,
                0);
}

// A polling RedLock under `hostile`: slow acquires (a partition, a lost
// reply) make liveness reports, and each one's cause is proven by re-runs
// checked by the same design (its poll interval sets the liveness bounds).
// Checked without the design, the re-runs saw other violations and every
// cause stayed unconfirmed.
TEST(TokenRedlock, HostileSlowAcquiresHaveConfirmedCauses) {
  const nlohmann::json failed = campaign_json("--seeds 1 --base-seed 86 --profile hostile --lock redlock --servers 3 "
                                              "--keep-going --no-shrink --scripts " + kTokenRedlock,
                                              1);
  ASSERT_FALSE(failed["failures"].empty());
  int violations = 0;
  for (const auto& v : failed["failures"][0]["violations"]) {
    ++violations;
    EXPECT_EQ(v["property"], "liveness") << v.dump();
    EXPECT_EQ(v["cause"]["confirmed"], true) << v.dump().substr(0, 2000);
  }
  EXPECT_GT(violations, 0);
  campaign_json("--seeds 1 --base-seed 86 --profile hostile --lock redlock --servers 3 --unexplained-only "
                "--scripts " + kTokenRedlock,
                0);
}

// `run` checks by the pack's design as `campaign` and `check` do: the same
// seed gives the same violations in all three.
TEST(LockDesignTrace, RunChecksByTheDesignAsCampaignAndCheckDo) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "t.jsonl";
  const std::string scenario = "--profile hostile --lock redlock --servers 3 --scripts " + kTokenRedlock;
  const CliRun run = run_locksim("run --backend lua --seed 26 --trace " + trace.string() + " " + scenario);
  EXPECT_EQ(run.exit_code, 1) << run.out;  // run writes the trace and fails on its liveness violation
  EXPECT_TRUE(contains(run.out, "1 violation(s) (liveness: 1)")) << run.out;
  const CliRun check = run_locksim("check --json " + trace.string(), Stderr::Discard);
  const nlohmann::json checked = nlohmann::json::parse(check.out, nullptr, false);
  ASSERT_FALSE(checked.is_discarded()) << check.out.substr(0, 2000);
  EXPECT_EQ(checked["violations"].size(), 1u) << check.out.substr(0, 2000);
  const nlohmann::json campaign =
      campaign_json("--seeds 1 --base-seed 26 --keep-going --no-shrink " + scenario, 1);
  ASSERT_EQ(campaign["failures"].size(), 1u);
  EXPECT_EQ(campaign["failures"][0]["violations"].size(), 1u);
}

TEST(LockDesignKinds, AKindThePackDoesNotProvideIsRefusedNamingIt) {
  const CliRun fair = run_locksim("campaign --backend lua --seeds 1 --lock fair --scripts " + kTokenLock);
  EXPECT_EQ(fair.exit_code, 2) << fair.out;
  EXPECT_TRUE(contains(fair.out, "does not provide the fair lock kind that --lock fair needs (its design's kinds: rlock)"))
      << fair.out;
  const CliRun mixed = run_locksim("run --seed 1 --lock mixed --trace /dev/null --scripts " + kTokenLock);
  EXPECT_EQ(mixed.exit_code, 2) << mixed.out;
  EXPECT_TRUE(contains(mixed.out, "fair lock kind")) << mixed.out;
  const CliRun rlock = run_locksim("campaign --backend lua --seeds 1 --lock rlock --scripts " + kTokenRedlock);
  EXPECT_EQ(rlock.exit_code, 2) << rlock.out;
  EXPECT_TRUE(contains(rlock.out, "does not provide the rlock lock kind")) << rlock.out;
}

// Every acquire by an owner follows its release (or a lost hold): a
// non-reentrant design is never re-entered, and its trace records the
// design and each hold's token.
TEST(LockDesignTrace, NoReentryTokensRecordedAndCheckFollowsTheDesign) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "t.jsonl";
  const CliRun r = run_locksim("run --seed 4 --profile safe --trace " + trace.string() + " --scripts " + kTokenLock);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(trace);
  std::string line;
  std::getline(in, line);
  const nlohmann::json header = nlohmann::json::parse(line);
  EXPECT_EQ(header["version"], 5);
  EXPECT_EQ(header["scenario"]["design"]["token"], "fresh_per_acquire");
  std::map<std::string, bool> holding;  // owner -> believes it holds
  std::map<std::string, int> tokens;    // token -> holds it marked
  int holds = 0;
  while (std::getline(in, line)) {
    const nlohmann::json e = nlohmann::json::parse(line);
    const std::string kind = e["k"];
    const std::string op = e.value("op", "");
    const std::string owner = e.value("o", "");
    if (kind == "ok" && (op == "lock" || op == "try_lock")) {
      EXPECT_FALSE(holding[owner]) << "re-entered: " << line;
      holding[owner] = true;
      ++holds;
      ASSERT_TRUE(e.contains("tk")) << line;
      EXPECT_EQ(e["tk"].get<std::string>().rfind(owner + "#", 0), 0u) << line;
      EXPECT_EQ(++tokens[e["tk"].get<std::string>()], 1) << "a token used twice: " << line;
    }
    if (kind == "invoke" && op == "unlock") holding[owner] = false;
    if (kind == "invoke" && (op == "lock" || op == "try_lock")) {
      EXPECT_FALSE(holding[owner]) << line;
    }
    if (kind == "script") {
      // Holders are named by owner (the server holds tokens).
      for (const auto& h : e.value("h", nlohmann::json::array())) {
        EXPECT_FALSE(contains(h.get<std::string>(), "#")) << line;
      }
    }
  }
  EXPECT_GT(holds, 10);
  // Checked offline by its recorded design: a polling lock publishes no
  // wake-ups, which the pub/sub design would call a liveness violation.
  const CliRun check = run_locksim("check " + trace.string());
  EXPECT_EQ(check.exit_code, 0) << check.out;
}

TEST(LockDesignHolders, AFailingHolderReadStopsTheRunNamingTheKeyAndTheError) {
  TempDir tmp;
  const fs::path pack = tmp.path() / "pack";
  fs::create_directories(pack);
  for (const char* f : {"release.lua", "extend.lua"}) fs::copy_file(fs::path(kTokenLock) / f, pack / f);
  nlohmann::json m = nlohmann::json::parse(read_file(fs::path(kTokenLock) / "manifest.json"));
  m["design"]["holders"] = "hash_fields";  // but its key is a string
  std::ofstream(pack / "manifest.json") << m.dump(2);
  for (const char* backend : {"lua", "live"}) {
    const CliRun r = run_locksim(std::string("run --seed 1 --profile none --backend ") + backend +
                                 " --trace " + (tmp.path() / "t.jsonl").string() + " --scripts " + pack.string());
    EXPECT_EQ(r.exit_code, 2) << backend << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "rlock_acquire")) << backend << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "reading the holders of lsim:L0 with HKEYS: it answered error: WRONGTYPE"))
        << backend << ": " << r.out;
    EXPECT_FALSE(fs::exists(tmp.path() / "t.jsonl")) << backend;
  }
}

// A read script declared as the holder read runs after every script, on
// lua and live alike (read-only: EVALSHA_RO live; the lua backend checks);
// reading the token from the string value, it judges as GET does. One that
// writes stops the run on both.
TEST(LockDesignHolders, AReadScriptReadsTheHoldersOnLuaAndLive) {
  TempDir tmp;
  const fs::path pack = tmp.path() / "pack";
  fs::create_directories(pack);
  for (const char* f : {"release.lua", "extend.lua"}) fs::copy_file(fs::path(kTokenLock) / f, pack / f);
  std::ofstream(pack / "holders.lua") << "local v = redis.call('get', KEYS[1])\nif v then return {v} end\nreturn {}\n";
  std::ofstream(pack / "writes.lua") << "redis.call('set', KEYS[1] .. ':seen', '1')\nreturn {}\n";
  nlohmann::json m = nlohmann::json::parse(read_file(fs::path(kTokenLock) / "manifest.json"));
  m["design"]["holders"] = {{"file", "holders.lua"}, {"keys", {"lock"}}, {"argv", nlohmann::json::array()}};
  std::ofstream(pack / "manifest.json") << m.dump(2);
  const std::string args = "--seeds 8 --profile pauses --keep-going --no-shrink ";
  nlohmann::json by_script = campaign_json(args + "--scripts " + pack.string(), 1, "lua,live");
  nlohmann::json by_get = campaign_json(args + "--scripts " + kTokenLock, 1);
  for (auto& f : by_script["failures"]) EXPECT_FALSE(f.contains("divergence")) << f.dump().substr(0, 2000);
  ASSERT_EQ(by_script["failures"].size(), by_get["failures"].size());
  for (size_t i = 0; i < by_get["failures"].size(); ++i) {
    EXPECT_EQ(by_script["failures"][i]["violations"], by_get["failures"][i]["violations"]) << i;
  }
  m["design"]["holders"]["file"] = "writes.lua";
  std::ofstream(pack / "manifest.json", std::ios::trunc) << m.dump(2);
  for (const char* backend : {"lua", "live"}) {
    const CliRun r = run_locksim(std::string("run --seed 1 --profile none --backend ") + backend + " --trace " +
                                 (tmp.path() / "t.jsonl").string() + " --scripts " + pack.string());
    EXPECT_EQ(r.exit_code, 2) << backend << ": " << r.out;
    EXPECT_TRUE(contains(r.out, backend == std::string("lua") ? "wrote or published: it must only read"
                                                              : "Write commands are not allowed from read-only scripts"))
        << backend << ": " << r.out;
  }
}

// Our pack declares its design and replies; an older manifest of the same
// scripts declares nothing. Both give the same campaign results.
TEST(LockDesignOurs, DeclaredDesignGivesTheVerdictsOfAManifestWithout) {
  TempDir tmp;
  const fs::path old_pack = tmp.path() / "old";
  fs::create_directories(old_pack);
  for (const auto& e : fs::directory_iterator(kSource / "impl" / "lua")) fs::copy_file(e.path(), old_pack / e.path().filename());
  nlohmann::json m = nlohmann::json::parse(read_file(old_pack / "manifest.json"));
  ASSERT_TRUE(m.contains("design"));
  m.erase("design");
  for (auto& [name, entry] : m["scripts"].items()) entry.erase("replies");
  std::ofstream(old_pack / "manifest.json", std::ios::trunc) << m.dump(2);
  for (const char* settings : {"--profile pauses --lock mixed --locks 2", "--profile hostile --lock fair --fail-on all"}) {
    const std::string args = std::string("--seeds 6 --duration-ms 30000 --keep-going --no-shrink ") + settings;
    nlohmann::json ours = campaign_json(args + " --scripts " + (kSource / "impl" / "lua").string(), 1);
    nlohmann::json old = campaign_json(args + " --scripts " + old_pack.string(), 1);
    ours["scenario"].erase("scripts");
    old["scenario"].erase("scripts");
    EXPECT_FALSE(ours["failures"].empty()) << settings;
    EXPECT_TRUE(ours == old) << settings << "\n ours: " << ours.dump().substr(0, 1500)
                             << "\n old:  " << old.dump().substr(0, 1500);
  }
}

// A pack of another design has no model reference: pack check and
// campaigns compare it with another pack (its released version), on lua.
TEST(LockDesignReference, PackCheckAndCampaignsCompareTwoPacks) {
  const std::string mutant = kTokenLock + "/mutants/extend_no_compare";
  const CliRun no_ref = run_locksim("pack check --backend lua " + kTokenLock);
  EXPECT_EQ(no_ref.exit_code, 2) << no_ref.out;
  EXPECT_TRUE(contains(no_ref.out, "declares its holders as string_value")) << no_ref.out;
  EXPECT_TRUE(contains(no_ref.out, "--reference PACK")) << no_ref.out;
  const CliRun same = run_locksim("pack check --backend lua --sequences 20 --json --reference " + kTokenLock + " " +
                                  kTokenLock, Stderr::Discard);
  EXPECT_EQ(same.exit_code, 0) << same.out;
  const nlohmann::json j = nlohmann::json::parse(same.out);
  EXPECT_EQ(j["reference"], "pack " + kTokenLock);
  EXPECT_GT(j["cases_run"].get<int>(), 10);
  EXPECT_EQ(j["scripts"]["rlock_release"]["diverged"], 0);
  const CliRun differs = run_locksim("pack check --backend lua --sequences 20 --json --reference " + mutant + " " +
                                     kTokenLock, Stderr::Discard);
  EXPECT_EQ(differs.exit_code, 1) << differs.out;
  const nlohmann::json d = nlohmann::json::parse(differs.out);
  EXPECT_GT(d["scripts"]["rlock_renew"]["cases"]["differed"].get<int>(), 0) << differs.out;
  EXPECT_EQ(d["scripts"]["rlock_release"]["cases"]["differed"], 0) << differs.out;
  EXPECT_EQ(d["scripts"]["rlock_release"]["diverged"], 0) << differs.out;
  // A campaign: the same seeds on both packs, event by event.
  campaign_json("--seeds 10 --profile pauses --unexplained-only --scripts " + kTokenLock + " --reference " + kTokenLock, 0);
  const nlohmann::json diverged =
      campaign_json("--seeds 40 --profile pauses --no-shrink --scripts " + kTokenLock + " --reference " + mutant, 1);
  ASSERT_FALSE(diverged["failures"].empty());
  EXPECT_TRUE(diverged["failures"][0].contains("divergence")) << diverged["failures"][0].dump().substr(0, 2000);
  EXPECT_EQ(diverged["backend"], "lua,lua(reference pack)");
  // The model runs our scripts only; two designs cannot be compared.
  const CliRun model = run_locksim("campaign --seeds 1 --backend lua,model --scripts " + kTokenLock + " --reference " + kTokenLock);
  EXPECT_EQ(model.exit_code, 2) << model.out;
  const CliRun designs = run_locksim("campaign --seeds 1 --backend lua --scripts " + kTokenLock + " --reference builtin:impl/lua");
  EXPECT_EQ(designs.exit_code, 2) << designs.out;
  EXPECT_TRUE(contains(designs.out, "declares another lock design than the checked pack")) << designs.out;
}

}  // namespace
