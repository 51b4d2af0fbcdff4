// Issue 13, bad input to the command line: each case exits 2 with one line
// that names the problem, never crashes, and leaves no file behind.
//   1  a header nested 100,000 levels deep (replay, timeline, check)
//   6  /dev/zero and other endless lines (bounded reading, correct message)
//  10  loose header types: 4294967300 clients, floats, booleans
//  11  out-of-range numbers on every numeric option of every subcommand
//  12  a script-pack `file` that is a directory
//  also: an unknown subcommand is named; times at the end of time and huge
//  leases are checked and drawn without overflow
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

class HostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-hostile-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    trace_ = path("t.jsonl");
    const auto r = run_locksim("run --seed 1 --duration-s 20 --trace " + trace_);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const std::string text = read_file(trace_);
    header_ = text.substr(0, text.find('\n'));
    body_ = text.substr(text.find('\n') + 1);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  // The trace with `from` replaced by `to` in its header.
  std::string with_header(const std::string& name, const std::string& from, const std::string& to) const {
    std::string header = header_;
    const size_t at = header.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    header.replace(at, from.size(), to);
    return write(name, header + "\n" + body_);
  }
  // Exit 2, exactly one line, holding every key word.
  static void expect_one_line_exit2(const std::string& args, const std::vector<std::string>& words) {
    const auto r = run_locksim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_EQ(line_count(r.out), 1) << args << "\n" << r.out;
    for (const auto& w : words) EXPECT_NE(r.out.find(w), std::string::npos) << args << ": no '" << w << "' in " << r.out;
  }
  // Nothing but the given names in the directory.
  void expect_only(const std::vector<std::string>& names) const {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      ++n;
      EXPECT_NE(std::find(names.begin(), names.end(), entry.path().filename().string()), names.end())
          << "left behind: " << entry.path();
    }
    EXPECT_EQ(n, names.size());
  }

  fs::path dir_;
  std::string trace_;
  std::string header_;
  std::string body_;
};

TEST_F(HostileInput, DeeplyNestedHeaderIsOneLineExit2) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const std::string n = write("n.jsonl", R"({"format":"locksim-trace","version":1,"seed":1,"build":"0.1.0",)"
                                         R"("backend":"model","scenario":)" + deep + "}\n");
  const std::string f = write("f.jsonl", R"({"format":)" + deep + "}\n");
  for (const std::string& file : {n, f}) {
    expect_one_line_exit2("replay " + file, {file + ":1:", "nested deeper than 64 levels"});
    expect_one_line_exit2("check " + file, {file + ":1:", "nested deeper than 64 levels"});
    expect_one_line_exit2("timeline " + file + " -o " + path("n.svg"), {file + ":1:", "nested deeper than 64 levels"});
  }
  expect_only({"t.jsonl", "n.jsonl", "f.jsonl"});
}

TEST_F(HostileInput, DevZeroFailsFastWithTheBound) {
  for (const char* cmd : {"replay /dev/zero", "check /dev/zero"}) {
    expect_one_line_exit2(std::string(cmd), {"/dev/zero:1:", "header line longer than 1048576 bytes"});
  }
  expect_one_line_exit2("timeline /dev/zero -o " + path("z.svg"), {"/dev/zero:1:", "longer than 1048576 bytes"});
  const auto r = run_locksim("replay /dev/zero");
  EXPECT_EQ(r.out.find("empty file"), std::string::npos) << r.out;
  // An event line past its bound (64 MiB) is named with its line number.
  {
    std::ofstream out(path("long.jsonl"), std::ios::binary);
    out << header_ << "\n";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 65; ++i) out << chunk;
    out << "\n";
  }
  expect_one_line_exit2("replay " + path("long.jsonl"), {"long.jsonl:2:", "line longer than 67108864 bytes"});
  expect_one_line_exit2("replay " + dir_.string(), {"is a directory"});
  expect_only({"t.jsonl", "long.jsonl"});
}

