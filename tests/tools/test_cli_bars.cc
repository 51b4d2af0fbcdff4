// The bars (docs/campaigns.md, "Verdicts on correct code: the bars"): every
// row of the page's table is run as the page says, and on our correct
// scripts and client it must leave nothing unexplained and explain exactly
// the number of violations the row shows. A false alarm on correct code, or
// a row the code no longer matches, fails here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::run_locksim;
using locksim::testing::Stderr;

int64_t without_commas(std::string text) {
  std::erase(text, ',');
  return std::stoll(text);
}

TEST(CliBars, EveryRowOfTheBarsIsTrue) {
  std::ifstream page(std::string(LOCKSIM_SOURCE_DIR) + "/docs/campaigns.md");
  ASSERT_TRUE(page.good());
  const std::regex row(R"(^\| `([a-z-]+)` \| `([^`]+)` \| ([\d,]+) \| ([\d,]+) \| 0 \|$)");
  const fs::path out = fs::temp_directory_path() / ("locksim-bars-" + std::to_string(::getpid()));
  std::string line;
  int rows = 0;
  while (std::getline(page, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    ++rows;
    const std::string profile = m[1], flags = m[2];
    SCOPED_TRACE(profile + " " + flags);
    fs::remove_all(out);
    // The page's command: locksim campaign --seeds N --profile P FLAGS
    // --keep-going --no-shrink --unexplained-only --workers 2.
    auto r = run_locksim("campaign --seeds " + std::to_string(without_commas(m[3])) + " --profile " + profile + " " +
                             flags + " --keep-going --no-shrink --unexplained-only --workers 2 --json --out " +
                             out.string(),
                         Stderr::Discard);
    fs::remove_all(out);
    EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000);
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.out.substr(0, 2000);
    EXPECT_EQ(j["results"]["unexplained"], 0);
    EXPECT_EQ(j["results"]["explained"].get<int64_t>(), without_commas(m[4]));
  }
  EXPECT_EQ(rows, 11);
}

}  // namespace
