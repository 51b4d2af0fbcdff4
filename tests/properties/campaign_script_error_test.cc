// A pack that only errors is never an all-clear (hardening, round 2, item
// 9). Live campaigns over copies of our pack whose acquire answers
// redis.error_reply, calls a command Redis forbids in scripts, hits
// WRONGTYPE, or answers a RESP3 map instead of nil/TTL: each exits 1. The
// errors fail the script_error property and are counted in the summary; a
// campaign in which no operation ever succeeded is VACUOUS and fails even
// when the error is one the pack declares (manifest "errors"), unless
// --allow-vacuous. Our own pack: no script error, not vacuous.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"
#include "traces/byte_text.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

const fs::path kSource = LOCKSIM_SOURCE_DIR;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::path work_dir() { return fs::path(LOCKSIM_BINARY_DIR) / "campaign_script_error"; }

// A copy of our pack named `name` whose acquire starts with `prefix`.
fs::path pack_with_acquire_prefix(const std::string& name, const std::string& prefix) {
  const fs::path dir = work_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kSource / "impl" / "lua", dir, fs::copy_options::recursive);
  const std::string text = read_file(dir / "rlock_acquire.lua");
  std::ofstream(dir / "rlock_acquire.lua", std::ios::trunc) << prefix << "\n" << text;
  return dir;
}

nlohmann::json run_live(const fs::path& pack, CliRun* r, const std::string& extra = "") {
  const fs::path out = work_dir() / (pack.filename().string() + "-out");
  fs::remove_all(out);
  *r = run_locksim("campaign --backend live --scripts " + pack.string() + " --seeds 2 --profile safe --no-shrink " +
                   extra + " --out " + out.string());
  return nlohmann::json::parse(read_file(out / "summary.json"), nullptr, false);
}

TEST(CampaignScriptError, APackThatOnlyErrorsFails) {
  struct Case {
    std::string name, prefix, error;
  };
  const Case cases[] = {
      {"error_reply", "if true then return redis.error_reply('boom') end", "answered an error: ERR boom"},
      {"forbidden", "redis.call('SUBSCRIBE', 'x')", "not allowed from script"},
      {"wrongtype", "redis.call('SET', KEYS[1] .. 'x', 'a'); redis.call('HINCRBY', KEYS[1] .. 'x', 'f', 1)",
       "WRONGTYPE"},
  };
  for (const Case& c : cases) {
    CliRun r;
    const nlohmann::json s = run_live(pack_with_acquire_prefix(c.name, c.prefix), &r);
    EXPECT_EQ(r.exit_code, 1) << c.name << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "violation: script_error")) << c.name << ": " << r.out;
    EXPECT_TRUE(contains(r.out, c.error)) << c.name << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "VACUOUS: no operation succeeded")) << c.name << ": " << r.out;
    EXPECT_FALSE(contains(r.out, "no property failed")) << c.name << ": " << r.out;
    ASSERT_FALSE(s.is_discarded()) << c.name;
    EXPECT_GT(s["counts"]["script_errors"].get<uint64_t>(), 0u) << c.name;
    EXPECT_EQ(s["counts"]["operations_ok"], 0) << c.name;
    EXPECT_EQ(s["vacuous"], true) << c.name;
    EXPECT_EQ(s["properties"]["script_error"]["result"], "fail") << c.name;
    // The report says so too.
    const std::string html = read_file(work_dir() / (c.name + "-out") / "report.html");
    EXPECT_TRUE(contains(html, "VACUOUS: no operation succeeded")) << c.name;
    EXPECT_TRUE(contains(html, "script errors: " + std::to_string(s["counts"]["script_errors"].get<uint64_t>()) +
                                   " script execution(s) answered an error"))
        << c.name;
    EXPECT_TRUE(contains(html, "<tr><td>script_error</td><td class=\"fail\">fail</td>")) << c.name;
  }
}

