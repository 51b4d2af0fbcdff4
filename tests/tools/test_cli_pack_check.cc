// `locksim pack check DIR` end to end: a pack with a string ARGV literal and
// a list-shaped renewal reply loads and agrees with the model (exit 0); the
// historical pack loads and its differing scripts are named with their first
// differing call (exit 1); a Lua syntax error, an unknown command and a
// script that never answers are problems (exit 1) naming the script; a bad
// manifest or a missing DIR is exit 2.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "model/script_call.h"
#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;

const std::string kSource = LOCKSIM_SOURCE_DIR;

CliRun locksim_out(const std::string& args) {
  return locksim::testing::run_locksim(args, locksim::testing::Stderr::Discard);
}

nlohmann::json json_of(const CliRun& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout is not one JSON object: " << r.out;
  return j;
}

// A copy of impl/lua in a fresh temporary directory, removed at the end.
class TempPack {
 public:
  TempPack() {
    std::string templ = (fs::temp_directory_path() / "locksim-packcheck-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
    for (const auto& e : fs::directory_iterator(kSource + "/impl/lua")) {
      fs::copy_file(e.path(), fs::path(dir_) / e.path().filename());
    }
    std::ifstream in(dir_ + "/manifest.json");
    manifest_ = nlohmann::json::parse(in);
  }
  ~TempPack() { fs::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  nlohmann::json& manifest() { return manifest_; }
  void write(const std::string& file, const std::string& text) {
    std::ofstream(dir_ + "/" + file, std::ios::trunc) << text;
  }
  void write_manifest() { write("manifest.json", manifest_.dump(2)); }

 private:
  std::string dir_;
  nlohmann::json manifest_;
};

TEST(PackCheckCli, ListReplyPackAgreesWithTheModel) {
  const CliRun r = locksim_out("pack check " + kSource + "/tests/impl/packs/list_reply --sequences 40 --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const auto j = json_of(r);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["sequences"], 40);
  for (const auto& [name, s] : j["scripts"].items()) {
    // The pack predates the spin lock and the faster multi-lock: their
    // scripts are absent, their cases skipped.
    if (locksim::is_optional_script(*locksim::script_from_name(name))) continue;
    EXPECT_EQ(s["loads"], true) << name;
    EXPECT_EQ(s["diverged"], 0) << name;
    EXPECT_GT(s["agreed"].get<int>(), 0) << name;
    // The case table: every script of this pack runs in some case, and agrees.
    EXPECT_EQ(s["cases"]["differed"], 0) << name;
    EXPECT_GT(s["cases"]["agreed"].get<int>(), 0) << name;
  }
  EXPECT_EQ(j["cases_differed"], 0);
  EXPECT_GE(j["cases_run"].get<int>(), 40);
  for (const auto& skipped : j["cases_skipped"]) {  // "SpinRelease_...", "FasterMultiAcquire_...", ...
    EXPECT_TRUE(skipped.dump().find("Spin") == 1u || skipped.dump().find("FasterMulti") == 1u) << skipped.dump();
  }
}

TEST(PackCheckCli, CaseTableRunsOnEveryBranch) {
  // Our pack passes every correct case; a mutant pack fails the case that
  // pins its bug, named with the step and the reply.
  const CliRun ours = locksim_out("pack check " + kSource + "/impl/lua --sequences 1 --json");
  EXPECT_EQ(ours.exit_code, 0) << ours.out;
  const auto o = json_of(ours);
  EXPECT_EQ(o["cases_differed"], 0);
  EXPECT_GE(o["cases_run"].get<int>(), 40);
  const CliRun mutant = locksim_out("pack check " + kSource + "/impl/mutants/release_no_owner_check --sequences 1 --json");
  EXPECT_EQ(mutant.exit_code, 1) << mutant.out;
  const auto m = json_of(mutant);
  EXPECT_GT(m["cases_differed"].get<int>(), 0);
  const auto& release = m["scripts"]["rlock_release"]["cases"];
  EXPECT_GT(release["differed"].get<int>(), 0) << mutant.out;
  ASSERT_TRUE(release.contains("first_difference")) << mutant.out;
  EXPECT_NE(release["first_difference"]["case"].get<std::string>().find("RlockRelease"), std::string::npos)
      << release.dump();
  EXPECT_EQ(m["scripts"]["rlock_acquire"]["cases"]["differed"], 0);
}

// The faster multi-lock's scripts agree with the model on every case of our
// pack; each of its mutant packs differs in its one script, named.
TEST(PackCheckCli, FasterMultiMutantsDifferInTheirScript) {
  const CliRun ours = locksim_out("pack check " + kSource + "/impl/lua --sequences 1 --json");
  ASSERT_EQ(ours.exit_code, 0) << ours.out;
  const auto o = json_of(ours);
  for (const char* script : {"faster_multi_acquire", "faster_multi_release", "faster_multi_renew",
                             "faster_multi_force_release"}) {
    EXPECT_GT(o["scripts"][script]["cases"]["agreed"].get<int>(), 0) << script;
    EXPECT_EQ(o["scripts"][script]["cases"]["differed"], 0) << script;
  }
  const std::pair<const char*, const char*> mutants[] = {
      {"faster_multi_release_frees_early", "faster_multi_release"},
      {"faster_multi_expiry_inverted", "faster_multi_acquire"},
      {"faster_multi_renew_unheld", "faster_multi_renew"}};
  for (const auto& [mutant, script] : mutants) {
    const CliRun r = locksim_out("pack check builtin:impl/mutants/" + std::string(mutant) + " --sequences 1 --json");
    EXPECT_EQ(r.exit_code, 1) << mutant << ": " << r.out;
    const auto j = json_of(r);
    for (const auto& [name, s] : j["scripts"].items()) {
      if (name == script) {
        EXPECT_GT(s["cases"]["differed"].get<int>(), 0) << mutant;
        EXPECT_NE(s["cases"]["first_difference"]["case"].get<std::string>().find("FasterMulti"), std::string::npos)
            << mutant;
      } else {
        EXPECT_EQ(s["cases"]["differed"], 0) << mutant << " " << name;
      }
    }
  }
}

TEST(PackCheckCli, HistoricalPackNamesTheScriptsThatDiffer) {
  const CliRun r = locksim_out("pack check " + kSource + "/tests/impl/packs/historical --sequences 30 --json");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const auto j = json_of(r);
  EXPECT_EQ(j["ok"], false);
  const auto& s = j["scripts"];
  EXPECT_EQ(s["rlock_renew"]["form"], "command");
  EXPECT_GT(s["rlock_renew"]["diverged"].get<int>(), 0);
  EXPECT_EQ(s["rlock_renew"]["first_divergence"]["text"], "reply: 0 vs 1");
  EXPECT_EQ(s["fair_acquire_failed"]["form"], "absent");
  EXPECT_EQ(s["fair_acquire_failed"]["agreed"], 0);
  EXPECT_EQ(s["rlock_acquire"]["diverged"], 0);
  EXPECT_EQ(s["fair_release"]["diverged"], 0);  // its channel and message conventions read as ours
  // The case table: a bare PEXPIRE renews whoever asks (the table's "renew by
  // a non-owner answers 0" case differs); cases that need the absent
  // give-up script are named as not applicable.
  EXPECT_GT(s["rlock_renew"]["cases"]["differed"].get<int>(), 0);
  EXPECT_EQ(s["rlock_acquire"]["cases"]["differed"], 0);
  bool skipped_give_up = false;
  for (const auto& skipped : j["cases_skipped"]) {
    skipped_give_up = skipped_give_up || skipped.get<std::string>().find("fair_acquire_failed") != std::string::npos;
  }
  EXPECT_TRUE(skipped_give_up) << j["cases_skipped"].dump();
}

TEST(PackCheckCli, OurPackAgreesInText) {
  const CliRun r = locksim_out("pack check " + kSource + "/impl/lua --sequences 10");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("every script agrees with the model"), std::string::npos) << r.out;
}

TEST(PackCheckCli, SyntaxErrorIsAProblemNamingTheFile) {
  TempPack pack;
  pack.write("rlock_renew.lua", "return (\n");
  const CliRun r = locksim_out("pack check " + pack.dir());
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("rlock_renew.lua: PROBLEM: Redis rejected the script"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rlock_acquire       lua"), std::string::npos) << r.out;  // the others are still listed
  EXPECT_NE(r.out.find("not compared with the model"), std::string::npos) << r.out;
}

TEST(PackCheckCli, UnknownCommandIsAProblem) {
  TempPack pack;
  pack.manifest()["scripts"]["rlock_renew"] = {{"command", "PEXPIRETHIS"}, {"keys", {"lock"}}, {"argv", {"lease_ms"}}};
  pack.write_manifest();
  const CliRun r = locksim_out("pack check " + pack.dir() + " --json");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const auto j = json_of(r);
  EXPECT_EQ(j["scripts"]["rlock_renew"]["loads"], false);
  EXPECT_NE(j["scripts"]["rlock_renew"]["problem"].get<std::string>().find("PEXPIRETHIS"), std::string::npos);
}

TEST(PackCheckCli, ScriptThatNeverAnswersIsAProblem) {
  TempPack pack;
  pack.write("rlock_acquire.lua", "while true do end\n");
  const CliRun r = locksim_out("pack check " + pack.dir() + " --sequences 1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("PROBLEM while comparing with the model: rlock_acquire"), std::string::npos) << r.out;
}

// The same pack, unchanged, in a live campaign and a replayed live run.
// That version has no acquire_failed: a fair waiter that gives up stays in
// the line, which ghost_waiter reports (skipped here: this test is about
// running the pack).
TEST(PackCheckCli, HistoricalPackRunsLiveAndReplays) {
  CliRun r = locksim_out("campaign --backend live --scripts " + kSource +
                         "/tests/impl/packs/historical --seeds 3 --profile safe --lock mixed --locks 2 "
                         "--skip-property ghost_waiter --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(json_of(r)["backend"], "live");
  TempPack tmp;  // a scratch directory for the trace
  const std::string trace = tmp.dir() + "/t.jsonl";
  r = locksim::testing::run_locksim("run --seed 3 --backend live --scripts " + kSource +
                                    "/tests/impl/packs/historical --lock mixed --locks 2 --profile safe "
                                    "--duration-s 20 --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(trace);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("fair_acquire_failed is absent from this script pack"), std::string::npos);
  r = locksim::testing::run_locksim("replay " + trace);
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// --compare replies: a pack that keeps an extra key of its own (a storage
// layout different by design) differs in full, agrees on replies and
// publishes; a wrong reply still differs under it.
TEST(PackCheckCli, CompareRepliesIgnoresTheStorageLayoutOnly) {
  TempPack pack;
  pack.write("rlock_acquire.lua",
             "local lock = KEYS[1]\n"
             "if redis.call('exists', lock) == 0 or redis.call('hexists', lock, ARGV[2]) == 1 then\n"
             "  redis.call('hincrby', lock, ARGV[2], 1)\n"
             "  redis.call('pexpire', lock, ARGV[1])\n"
             "  redis.call('set', lock .. ':audit', ARGV[2])\n"
             "  return nil\n"
             "end\n"
             "return redis.call('pttl', lock)\n");
  for (const char* backend : {"lua", "live"}) {
    const std::string base = "pack check " + pack.dir() + " --sequences 20 --backend " + backend;
    const CliRun full = locksim_out(base);
    EXPECT_EQ(full.exit_code, 1) << full.out;
    const CliRun replies = locksim_out(base + " --compare replies");
    EXPECT_EQ(replies.exit_code, 0) << replies.out;
    EXPECT_NE(replies.out.find("replies and publishes only"), std::string::npos) << replies.out;
    const CliRun js = locksim_out(base + " --compare replies --json");
    EXPECT_EQ(json_of(js)["compared"], "replies") << js.out;
  }
  pack.write("rlock_acquire.lua", "redis.call('hincrby', KEYS[1], ARGV[2], 1)\nreturn nil\n");
  const CliRun wrong = locksim_out("pack check " + pack.dir() + " --sequences 20 --backend lua --compare replies");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out;
  const CliRun bad = locksim::testing::run_locksim("pack check " + pack.dir() + " --compare keys");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--compare"), std::string::npos) << bad.out;
}

TEST(PackCheckCli, BadInputIsExitTwo) {
  TempPack pack;
  pack.manifest()["scripts"]["rlock_renew"]["reply"] = "second";
  pack.write_manifest();
  CliRun r = locksim::testing::run_locksim("pack check " + pack.dir());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("manifest.json: script \"rlock_renew\": \"reply\""), std::string::npos) << r.out;
  r = locksim::testing::run_locksim("pack check /no/such/pack");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = locksim::testing::run_locksim("pack check");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = locksim::testing::run_locksim("pack");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = locksim::testing::run_locksim("pack check " + kSource + "/impl/lua --sequences 0");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

}  // namespace
