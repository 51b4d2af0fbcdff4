// The one-machine recipe of docs/running-at-scale.md, run for real: the
// page's GNU parallel block (fewer seeds) runs the shards at once, the merge
// combines them, and the merged run equals the same campaign run whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void replace_all(std::string* text, const std::string& from, const std::string& to) {
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

TEST(ParallelRecipe, ShardsRunWithGnuParallelMergeToTheWholeCampaign) {
  ASSERT_EQ(std::system("command -v parallel > /dev/null"), 0) << "GNU parallel is not installed (tools/setup-deps.sh installs it)";
  const std::string page = read(fs::path(LOCKSIM_SOURCE_DIR) / "docs/running-at-scale.md");
  const size_t intro = page.find("with GNU parallel");
  ASSERT_NE(intro, std::string::npos);
  const size_t start = page.find("```sh\n", intro) + 6;
  std::string recipe = page.substr(start, page.find("```", start) - start);
  ASSERT_NE(recipe.find("--seeds 20000"), std::string::npos) << recipe;
  replace_all(&recipe, "--seeds 20000", "--seeds 120");
  replace_all(&recipe, "./build/tools/locksim", LOCKSIM_CLI_PATH);
  const fs::path dir = fs::temp_directory_path() / ("locksim-parallel-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "recipe.sh") << recipe;
  // parallel's exit status counts failing shards (1: a property failed): the
  // merge's verdict is what matters.
  const int status = std::system(("cd " + dir.string() + " && bash recipe.sh > recipe.out 2>&1").c_str());
  const std::string out = read(dir / "recipe.out");
  ASSERT_TRUE(fs::exists(dir / "runs/hostile/all/summary.json")) << "status " << status << "\n" << out;
  const auto whole = locksim::testing::run_locksim(
      "campaign --profile hostile --lock mixed --locks 2 --seeds 120 --keep-going --out " + (dir / "whole").string(),
      locksim::testing::Stderr::Discard);
  ASSERT_TRUE(whole.exit_code == 0 || whole.exit_code == 1) << whole.out;
  const auto merged = nlohmann::json::parse(read(dir / "runs/hostile/all/summary.json"));
  const auto single = nlohmann::json::parse(read(dir / "whole/summary.json"));
  EXPECT_EQ(merged.at("counts"), single.at("counts"));
  EXPECT_EQ(merged.at("properties"), single.at("properties"));
  EXPECT_EQ(merged.at("vacuous"), single.at("vacuous"));
  const auto seeds = [](const nlohmann::json& s) {
    std::vector<uint64_t> out;
    for (const auto& f : s.at("failures")) out.push_back(f.at("seed").get<uint64_t>());
    return out;
  };
  EXPECT_EQ(seeds(merged), seeds(single));
  EXPECT_GT(merged.at("counts").at("seeds_failed").get<int>(), 0) << "hostile mixed: some seeds fail";
  fs::remove_all(dir);
}

}  // namespace
