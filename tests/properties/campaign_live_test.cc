// Issue 9: `campaign --backend live|model|both` and `--workers J`. A live
// campaign runs the pack's own Lua on redis-servers in virtual time (reused
// across seeds, one set per worker), so broken packs fail it: a syntax error
// (exit 2, the file named), a script that never returns (exit 2, the seed and
// the script named, no hang), a FLUSHALL and a mutant pack (exit 1, a
// violation; the mutant's counterexample is shrunk on live and its trace
// replays on live). `both` fails a mutant pack as a divergence. The result
// does not depend on --workers. Bad input is one line and exit 2.
// Live scenarios here are short rlock runs (a few ms of wall time per seed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::line_count;
using locksim::testing::run_locksim;
using locksim::testing::Stderr;

const fs::path kSource = LOCKSIM_SOURCE_DIR;
const std::string kShort = " --profile safe --duration-ms 5000";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::path work_dir() { return fs::path(LOCKSIM_BINARY_DIR) / "campaign_live"; }

// A copy of our pack named `name`, without "model_variant" (ours has none),
// whose `script` starts with `prefix` (nothing: an unedited copy).
fs::path pack_copy(const std::string& name, const std::string& script = "", const std::string& prefix = "") {
  const fs::path dir = work_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kSource / "impl" / "lua", dir, fs::copy_options::recursive);
  if (!script.empty()) {
    const std::string text = locksim::testing::read_file(dir / script);
    std::ofstream(dir / script, std::ios::trunc) << prefix << text;
  }
  return dir;
}

TEST(CampaignLive, OurPackPassesLiveAndBoth) {
  for (const char* backend : {"live", "both", "lua", "lua,live", "live,lua", "lua,model"}) {
    const CliRun r = run_locksim(std::string("campaign --backend ") + backend + " --seeds 5 --lock mixed --locks 2" +
                                 kShort, Stderr::Discard);
    EXPECT_EQ(r.exit_code, 0) << backend << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "ok: 5 seeds")) << r.out;
  }
}

// A pack without "model_variant" that is not our scripts (one line of
// rlock_renew.lua differs: an unedited copy is ours and runs on the model).
TEST(CampaignLive, PackWithoutModelVariantRunsLuaByDefaultAndLiveOnRequest) {
  const fs::path copy = pack_copy("plain", "rlock_renew.lua", "-- not quite ours\n");
  for (const char* backend : {"", " --backend live"}) {
    const CliRun r = run_locksim(std::string("campaign --seeds 5 --json --scripts ") + copy.string() + kShort + backend,
                                 Stderr::Discard);
    EXPECT_EQ(r.exit_code, 0) << backend << ": " << r.out;
    EXPECT_TRUE(contains(r.out, std::string("\"backend\":\"") + (backend[0] ? "live" : "lua") + "\"")) << r.out;
  }
  const CliRun model = run_locksim("campaign --backend model --seeds 5 --scripts " + copy.string() + kShort);
  EXPECT_EQ(model.exit_code, 2) << model.out;
  EXPECT_EQ(line_count(model.out), 1) << model.out;
  EXPECT_TRUE(contains(model.out, "model cannot stand for")) << model.out;
  EXPECT_TRUE(contains(model.out, "campaign --backend lua")) << model.out;
}

