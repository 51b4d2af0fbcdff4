// The lua backend (sim/lua_backend.h) against live redis-server, the oracle,
// on the same packs: ours, every mutant pack, the design variant, and the
// test packs (list_reply: a list reply adapter and a caller-named publish;
// historical: plain command, absent scripts, its own message conventions;
// reordered). For every case of the script case table (model/script_cases.h,
// run on every pack whatever its variant) and for seeded random sequences
// (sim/diff_sequence.h): every step's reply (exactly: error texts
// included), publishes, holders and fair line, and the full key state after,
// identical. And traces of whole runs on lua and live, identical apart from
// the backend's name.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "impl/script_pack.h"
#include "model/script_cases.h"
#include "sim/diff_sequence.h"
#include "sim/live_backend.h"
#include "sim/lua_backend.h"
#include "tests/cli_runner.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> pack_dirs() {
  const fs::path src(LOCKSIM_SOURCE_DIR);
  std::vector<std::string> out = {(src / "impl" / "lua").string()};
  for (const char* group : {"impl/mutants", "impl/variants", "impl/hunt", "tests/impl/packs"}) {
    std::vector<std::string> dirs;
    for (const auto& e : fs::directory_iterator(src / group)) dirs.push_back(e.path().string());
    std::sort(dirs.begin(), dirs.end());
    out.insert(out.end(), dirs.begin(), dirs.end());
  }
  return out;
}

std::string keys_text(const std::vector<KeyState>& keys) {
  std::string out;
  for (const KeyState& k : keys) out += k.key + " " + k.type + " {" + k.value + "} " + std::to_string(k.pttl_ms) + "; ";
  return out;
}

std::string line_text(const ExecResult& r) {
  if (!r.line_known) return "(no line)";
  std::string out;
  for (const LineWaiter& w : r.line_after) {
    out += w.owner + (w.deadline_ms ? "@" + std::to_string(*w.deadline_ms) : "@-") + " ";
  }
  return out;
}

// "" when equal, else what differs.
std::string compare(const ExecResult& lua, const ExecResult& live) {
  if (!(lua.reply == live.reply)) return "reply " + lua.reply.to_string() + " vs live " + live.reply.to_string();
  if (lua.published != live.published) return "publishes differ";
  if (lua.holders_after != live.holders_after) return "holders differ";
  if (line_text(lua) != line_text(live)) return "line " + line_text(lua) + " vs live " + line_text(live);
  return "";
}

class LuaBackendLive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new RedisServer(); }
  static void TearDownTestSuite() {
    sides_.clear();
    delete server_;
    server_ = nullptr;
  }
  struct Sides {
    std::unique_ptr<LuaBackend> lua;
    std::unique_ptr<LiveBackend> live;
  };
  static Sides& sides(const std::string& dir) {
    auto it = sides_.find(dir);
    if (it == sides_.end()) {
      const ScriptPack pack = ScriptPack::load(dir);
      Sides s{std::make_unique<LuaBackend>(1, pack),
              std::make_unique<LiveBackend>(std::vector<ServerControl*>{server_}, pack, "")};
      it = sides_.emplace(dir, std::move(s)).first;
    }
    return it->second;
  }
  static RedisServer* server_;
  static std::map<std::string, Sides> sides_;
};

RedisServer* LuaBackendLive::server_ = nullptr;
std::map<std::string, LuaBackendLive::Sides> LuaBackendLive::sides_;

