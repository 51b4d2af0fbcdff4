// --fair-slot-ms / Scenario::fair_slot_ms: a fixed fair-lock slot reaches the
// client (every fair script gets wait_ms = the slot), is recorded in the
// trace header only when set (older traces read and write unchanged), and
// replays; out-of-range values are refused.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.h"
#include "tests/cli_runner.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

using testing::TempDir;

TEST(FairSlotOption, ScenarioJsonOnlyWhenSet) {
  Scenario s;
  s.lock_kind = ScenarioLockKind::Fair;
  EXPECT_FALSE(scenario_to_json(s).contains("fair_slot_ms"));
  s.fair_slot_ms = 5000;
  const nlohmann::json j = scenario_to_json(s);
  EXPECT_EQ(j["fair_slot_ms"], 5000);
  EXPECT_EQ(scenario_from_json(j), s);
  nlohmann::json bad = j;
  bad["fair_slot_ms"] = -1;
  EXPECT_THROW(scenario_from_json(bad), ScenarioError);
  bad["fair_slot_ms"] = "5000";
  EXPECT_THROW(scenario_from_json(bad), ScenarioError);
}

TEST(FairSlotOption, RunRecordsAndUsesTheSlot) {
  TempDir dir;
  const std::string with = dir.path("with.jsonl");
  const std::string without = dir.path("without.jsonl");
  auto r = testing::run_locksim("run --seed 1 --lock fair --duration-s 10 --fair-slot-ms 5000 --trace " + with);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = testing::run_locksim("run --seed 1 --lock fair --duration-s 10 --trace " + without);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string a = read_all(with);
  const std::string b = read_all(without);
  EXPECT_NE(a.find("\"fair_slot_ms\":5000"), std::string::npos);
  EXPECT_EQ(b.find("fair_slot_ms"), std::string::npos);
  // Every fair script of the run with the option got the fixed slot.
  EXPECT_NE(a.find("\"wait\":5000,"), std::string::npos);
  size_t fair_scripts = 0;
  for (size_t at = a.find("\"sc\":\"fair_acquire\""); at != std::string::npos;
       at = a.find("\"sc\":\"fair_acquire\"", at + 1)) {
    const size_t line_start = a.rfind('\n', at);
    EXPECT_NE(a.substr(line_start, at - line_start).find("\"wait\":5000,"), std::string::npos);
    ++fair_scripts;
  }
  EXPECT_GT(fair_scripts, 0u);
  r = testing::run_locksim("replay " + with);
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(FairSlotOption, BadValuesAreExitTwo) {
  auto r = testing::run_locksim("run --seed 1 --lock fair --fair-slot-ms -5 --trace /dev/null");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = testing::run_locksim("campaign --seeds 1 --profile none --lock fair --fair-slot-ms 86400001");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = testing::run_locksim("campaign --seeds 2 --profile none --lock fair --fair-slot-ms 5000 --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// A pack's manifest can fix the slot ("settings": {"fair_slot_ms": S});
// --fair-slot-ms still overrides it, 0 included.
TEST(FairSlotOption, PackSettingsFixTheSlotAndTheFlagOverridesThem) {
  TempDir dir;
  const fs::path pack = dir.path("pack");
  fs::create_directories(pack);
  for (const auto& entry : fs::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua")) {
    fs::copy_file(entry.path(), pack / entry.path().filename());
  }
  nlohmann::json manifest = nlohmann::json::parse(read_all((pack / "manifest.json").string()));
  manifest["settings"] = {{"fair_slot_ms", 5000}};
  std::ofstream((pack / "manifest.json").string()) << manifest.dump();
  const std::string base = "run --seed 1 --lock fair --duration-s 10 --scripts " + pack.string() + " --trace ";
  auto r = testing::run_locksim(base + dir.path("pack.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(read_all(dir.path("pack.jsonl")).find("\"fair_slot_ms\":5000"), std::string::npos);
  EXPECT_NE(read_all(dir.path("pack.jsonl")).find("\"wait\":5000,"), std::string::npos);
  r = testing::run_locksim(base + dir.path("zero.jsonl") + " --fair-slot-ms 0");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_all(dir.path("zero.jsonl")).find("fair_slot_ms"), std::string::npos);
  r = testing::run_locksim(base + dir.path("two.jsonl") + " --fair-slot-ms 2000");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(read_all(dir.path("two.jsonl")).find("\"fair_slot_ms\":2000"), std::string::npos);
  // The campaign's recorded command keeps an explicit 0 (it overrides the pack).
  r = testing::run_locksim("campaign --seeds 1 --lock fair --duration-ms 5000 --fair-slot-ms 0 --scripts " +
                           pack.string() + " --out " + dir.path("c"));
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out;
  EXPECT_NE(read_all(dir.path("c") + "/summary.json").find("--fair-slot-ms 0"), std::string::npos);
  // Bad settings are named.
  for (const auto& [settings, word] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"fair_slot_ms", -5}}, "\"fair_slot_ms\" must be an integer"},
           {{{"fair_slot_ms", "5000"}}, "\"fair_slot_ms\" must be an integer"},
           {{{"slot", 5}}, "unknown setting \"slot\""},
           {nlohmann::json::array(), "\"settings\" must be an object"}}) {
    manifest["settings"] = settings;
    std::ofstream((pack / "manifest.json").string()) << manifest.dump();
    r = testing::run_locksim(base + dir.path("bad.jsonl"));
    EXPECT_EQ(r.exit_code, 2) << settings.dump() << "\n" << r.out;
    EXPECT_NE(r.out.find(word), std::string::npos) << settings.dump() << "\n" << r.out;
  }
}

}  // namespace
}  // namespace locksim
