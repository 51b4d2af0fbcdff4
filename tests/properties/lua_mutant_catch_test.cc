// The lua backend catches every script mutant pack exactly as live Redis
// does: `campaign --backend lua --scripts impl/mutants/NAME` and the same
// campaign with --backend live give the same JSON result (first failing
// seed, every violation, every shrunk counterexample, event for event), on
// the settings of tests/properties/live_mutant_catch_test.cc. The stale-purge
// mutant's campaign shrinks a 200,000-event poll storm (about 10 s on lua,
// minutes on live), so by default it runs here on lua alone, unshrunk
// (caught); LOCKSIM_LUA_MUTANTS_ALL=1 shrinks it and compares it with live
// too (README, Script packs).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::run_locksim;
using locksim::testing::Stderr;

const fs::path kSource = LOCKSIM_SOURCE_DIR;

struct Catch {
  std::string mutant;
  std::string settings;
  bool quick_on_live;  // compared with live in the default suite
};

const std::vector<Catch> kCatches = {
    {"release_no_owner_check", "--profile pauses --lock rlock --unexplained-only", true},
    {"renew_no_owner_check", "--profile pauses --lock rlock --unexplained-only", true},
    {"release_no_publish", "--profile none --lock rlock", true},
    {"reentry_no_expiry_reset", "--profile none --lock rlock", true},
    {"fair_same_deadline", "--profile none --lock fair", true},
    {"fair_no_stale_purge", "--profile safe --lock fair --clients 2", false},
    {"fair_ttl_from_deadline", "--profile hostile --lock fair --clients 2 --unexplained-only", true},
};

nlohmann::json campaign(const std::string& backend, const Catch& c, bool shrink) {
  const CliRun r = run_locksim("campaign --backend " + backend + " --seeds 2000 --json " + c.settings +
                                   " --scripts " + (kSource / "impl" / "mutants" / c.mutant).string() +
                                   (shrink ? "" : " --no-shrink"),
                               Stderr::Discard);
  EXPECT_EQ(r.exit_code, 1) << c.mutant << " on " << backend << ": " << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  if (j.is_discarded()) return nlohmann::json::object();
  EXPECT_EQ(j["backend"], backend);
  j.erase("backend");
  return j;
}

TEST(LuaMutantCatch, EveryMutantPackIsListed) {
  size_t packs = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "impl" / "mutants")) {
    if (!entry.is_directory()) continue;
    ++packs;
    bool listed = false;
    for (const Catch& c : kCatches) listed = listed || c.mutant == entry.path().filename().string();
    EXPECT_TRUE(listed) << entry.path();
  }
  EXPECT_EQ(packs, kCatches.size());
}

TEST(LuaMutantCatch, EveryMutantIsCaughtOnLuaAsOnLive) {
  const char* all = std::getenv("LOCKSIM_LUA_MUTANTS_ALL");
  const bool compare_all = all != nullptr && std::string(all) == "1";
  for (const Catch& c : kCatches) {
    const bool compare = c.quick_on_live || compare_all;
    const nlohmann::json lua = campaign("lua", c, compare);
    ASSERT_FALSE(lua["failures"].empty()) << c.mutant;
    const nlohmann::json& first = lua["failures"][0];
    EXPECT_LE(first["seed"].get<uint64_t>(), 2000u) << c.mutant;
    if (!compare) continue;
    size_t shortest = SIZE_MAX;
    for (const auto& cx : first["counterexamples"]) shortest = std::min(shortest, cx["events"].get<size_t>());
    EXPECT_LE(shortest, 20u) << c.mutant << ": " << first["counterexamples"].dump().substr(0, 2000);
    const nlohmann::json live = campaign("live", c, true);
    EXPECT_TRUE(lua == live) << c.mutant << ": lua and live campaigns differ\n  lua:  " << lua.dump().substr(0, 3000)
                             << "\n  live: " << live.dump().substr(0, 3000);
  }
}

}  // namespace