TEST_F(LuaBackendLive, EveryCaseOnEveryPackAgreesWithLive) {
  std::vector<cases::ScriptCase> table = cases::all_cases();
  for (cases::ScriptCase& c : cases::design_variant_cases()) table.push_back(std::move(c));
  ASSERT_GE(table.size(), 49u);
  const std::vector<std::string> dirs = pack_dirs();
  ASSERT_GE(dirs.size(), 11u);
  int compared = 0;
  for (const std::string& dir : dirs) {
    Sides& s = sides(dir);
    for (const cases::ScriptCase& c : table) {
      s.lua->wipe();
      s.live->wipe();
      for (size_t i = 0; i < c.steps.size(); ++i) {
        const cases::CaseStep& st = c.steps[i];
        const ExecResult lua = s.lua->execute(0, st.call, st.server_now_ms * 1000);
        const ExecResult live = s.live->execute(0, st.call, st.server_now_ms * 1000);
        EXPECT_EQ(compare(lua, live), "") << dir << " case " << c.name << " step " << i + 1;
        ++compared;
      }
      const int64_t at_us = (c.final_state ? c.final_state->server_now_ms : c.steps.back().server_now_ms) * 1000;
      const std::vector<KeyState> lua_keys = s.lua->snapshot(0, at_us);
      const std::vector<KeyState> live_keys = s.live->snapshot(0, at_us);
      EXPECT_EQ(lua_keys, live_keys) << dir << " case " << c.name << "\n  lua:  " << keys_text(lua_keys)
                                     << "\n  live: " << keys_text(live_keys);
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(compared, 11 * 100);
}

TEST_F(LuaBackendLive, RandomSequencesOnEveryPackAgreeWithLive) {
  constexpr int kSequences = 12;
  constexpr int kLength = 40;
  int steps = 0;
  for (const std::string& dir : pack_dirs()) {
    Sides& s = sides(dir);
    for (int seq = 0; seq < kSequences; ++seq) {
      const DiffSequence sequence = generate_sequence(rc::Random(1000 + seq), kLength).value();
      s.lua->wipe();
      s.live->wipe();
      int64_t now_us = kDiffEpochUs;
      for (size_t i = 0; i < sequence.steps.size(); ++i) {
        const ResolvedStep step = resolve_step(sequence, sequence.steps[i], now_us, s.lua->snapshot(0, now_us));
        now_us = step.server_now_us;
        const ExecResult lua = s.lua->execute(0, step.call, now_us);
        const ExecResult live = s.live->execute(0, step.call, now_us);
        ++steps;
        EXPECT_EQ(compare(lua, live), "") << dir << " sequence " << seq << " step " << i << ": "
                                          << describe_call(step.call);
        const std::vector<KeyState> lua_keys = s.lua->snapshot(0, now_us);
        const std::vector<KeyState> live_keys = s.live->snapshot(0, now_us);
        EXPECT_EQ(lua_keys, live_keys) << dir << " sequence " << seq << " step " << i << "\n  lua:  "
                                       << keys_text(lua_keys) << "\n  live: " << keys_text(live_keys);
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_EQ(steps, static_cast<int>(pack_dirs().size()) * kSequences * kLength);
  std::printf("lua vs live: %d random steps compared\n", steps);
}

// Whole runs (faults, several servers, replicas) on lua and live: the same
// trace, apart from the header's backend.
TEST(LuaBackendTraces, IdenticalToLiveApartFromTheBackendName) {
  const fs::path dir = fs::temp_directory_path() / "locksim_test_sim" / "lua_traces";
  fs::create_directories(dir);
  const std::vector<std::string> runs = {
      "--seed 3 --lock rlock --profile pauses --duration-s 20",
      "--seed 5 --lock fair --profile hostile --duration-s 20",
      "--seed 7 --lock mixed --locks 2 --servers 2 --profile failover --duration-s 20",
      "--seed 9 --lock redlock --servers 3 --profile restarts --duration-s 10",
      "--seed 11 --lock mixed --locks 2 --profile safe --duration-s 20 --scripts " + std::string(LOCKSIM_SOURCE_DIR) +
          "/tests/impl/packs/historical",
  };
  for (const std::string& args : runs) {
    std::vector<std::string> traces[2];
    const char* backends[2] = {"lua", "live"};
    for (int b = 0; b < 2; ++b) {
      const fs::path trace = dir / (std::string(backends[b]) + ".jsonl");
      const testing::CliRun r =
          testing::run_locksim("run --backend " + std::string(backends[b]) + " " + args + " --trace " + trace.string());
      ASSERT_LE(r.exit_code, 1) << args << ": " << r.out;  // 1: a property failed (hostile faults)
      std::istringstream in(testing::read_file(trace));
      for (std::string line; std::getline(in, line);) traces[b].push_back(line);
    }
    ASSERT_GT(traces[0].size(), 20u) << args;
    ASSERT_EQ(traces[0].size(), traces[1].size()) << args;
    std::string header = traces[0][0];
    const size_t at = header.find("\"backend\":\"lua\"");
    ASSERT_NE(at, std::string::npos) << header;
    header.replace(at, std::string("\"backend\":\"lua\"").size(), "\"backend\":\"live\"");
    EXPECT_EQ(header, traces[1][0]) << args;
    for (size_t i = 1; i < traces[0].size(); ++i) {
      ASSERT_EQ(traces[0][i], traces[1][i]) << args << ": line " << i + 1;
    }
  }
}

}  // namespace
}  // namespace locksim