// A RESP3 map where the acquire answers nil or a TTL: no error, but nothing
// is ever acquired.
TEST(CampaignScriptError, AnAcquireThatNeverGrantsIsVacuous) {
  CliRun r;
  const nlohmann::json s =
      run_live(pack_with_acquire_prefix("resp3_map", "redis.setresp(3); if true then return redis.call('HGETALL', KEYS[1]) end"), &r);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "VACUOUS: no operation succeeded")) << r.out;
  EXPECT_EQ(s["vacuous"], true);
}

// The pack declares the error part of its conventions: not a script_error,
// still vacuous; --allow-vacuous accepts that (exit 0, and says so).
TEST(CampaignScriptError, DeclaredErrorsAreConventionsButVacuityStillFails) {
  const fs::path pack = pack_with_acquire_prefix("declared", "if true then return redis.error_reply('LOCKED busy') end");
  nlohmann::json manifest = nlohmann::json::parse(read_file(pack / "manifest.json"));
  manifest["scripts"]["rlock_acquire"]["errors"] = {"LOCKED"};
  std::ofstream(pack / "manifest.json", std::ios::trunc) << manifest.dump(2);
  CliRun r;
  nlohmann::json s = run_live(pack, &r);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_FALSE(contains(r.out, "violation: script_error")) << r.out;
  EXPECT_TRUE(contains(r.out, "VACUOUS")) << r.out;
  EXPECT_EQ(s["properties"]["script_error"]["result"], "pass");
  s = run_live(pack, &r, "--allow-vacuous");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "vacuous (accepted by --allow-vacuous)")) << r.out;
  EXPECT_TRUE(contains(s["command"].get<std::string>(), "--allow-vacuous"));
}

TEST(CampaignScriptError, OurPackHasNoScriptErrors) {
  CliRun r;
  const nlohmann::json s = run_live(kSource / "impl" / "lua", &r);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(s["counts"]["script_errors"], 0);
  EXPECT_GT(s["counts"]["operations_ok"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["vacuous"], false);
}

}  // namespace

namespace {

bool control_free_utf8(const std::string& text) {
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 && b != '\n' && b != '\t' && b != '\r') return false;
  }
  return locksim::is_valid_utf8(text);
}

// Hardening, round 2, item 7: a reply with a NUL, bytes that are not UTF-8
// and control characters (a terminal escape) breaks nothing: the verdict is
// printed whole with the bytes made visible, every output is written (DOT
// renders, summary.json is valid JSON, SVGs and report.html are valid UTF-8
// with no control character), and the trace replays exactly.
TEST(CampaignScriptError, HostileBytesInRepliesBreakNoOutput) {
  const fs::path error_pack = pack_with_acquire_prefix(
      "bytes_error", "if true then return redis.error_reply('bad \\255\\254 \\1\\27[31m \"q\" <x> & end') end");
  const fs::path bulk_pack =
      pack_with_acquire_prefix("bytes_bulk", "if true then return 'bad\\0nul \\255\\254 \\1\\27[31m \"q\" <x> &' end");
  for (const fs::path& pack : {error_pack, bulk_pack}) {
    CliRun r;
    const nlohmann::json s = run_live(pack, &r);
    EXPECT_EQ(r.exit_code, 1) << r.out;  // a verdict, not an output error (2)
    EXPECT_TRUE(control_free_utf8(r.out)) << r.out;
    ASSERT_FALSE(s.is_discarded()) << pack;
    const fs::path out = work_dir() / (pack.filename().string() + "-out");
    for (const auto& entry : fs::recursive_directory_iterator(out)) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      if (name.size() > 4 && (name.substr(name.size() - 4) == ".svg" || name == "report.html")) {
        EXPECT_TRUE(control_free_utf8(read_file(entry.path()))) << entry.path();
      }
      if (name.size() > 6 && name.substr(name.size() - 6) == ".jsonl") {
        const CliRun replay = run_locksim("replay " + entry.path().string());
        EXPECT_EQ(replay.exit_code, 0) << entry.path() << ": " << replay.out;
      }
    }
  }
  CliRun r;
  run_live(error_pack, &r);
  EXPECT_TRUE(contains(r.out, "answered an error: bad \\xff\\xfe \\x01\\x1b[31m \"q\" <x> & end")) << r.out;
}

}  // namespace