// $LOCKSIM_SCRIPTS names the default pack, and the default pack is held to
// the same rule as --scripts: our scripts (a copy) run on the model, any
// other pack without "model_variant" on lua by default and never on the model.
TEST(CampaignLive, DefaultPackFromTheEnvironmentFollowsTheSameRule) {
  const fs::path ours = pack_copy("env-ours");
  const CliRun same = run_locksim("campaign --seeds 3 --json" + kShort, Stderr::Discard, "LOCKSIM_SCRIPTS=" + ours.string());
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_TRUE(contains(same.out, "\"backend\":\"model\"")) << same.out;

  const fs::path edited = pack_copy("env-edited", "rlock_renew.lua", "-- not quite ours\n");
  const std::string env = "LOCKSIM_SCRIPTS=" + edited.string();
  const CliRun lua = run_locksim("campaign --seeds 3 --json" + kShort, Stderr::Discard, env);
  EXPECT_EQ(lua.exit_code, 0) << lua.out;
  EXPECT_TRUE(contains(lua.out, "\"backend\":\"lua\"")) << lua.out;
  const CliRun model = run_locksim("campaign --backend model --seeds 3" + kShort, Stderr::Merge, env);
  EXPECT_EQ(model.exit_code, 2) << model.out;
  EXPECT_EQ(line_count(model.out), 1) << model.out;
  EXPECT_TRUE(contains(model.out, "model cannot stand for")) << model.out;
  const fs::path trace = work_dir() / "env-edited.jsonl";
  const CliRun run = run_locksim("run --seed 1 --duration-s 1 --trace " + trace.string(), Stderr::Merge, env);
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_TRUE(contains(locksim::testing::read_file(trace), "\"backend\":\"lua\"")) << run.out;
  const CliRun run_model = run_locksim("run --backend model --seed 1 --duration-s 1 --trace " + trace.string(),
                                       Stderr::Merge, env);
  EXPECT_EQ(run_model.exit_code, 2) << run_model.out;
  EXPECT_TRUE(contains(run_model.out, "model cannot stand for")) << run_model.out;
}

TEST(CampaignLive, SyntaxErrorIsExitTwoNamingTheFile) {
  const fs::path pack = pack_copy("syntax", "rlock_acquire.lua", "this is not lua (\n");
  const fs::path out = work_dir() / "syntax-out";
  for (const char* backend : {"live", "lua"}) {
    const CliRun r = run_locksim(std::string("campaign --backend ") + backend + " --seeds 5 --scripts " +
                                 pack.string() + " --out " + out.string() + kShort);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(line_count(r.out), 1) << r.out;
    EXPECT_TRUE(contains(r.out, (pack / "rlock_acquire.lua").string())) << r.out;
    EXPECT_TRUE(contains(r.out, "Redis rejected the script: ERR Error compiling script")) << r.out;
    EXPECT_FALSE(fs::exists(out)) << "outputs for a pack that does not load";
  }
}

// Live: the harness's read times out; lua: the step budget. Either way one
// line naming the seed and the script, exit 2.
TEST(CampaignLive, ScriptThatNeverReturnsStopsTheCampaign) {
  const fs::path pack = pack_copy("loop", "rlock_renew.lua", "while true do end\n");
  for (const char* backend : {"live", "lua"}) {
    const CliRun r = run_locksim(std::string("campaign --backend ") + backend + " --seeds 3 --workers 2 --scripts " +
                                 pack.string() + kShort);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(line_count(r.out), 1) << r.out;
    EXPECT_TRUE(contains(r.out, "seed 1 could not run")) << r.out;
    EXPECT_TRUE(contains(r.out, "rlock_renew")) << r.out;
    EXPECT_FALSE(contains(r.out, "ok:")) << r.out;
  }
  const CliRun lua = run_locksim("campaign --backend lua --seeds 1 --scripts " + pack.string() + kShort);
  EXPECT_TRUE(contains(lua.out, "budget of 100000000 steps")) << lua.out;
}

TEST(CampaignLive, FlushallIsCaught) {
  const fs::path pack = pack_copy("flushall", "rlock_release.lua", "redis.call('FLUSHALL')\n");
  const CliRun r = run_locksim("campaign --backend live --seeds 5 --no-shrink --scripts " + pack.string() + kShort,
                               Stderr::Discard);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "FAILED: ")) << r.out;
}