TEST_F(HostileInput, LooseHeaderTypesAreRejectedWithTheField) {
  struct Case {
    std::string from, to, field;
  };
  const std::vector<Case> cases = {
      {"\"clients\":4", "\"clients\":4294967300", "'clients'"},
      {"\"clients\":4", "\"clients\":4.0", "'clients' must be an integer"},
      {"\"clients\":4", "\"clients\":true", "'clients' must be an integer"},
      {"\"locks\":1", "\"locks\":1.5", "'locks' must be an integer"},
      {"\"servers\":1", "\"servers\":false", "'servers' must be an integer"},
      {"\"duration_ms\":20000", "\"duration_ms\":2e4", "'duration_ms' must be an integer"},
      {"\"seed\":1,\"servers\"", "\"seed\":1.0,\"servers\"", "'seed' must be a non-negative integer"},
      {"\"version\":5,\"seed\":1", "\"version\":5,\"seed\":true", "\"seed\" must be a non-negative integer"},
      {"\"version\":5", "\"version\":5.0", "version"},
      {"\"profile\":\"safe\"", "\"profile\":7", "'profile' must be a string"},
  };
  for (const Case& c : cases) {
    const std::string file = with_header("loose.jsonl", c.from, c.to);
    expect_one_line_exit2("replay " + file, {"loose.jsonl", c.field});
  }
  // 4294967300 must not become 4 and "replay identically".
  const auto r = run_locksim("replay " + with_header("wrap.jsonl", "\"clients\":4", "\"clients\":4294967300"));
  EXPECT_EQ(r.out.find("identically"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("must be in [1, 4096], got 4294967300"), std::string::npos) << r.out;
}

TEST_F(HostileInput, OutOfRangeNumbersAreRejectedOnEveryOption) {
  const std::string out = " --trace " + path("x.jsonl");
  const std::string tl = "timeline " + trace_ + " -o " + path("x.svg");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run --seed 18446744073709551616" + out, "--seed"},
      {"run --seed 99999999999999999999999" + out, "--seed"},
      {"run --seed -1" + out, "--seed"},
      {"run --seed 1 --clients 4294967300" + out, "--clients"},
      {"run --seed 1 --clients 2.5" + out, "--clients"},
      {"run --seed 1 --locks 0" + out, "--locks"},
      {"run --seed 1 --servers 99999999999999999999" + out, "--servers"},
      {"run --seed 1 --duration-s 0x10" + out, "--duration-s"},
      {"run --seed 1 --duration-s 1e400" + out, "--duration-s"},
      {"run --seed 1 --duration-s nan" + out, "--duration-s"},
      {"campaign --seeds 1 --base-seed 18446744073709551616", "--base-seed"},
      {"campaign --seeds 2 --base-seed 18446744073709551615", "wrap"},
      {"campaign --seeds 4294967297", "--seeds"},
      {"campaign --seeds 1 --clients 4294967300", "--clients"},
      {"campaign --seeds 1 --locks -1", "--locks"},
      {"campaign --seeds 1 --duration-ms 99999999999999999999", "--duration-ms"},
      {"campaign --seeds 1 --duration-ms 1.5", "--duration-ms"},
      {"diff --seed 18446744073709551616", "--seed"},
      {"diff --sequences 4294967297", "--sequences"},
      {"diff --length 99999999999999999999", "--length"},
      {"mutants --max-seeds 4294967297", "--max-seeds"},
      {tl + " --from 99999999999999999999", "--from"},
      {tl + " --to -1", "--to"},
      {tl + " --around 9223372036854775808", "--around"},
      {tl + " --radius 1e3", "--radius"},
      {tl + " --max-events 18446744073709551617", "--max-events"},
      {"doctor --port 4294967297", "--port"},
      {"doctor --port 1 --timeout-ms 99999999999999999999", "--timeout-ms"},
  };
  for (const auto& [args, word] : cases) expect_one_line_exit2(args, {word});
  // The largest seed is still accepted, exactly.
  const auto r = run_locksim("run --seed 18446744073709551615 --duration-s 1" + out);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("seed=18446744073709551615"), std::string::npos) << r.out;
  // --around at the largest id does not overflow into a wrapped window.
  expect_one_line_exit2(tl + " --around 9223372036854775807 --radius 100000", {"no events in the requested window"});
  expect_only({"t.jsonl", "x.jsonl"});
}

