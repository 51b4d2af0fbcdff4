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
#include "tests/properties/mutant_catches.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::run_locksim;
using locksim::testing::Stderr;

const fs::path kSource = LOCKSIM_SOURCE_DIR;

using Catch = locksim::testing::MutantCatch;
const std::vector<Catch>& kCatches = locksim::testing::mutant_catches();

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

TEST(LuaMutantCatch, EveryMutantIsCaughtOnLuaAsOnLive) {
  const char* all = std::getenv("LOCKSIM_LUA_MUTANTS_ALL");
  const bool compare_all = all != nullptr && std::string(all) == "1";
  for (const Catch& c : kCatches) {
    const bool compare = c.quick_to_shrink || compare_all;
    const nlohmann::json lua = campaign("lua", c, compare);
    ASSERT_FALSE(lua["failures"].empty()) << c.mutant;
    const nlohmann::json& first = lua["failures"][0];
    EXPECT_LE(first["seed"].get<uint64_t>(), 2000u) << c.mutant;
    if (!compare) continue;
    size_t shortest = SIZE_MAX;
    for (const auto& cx : first["counterexamples"]) shortest = std::min(shortest, cx["events"].get<size_t>());
    EXPECT_LE(shortest, c.max_events) << c.mutant << ": " << first["counterexamples"].dump().substr(0, 2000);
    const nlohmann::json live = campaign("live", c, true);
    EXPECT_TRUE(lua == live) << c.mutant << ": lua and live campaigns differ\n  lua:  " << lua.dump().substr(0, 3000)
                             << "\n  live: " << live.dump().substr(0, 3000);
  }
}

}  // namespace