// A command the lua backend does not implement: one line naming it and
// saying to run live, exit 2 (never a silent difference from Redis).
TEST(CampaignLive, UnsupportedCommandOnLuaIsOneLineExitTwo) {
  const fs::path pack = pack_copy("flushall", "rlock_release.lua", "redis.call('FLUSHALL')\n");
  const CliRun r = run_locksim("campaign --backend lua --seeds 5 --scripts " + pack.string() + kShort);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(line_count(r.out), 1) << r.out;
  EXPECT_TRUE(contains(r.out, "FLUSHALL")) << r.out;
  EXPECT_TRUE(contains(r.out, "--backend live")) << r.out;
  EXPECT_TRUE(contains(r.out, "rlock_release")) << r.out;
}

// The mutant pack on live: caught, shrunk on live to a short counterexample,
// and the failing seed's trace (backend live) replays.
TEST(CampaignLive, MutantPackIsCaughtShrunkAndReplayable) {
  const fs::path out = work_dir() / "mutant-out";
  fs::remove_all(out);
  const CliRun r = run_locksim("campaign --backend live --seeds 20 --json --scripts " +
                                   (kSource / "impl" / "mutants" / "release_no_publish").string() + " --out " +
                                   out.string() + kShort,
                               Stderr::Discard);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["failures"].empty()) << r.out;
  const auto& failure = j["failures"][0];
  ASSERT_FALSE(failure["counterexamples"].empty()) << r.out;
  EXPECT_EQ(failure["counterexamples"][0]["property"], "liveness") << r.out;
  EXPECT_LE(failure["counterexamples"][0]["events"].get<int>(), 20) << r.out;
  const std::string seed = std::to_string(failure["seed"].get<uint64_t>());
  const fs::path trace = out / "failures" / (seed + ".jsonl");
  ASSERT_TRUE(fs::exists(trace));
  EXPECT_TRUE(contains(locksim::testing::read_file(trace), "\"backend\":\"live\""));
  const CliRun replay = run_locksim("replay " + trace.string());
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  // The shrunk counterexample replays on live too (its explicit plan).
  const fs::path shrunk = out / "failures" / (seed + ".shrunk.jsonl");
  ASSERT_TRUE(fs::exists(shrunk));
  EXPECT_TRUE(contains(locksim::testing::read_file(shrunk), "\"backend\":\"live\""));
  const CliRun replay_shrunk = run_locksim("replay " + shrunk.string());
  EXPECT_EQ(replay_shrunk.exit_code, 0) << replay_shrunk.out;
  EXPECT_TRUE(contains(replay_shrunk.out, "violation: liveness")) << replay_shrunk.out;
  fs::remove_all(out);
}

TEST(CampaignLive, BothReportsTheDivergenceOfAMutantPack) {
  const CliRun r = run_locksim("campaign --backend both --seeds 20 --no-shrink --json --scripts " +
                                   (kSource / "impl" / "mutants" / "release_no_publish").string() + kShort,
                               Stderr::Discard);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["failures"].empty()) << r.out;
  const auto& d = j["failures"][0]["divergence"];
  ASSERT_TRUE(d.is_object()) << r.out;
  EXPECT_TRUE(contains(d["model"].get<std::string>(), "rlock_release")) << r.out;
  EXPECT_NE(d["model"], d["live"]) << r.out;
  const CliRun text = run_locksim("campaign --backend both --seeds 20 --no-shrink --scripts " +
                                      (kSource / "impl" / "mutants" / "release_no_publish").string() + kShort,
                                  Stderr::Discard);
  EXPECT_TRUE(contains(text.out, "the live history diverges from the model's")) << text.out;
  EXPECT_TRUE(contains(text.out, "divergence at event")) << text.out;
}