// Numbers are plain decimal: a leading zero is not octal, hex is refused.
TEST_F(HostileInput, LeadingZeroIsDecimalAndHexIsRefused) {
  const auto r = run_locksim("run --seed 010 --clients 010 --locks 010 --duration-s 1 --trace " + path("z.jsonl"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("seed=10 clients=10 locks=10"), std::string::npos) << r.out;
  const auto from = run_locksim("timeline " + trace_ + " -o " + path("a.dot") + " --from 010 --to 011");
  const auto plain = run_locksim("timeline " + trace_ + " -o " + path("b.dot") + " --from 10 --to 11");
  EXPECT_EQ(from.exit_code, 0) << from.out;
  EXPECT_EQ(read_file(path("a.dot")), read_file(path("b.dot")));
  expect_one_line_exit2("doctor --port 0x10", {"--port", "0x10"});
}

// Options that need another, or exclude one, say so instead of being ignored.
TEST_F(HostileInput, ConflictingOrOrphanOptionsAreNamed) {
  const std::string tl = "timeline " + trace_ + " -o " + path("x.svg");
  expect_one_line_exit2(tl + " --around 5 --from 1 --to 10", {"--around", "--from"});
  expect_one_line_exit2(tl + " --radius 5", {"--radius", "--around"});
  expect_one_line_exit2(tl + " --format gif", {"--format", "gif"});
  expect_one_line_exit2("doctor --host 127.0.0.1", {"--host", "--port"});
  expect_one_line_exit2("doctor --timeout-ms 5", {"--timeout-ms", "--port"});
  expect_one_line_exit2("mutants --only \"\"", {"--only"});
  expect_one_line_exit2("mutants --list --only bogus", {"unknown mutant", "bogus"});
  const auto json = run_locksim("mutants --list --json --only lease_unit_seconds");
  EXPECT_EQ(json.exit_code, 0) << json.out;
  EXPECT_EQ(json.out, "{\"mutants\":[\"lease_unit_seconds\"]}\n");
  expect_only({"t.jsonl"});
}

// The names of a scenario (lock kind, profile, mutant) are read once, where
// they come in: a bad one is one line naming the option, exit 2, before
// anything runs or is written.
TEST_F(HostileInput, BadScenarioNamesAreOneLineNamingTheOption) {
  const std::string out = " --out " + path("runs");
  expect_one_line_exit2("campaign --seeds 1 --lock bogus" + out, {"--lock", "unknown lock kind 'bogus'", "redlock"});
  expect_one_line_exit2("campaign --seeds 1 --profile bogus" + out, {"--profile", "unknown profile 'bogus'"});
  expect_one_line_exit2("campaign --seeds 1 --mutant bogus" + out,
                        {"--mutant: unknown mutant 'bogus'", "lease_unit_seconds", "fair_ttl_from_deadline"});
  expect_one_line_exit2("run --seed 1 --trace " + path("r.jsonl") + " --mutant fair_wait_for_head",
                        {"--mutant: 'fair_wait_for_head' is a design variant", "--scripts impl/variants/"});
  expect_one_line_exit2("explore --lock rlock --ops lock,unlock --mutant bogus" + out,
                        {"--mutant: unknown mutant 'bogus'"});
  expect_only({"t.jsonl"});
}

// Event times that go back, and plan values the simulator cannot run, end in
// a one-line exit 2 naming the place, never in an assertion.
TEST_F(HostileInput, BackwardTimesAndImpossiblePlansAreRefused) {
  // The first event moved far into the future: the second goes back.
  std::string body = body_;
  const size_t t = body.find("\"t\":") + 4;
  body.replace(t, body.find(',', t) - t, "999999999999");
  const std::string back = write("back.jsonl", header_ + "\n" + body);
  expect_one_line_exit2("check " + back, {"back.jsonl:3:", "times must not go back"});
  expect_one_line_exit2("timeline " + back + " --violation 1 -o " + path("v.svg"), {"times must not go back"});
  // A shrunk failure trace carries an explicit plan in its header.
  const std::string runs = path("runs");
  const auto c = run_locksim("campaign --seeds 3 --base-seed 7 --profile pauses --out " + runs);
  std::string shrunk;
  for (const auto& e : fs::directory_iterator(fs::path(runs) / "failures")) {
    if (e.path().string().find(".shrunk.jsonl") != std::string::npos) shrunk = e.path().string();
  }
  ASSERT_FALSE(shrunk.empty()) << c.out;
  const std::string text = read_file(shrunk);
  const size_t eol = text.find('\n');
  const nlohmann::json header = nlohmann::json::parse(text.substr(0, eol));
  const auto with = [&](const std::string& name, const nlohmann::json& h) {
    return write(name, h.dump() + text.substr(eol));
  };
  ASSERT_FALSE(header["plan"]["tasks"].empty());
  nlohmann::json lease0 = header;
  lease0["plan"]["tasks"][0]["ops"][0]["lease_ms"] = 0;
  expect_one_line_exit2("replay " + with("lease0.jsonl", lease0), {"tasks[0].ops[0]", "lease_ms is 0"});
  ASSERT_FALSE(header["plan"]["faults"].empty());
  for (const char* kind : {"pause", "partition"}) {
    nlohmann::json negative = header;
    negative["plan"]["faults"][0]["kind"] = kind;
    negative["plan"]["faults"][0]["duration_ms"] = -5;
    expect_one_line_exit2("replay " + with(std::string(kind) + ".jsonl", negative), {"faults[0].duration_ms", "-5"});
  }
  fs::remove_all(runs);
}

TEST_F(HostileInput, ScriptFileThatIsADirectoryIsNamed) {
  const fs::path pack = dir_ / "pk";
  fs::create_directories(pack / "sub");
  for (const auto& entry : fs::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua")) {
    fs::copy_file(entry.path(), pack / entry.path().filename());
  }
  std::string manifest = read_file(pack / "manifest.json");
  const std::string from = "\"rlock_acquire.lua\"";
  manifest.replace(manifest.find(from), from.size(), "\"sub\"");
  std::ofstream(pack / "manifest.json") << manifest;
  expect_one_line_exit2("run --seed 1 --scripts " + pack.string() + " --trace " + path("x.jsonl"),
                        {"rlock_acquire", (pack / "sub").string(), "is a directory"});
  expect_only({"t.jsonl", "pk"});
}

TEST_F(HostileInput, UnknownSubcommandIsNamed) {
  expect_one_line_exit2("bogus", {"unknown subcommand 'bogus'", "run", "replay", "timeline"});
  expect_one_line_exit2("bogus --seed 1", {"unknown subcommand 'bogus'"});
  expect_one_line_exit2("pack bogus", {"unknown pack subcommand 'bogus'", "check"});
  expect_one_line_exit2("pack", {"subcommand is required"});
}

}  // namespace

