// Issue 13, item 2: a divergence that does not happen again while shrinking
// (a script that answers at random) is reported, not asserted on: exit 1,
// "divergence did not reproduce (nondeterministic script?)", and the
// unshrunk steps of the run that diverged. Engine level on a flaky model
// backend (fast), and end to end on a pack whose rlock_renew.lua returns 7
// one time in 40.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/differential.h"
#include "sim/model_backend.h"
#include "tests/cli_runner.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The correct model, except that every `period`-th script answers 7: which
// step that hits depends on how many scripts ran before, not on the step.
class FlakyBackend final : public Backend {
 public:
  explicit FlakyBackend(int period) : period_(period) {}
  std::string name() const override { return "flaky"; }
  int server_count() const override { return 1; }
  ExecResult execute(int server, const ScriptCall& call, int64_t now_us) override {
    ExecResult r = model_.execute(server, call, now_us);
    if (++calls_ % period_ == 0) r.reply = Reply::of_int(7);
    return r;
  }
  std::vector<KeyState> snapshot(int server, int64_t now_us) override { return model_.snapshot(server, now_us); }
  void restart(int server) override { model_.restart(server); }
  void wipe() { model_.wipe(); }

 private:
  ModelBackend model_;
  int period_;
  long calls_ = 0;
};

TEST(DiffNondeterministic, EngineReportsTheUnshrunkRun) {
  ModelBackend reference;
  FlakyBackend flaky(97);
  DiffOptions options;
  options.sequences = 50;
  options.length = 40;
  const DiffReport r = run_differential(options, DiffSide{&reference, [&] { reference.wipe(); }},
                                        DiffSide{&flaky, [&] { flaky.wipe(); }});
  ASSERT_EQ(r.divergences, 1);
  EXPECT_FALSE(r.reproduced);
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_EQ(r.counterexample->steps.size(), r.original_length);
  ASSERT_TRUE(r.counterexample_run.diverged_at.has_value());
  EXPECT_EQ(*r.counterexample_run.diverged_at + 1, r.original_length);
  EXPECT_EQ(r.counterexample_run.records.size(), r.original_length);
  const std::string text = format_counterexample(r, "model", "flaky");
  EXPECT_TRUE(contains(text, "divergence did not reproduce (nondeterministic script?)")) << text;
  EXPECT_TRUE(contains(text, "step " + std::to_string(r.original_length) + ":")) << text;
  EXPECT_TRUE(contains(text, "DIVERGES at step " + std::to_string(r.original_length))) << text;
}

TEST(DiffNondeterministic, DeterministicDivergenceStillShrinks) {
  ModelBackend reference;
  ModelBackend mutant(1, ModelVariant::ReleaseNoPublish);
  DiffOptions options;
  options.sequences = 200;
  const DiffReport r = run_differential(options, DiffSide{&reference, [&] { reference.wipe(); }},
                                        DiffSide{&mutant, [&] { mutant.wipe(); }});
  ASSERT_EQ(r.divergences, 1);
  EXPECT_TRUE(r.reproduced);
  EXPECT_FALSE(contains(format_counterexample(r, "a", "b"), "did not reproduce"));
}

// A copy of our pack whose rlock_renew answers 7 at random, one time in 40.
fs::path random_reply_pack() {
  const fs::path dir = fs::path(LOCKSIM_BINARY_DIR) / "diff_nondeterministic" / "pack";
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  fs::copy(fs::path(LOCKSIM_SOURCE_DIR) / "impl" / "lua", dir);
  const std::string renew = testing::read_file(dir / "rlock_renew.lua");
  std::ofstream(dir / "rlock_renew.lua", std::ios::trunc)
      << "if math.random(1,40) == 1 then return 7 end\n" << renew;
  return dir;
}

TEST(DiffNondeterministic, CliExits1WithTheUnshrunkSteps) {
  const fs::path pack = random_reply_pack();
  for (const char* seed : {"1", "2", "3"}) {
    const testing::CliRun r = testing::run_locksim("diff --scripts " + pack.string() + " --seed " + seed);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(contains(r.out, "divergence did not reproduce (nondeterministic script?)")) << r.out;
    EXPECT_TRUE(contains(r.out, "DIVERGES at step")) << r.out;
    EXPECT_TRUE(contains(r.out, "step 1:")) << r.out;
    EXPECT_FALSE(contains(r.out, "Assertion")) << r.out;
  }
  const testing::CliRun j = testing::run_locksim("diff --scripts " + pack.string() + " --json",
                                                 testing::Stderr::Discard);
  EXPECT_EQ(j.exit_code, 1) << j.out;
  const auto summary = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << j.out;
  EXPECT_EQ(summary["reproduced"], false) << j.out;
  fs::remove_all(pack.parent_path());
}

// The other way to reach the assertion: a "shim" that is not one. Now the
// start-up clock probe refuses the server: exit 3 (the environment).
TEST(DiffNondeterministic, ShimThatIsNoShimExits3) {
  const testing::CliRun r =
      testing::run_locksim("diff --sequences 20", testing::Stderr::Merge, "LOCKSIM_VCLOCK_SHIM=/etc/passwd");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "virtual clock")) << r.out;
  EXPECT_FALSE(contains(r.out, "Assertion")) << r.out;
}

}  // namespace
}  // namespace locksim
