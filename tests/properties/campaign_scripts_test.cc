// Issue 13, item 7: `campaign --backend model --scripts PACK` runs on the
// model, never the pack's Lua, so it refuses a pack the model cannot stand
// for (exit 2, one clear line, no output written), exactly as
// `run --backend model` does (without --backend such a pack runs its own
// Lua on the lua backend: tests/properties/campaign_live_test.cc):
// copies of our pack with a syntax error, an infinite loop or a FLUSHALL, and
// a copy of a mutant pack (it names its model variant) with an edited script.
// Packs the model does stand for still run: our pack, a mutant pack and an
// unedited copy of one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::run_locksim;

const fs::path kSource = LOCKSIM_SOURCE_DIR;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::path work_dir() { return fs::path(LOCKSIM_BINARY_DIR) / "campaign_scripts"; }

// A copy of `from` named `name` whose `script` starts with `prefix`.
fs::path broken_copy(const fs::path& from, const std::string& name, const std::string& script,
                     const std::string& prefix) {
  const fs::path dir = work_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(from, dir, fs::copy_options::recursive);
  const std::string text = locksim::testing::read_file(dir / script);
  std::ofstream(dir / script, std::ios::trunc) << prefix << text;
  return dir;
}

TEST(CampaignScripts, PackTheModelCannotStandForIsRefused) {
  const fs::path lua = kSource / "impl" / "lua";
  const fs::path packs[] = {
      broken_copy(lua, "syntax", "rlock_acquire.lua", "this is not lua (\n"),
      broken_copy(lua, "loop", "rlock_renew.lua", "while true do end\n"),
      broken_copy(lua, "flushall", "rlock_release.lua", "redis.call('FLUSHALL')\n"),
  };
  for (const fs::path& pack : packs) {
    const fs::path out = work_dir() / (pack.filename().string() + "-out");
    fs::remove_all(out);
    const CliRun r = run_locksim("campaign --backend model --seeds 5 --profile safe --scripts " + pack.string() +
                                 " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << pack << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "model cannot stand for")) << r.out;
    EXPECT_TRUE(contains(r.out, pack.string())) << r.out;
    EXPECT_EQ(locksim::testing::line_count(r.out), 1) << r.out;
    EXPECT_FALSE(contains(r.out, "no property failed")) << r.out;
    EXPECT_FALSE(fs::exists(out)) << "wrote outputs for a refused pack";
    // The same refusal as `run --backend model`.
    const CliRun run = run_locksim("run --backend model --seed 1 --duration-s 1 --scripts " + pack.string() + " --trace " +
                                   (work_dir() / "t.jsonl").string());
    EXPECT_EQ(run.exit_code, 2) << run.out;
    EXPECT_TRUE(contains(run.out, "model cannot stand for")) << run.out;
  }
  fs::remove_all(work_dir());
}

// A pack that names a model variant but whose Lua is not the variant's own
// (a copied mutant pack, then edited) is refused too; an unedited copy runs.
TEST(CampaignScripts, EditedCopyOfAMutantPackIsRefused) {
  const fs::path base = fs::path(LOCKSIM_BINARY_DIR) / "campaign_scripts_copies";
  fs::remove_all(base);
  fs::create_directories(base / "mutants");
  fs::copy(kSource / "impl" / "lua", base / "lua", fs::copy_options::recursive);
  const fs::path mutant = kSource / "impl" / "mutants" / "release_no_publish";
  fs::copy(mutant, base / "mutants" / "same", fs::copy_options::recursive);
  const CliRun same = run_locksim("campaign --seeds 20 --scripts " + (base / "mutants" / "same").string(),
                                  locksim::testing::Stderr::Discard);
  EXPECT_EQ(same.exit_code, 1) << same.out;
  EXPECT_TRUE(contains(same.out, "liveness")) << same.out;

  fs::copy(mutant, base / "mutants" / "edited", fs::copy_options::recursive);
  std::ofstream(base / "mutants" / "edited" / "rlock_release.lua", std::ios::app) << "-- edited\n";
  const CliRun edited =
      run_locksim("campaign --backend model --seeds 20 --scripts " + (base / "mutants" / "edited").string());
  EXPECT_EQ(edited.exit_code, 2) << edited.out;
  EXPECT_TRUE(contains(edited.out, "says it is model variant 'release_no_publish', but its rlock_release")) << edited.out;
  EXPECT_TRUE(contains(edited.out, "model cannot stand for")) << edited.out;

  // A script it shares with our pack (through ../../lua) counts too.
  std::ofstream(base / "lua" / "rlock_acquire.lua", std::ios::app) << "-- edited\n";
  const CliRun shared =
      run_locksim("campaign --backend model --seeds 20 --scripts " + (base / "mutants" / "same").string());
  EXPECT_EQ(shared.exit_code, 2) << shared.out;
  EXPECT_TRUE(contains(shared.out, "but its rlock_acquire")) << shared.out;
  fs::remove_all(base);
}

TEST(CampaignScripts, PacksTheModelStandsForStillRun) {
  const CliRun ours = run_locksim("campaign --seeds 3 --scripts " + (kSource / "impl" / "lua").string(),
                                  locksim::testing::Stderr::Discard);
  EXPECT_EQ(ours.exit_code, 0) << ours.out;
  const CliRun mutant = run_locksim(
      "campaign --seeds 20 --scripts " + (kSource / "impl" / "mutants" / "release_no_publish").string(),
      locksim::testing::Stderr::Discard);
  EXPECT_EQ(mutant.exit_code, 1) << mutant.out;
  EXPECT_TRUE(contains(mutant.out, "liveness")) << mutant.out;
}

TEST(CampaignScripts, PackAndMutantMustAgree) {
  const CliRun r = run_locksim("campaign --seeds 3 --scripts " + (kSource / "impl" / "lua").string() +
                               " --mutant renew_no_owner_check");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "but --mutant is 'renew_no_owner_check'")) << r.out;
}

}  // namespace