// Issue 35, item 12: smaller defects of the second probe.
TEST_F(HostileInput, OptionBeforeSubcommandIsNamed) {
  expect_one_line_exit2("--bogus", {"unknown option '--bogus'", "subcommand first", "run", "campaign"});
}

TEST_F(HostileInput, ReplayOfABadHeaderNamesTheFile) {
  const std::string backend = with_header("bad_backend.jsonl", "\"backend\":\"model\"", "\"backend\":\"nowhere\"");
  expect_one_line_exit2("replay " + backend, {"bad_backend.jsonl: header:", "nowhere"});
  const std::string scripts = with_header("bad_scripts.jsonl", "\"scripts\":\"\"", "\"scripts\":\"/no/such/pack\"");
  expect_one_line_exit2("replay " + scripts, {"bad_scripts.jsonl: header", "/no/such/pack"});
}

TEST_F(HostileInput, CheckRefusesNegativeFieldsAndDuplicateKeys) {
  const std::string first = body_.substr(0, body_.find('\n'));
  const auto swap = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string line = first;
    const size_t at = line.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    line.replace(at, from.size(), to);
    return write(name, header_ + "\n" + line + "\n" + body_.substr(body_.find('\n') + 1));
  };
  expect_one_line_exit2("check " + swap("neg_c.jsonl", "\"c\":3", "\"c\":-1"), {"neg_c.jsonl:2:", "\"c\"", "negative"});
  expect_one_line_exit2("check " + swap("neg_t.jsonl", "\"t\":64000", "\"t\":-5"), {"neg_t.jsonl:2:", "\"t\"", "negative"});
  expect_one_line_exit2("check " + swap("dup.jsonl", "\"c\":3", "\"c\":3,\"c\":2"), {"dup.jsonl:2:", "\"c\" twice"});
}