// Shrinking a divergence: smaller plans whose live and model histories still
// differ, down to a short counterexample that ends at the differing event.
TEST(CampaignLive, BothShrinksTheDivergence) {
  const CliRun r = run_locksim("campaign --backend both --seeds 20 --json --scripts " +
                                   (kSource / "impl" / "mutants" / "release_no_publish").string() + kShort,
                               Stderr::Discard);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["failures"].empty()) << r.out;
  const auto& f = j["failures"][0];
  ASSERT_TRUE(f["divergence"].is_object()) << r.out;
  const nlohmann::json* divergence = nullptr;
  for (const auto& cx : f["counterexamples"]) {
    if (cx["property"] == "divergence") divergence = &cx;
  }
  ASSERT_NE(divergence, nullptr) << f.dump();
  const size_t events = (*divergence)["events"];
  EXPECT_LE(events, 20u) << divergence->dump();
  EXPECT_LT(events, f["events"].get<size_t>());
  const std::string message = (*divergence)["violation"];
  EXPECT_TRUE(contains(message, "rlock_release")) << message;
  EXPECT_TRUE(contains(message, " vs live ")) << message;
}

// --match-variant: the mutant pack against its own model variant, which
// mirrors it: no divergence, but the mutant's bug still fails a property.
TEST(CampaignLive, BothWithMatchVariantComparesWithThePacksVariant) {
  const CliRun r = run_locksim("campaign --backend both --match-variant --seeds 20 --no-shrink --json --scripts " +
                                   (kSource / "impl" / "mutants" / "release_no_publish").string() + kShort,
                               Stderr::Discard);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["failures"].empty()) << r.out;
  EXPECT_FALSE(j["failures"][0].contains("divergence")) << r.out;
  EXPECT_EQ(j["failures"][0]["violations"][0]["property"], "liveness") << r.out;
  const CliRun alone = run_locksim("campaign --backend live --match-variant --seeds 2");
  EXPECT_EQ(alone.exit_code, 2) << alone.out;
  EXPECT_EQ(line_count(alone.out), 1) << alone.out;
}

// Seeds run in parallel, results are taken in seed order: --workers does not
// change a byte of the result, failures (kept going) and the counterexample
// shrunk on the campaign's backend included; and live gives what the model
// gives (same seeds, same histories).
TEST(CampaignLive, WorkersDoNotChangeTheResult) {
  std::string first;
  for (const char* backend : {"live", "model"}) {
    const std::string args = std::string("campaign --backend ") + backend +
                             " --seeds 40 --profile hostile --lock mixed --locks 2 --duration-ms 3000 "
                             "--keep-going --json";
    const CliRun one = run_locksim(args + " --workers 1", Stderr::Discard);
    const CliRun two = run_locksim(args + " --workers 2", Stderr::Discard);
    const CliRun three = run_locksim(args + " --workers 3", Stderr::Discard);
    ASSERT_EQ(one.exit_code, 1) << "seed 22 fails: " << one.out;
    EXPECT_TRUE(contains(one.out, "\"counterexamples\"")) << one.out;
    EXPECT_EQ(two.exit_code, 1) << backend;
    EXPECT_EQ(one.out, two.out) << backend;
    EXPECT_EQ(one.out, three.out) << backend;
    auto j = nlohmann::json::parse(one.out);
    EXPECT_EQ(j["backend"], backend);
    j.erase("backend");
    if (first.empty()) first = j.dump();
    EXPECT_EQ(first, j.dump()) << "live and model differ";
  }
}

TEST(CampaignLive, BadInputIsOneLineExitTwo) {
  for (const std::string args : {"--workers 0", "--workers 65", "--workers two", "--backend bogus", "--backend ''"}) {
    const CliRun r = run_locksim("campaign --seeds 2 " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << args << ": " << r.out;
  }
  const CliRun bogus = run_locksim("campaign --seeds 2 --backend bogus");
  EXPECT_TRUE(contains(bogus.out, "unknown backend 'bogus' (model, lua, live, both")) << bogus.out;
  for (const std::string args : {"--backend lua,lua", "--backend lua,", "--backend lua,model,live",
                                 "--backend lua --match-variant"}) {
    const CliRun r = run_locksim("campaign --seeds 2 " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << args << ": " << r.out;
  }
}

}  // namespace