TEST_F(HostileInput, MatchVariantWithAPackNamingNoVariantIsRefused) {
  const std::string pack = std::string(LOCKSIM_SOURCE_DIR) + "/tests/impl/packs/list_reply";
  expect_one_line_exit2("diff --scripts " + pack + " --match-variant --sequences 1", {"--match-variant", "names no model variant"});
  expect_one_line_exit2("pack check " + pack + " --match-variant", {"--match-variant", "names no model variant"});
  expect_one_line_exit2("campaign --scripts " + pack + " --backend both --match-variant --seeds 1 --out " + path("mv"),
                        {"--match-variant", "names no model variant"});
  expect_only({"t.jsonl"});
}

// Times at the end of time and leases of 2^62 ms (the second half of the
// trace at t = INT64_MAX - ..., every lease 2^62; then lms, sms, wait and dur
// at INT64_MAX and INT64_MIN by turns): check and every timeline view read
// and draw them without a signed overflow (the sanitizer build reports one
// as "runtime error" and stops) and write a picture.
TEST_F(HostileInput, TimesAtTheEndOfTimeAndHugeLeasesAreCheckedAndDrawn) {
  std::vector<nlohmann::json> events;
  std::istringstream lines(body_);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) events.push_back(nlohmann::json::parse(line));
  ASSERT_GT(events.size(), 10u);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto write_events = [&](const std::string& name, const std::function<void(nlohmann::json&, size_t)>& change) {
    std::string text = header_ + "\n";
    for (size_t i = 0; i < events.size(); ++i) {
      nlohmann::json e = events[i];
      change(e, i);
      text += e.dump() + "\n";
    }
    return write(name, text);
  };
  const size_t n = events.size();
  const std::string late = write_events("late.jsonl", [&](nlohmann::json& e, size_t i) {
    if (i >= n / 2) e["t"] = kMax - static_cast<int64_t>((n - 1 - i) * 1000);
    if (e.contains("lease")) e["lease"] = int64_t{1} << 62;
  });
  const std::string huge = write_events("huge.jsonl", [&](nlohmann::json& e, size_t i) {
    for (const char* key : {"lms", "sms", "wait", "dur"})
      if (e.contains(key)) e[key] = i % 2 ? kMax : std::numeric_limits<int64_t>::min();
  });
  for (const std::string& trace : {late, huge}) {
    auto r = run_locksim("check " + trace);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << trace << "\n" << r.out;
    EXPECT_EQ(r.out.find("runtime error"), std::string::npos) << trace << "\n" << r.out;
    for (const char* args : {"", " --violation 1", " --view sequence", " --around 5"}) {
      const std::string svg = path("x.svg");
      r = run_locksim("timeline " + trace + args + " -o " + svg);
      EXPECT_EQ(r.exit_code, 0) << trace << args << "\n" << r.out;
      EXPECT_EQ(r.out.find("runtime error"), std::string::npos) << trace << args << "\n" << r.out;
      EXPECT_NE(read_file(svg).find("</svg>"), std::string::npos) << trace << args;
      fs::remove(svg);
    }
  }
}
