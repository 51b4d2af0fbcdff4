// (Lives in tests/sim because LiveBackend is a sim/ target.)
// The script case table (model/script_cases.h) replayed on a live
// redis-server through LiveBackend: every branch of every Lua script, in our
// pack, in each mutant pack (for its variant's cases) and in the reordered
// test pack, must give exactly the replies, publishes and final keys the
// model is held to. One server for the whole suite, flushed between cases.
#include <algorithm>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "impl/script_pack.h"
#include "sim/live_backend.h"
#include "sim/script_case_run.h"
#include "model/script_cases.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

const std::string kOurs = std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";
const std::string kReordered = std::string(LOCKSIM_SOURCE_DIR) + "/tests/impl/packs/reordered";

std::string pack_dir_for(ModelVariant v) {
  if (v == ModelVariant::Correct) return kOurs;
  return std::string(LOCKSIM_SOURCE_DIR) + (is_design_variant(v) ? "/impl/variants/" : "/impl/mutants/") +
         std::string(variant_name(v));
}

class LiveScripts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new RedisServer(); }
  static void TearDownTestSuite() {
    backends_.clear();
    delete server_;
    server_ = nullptr;
  }

  static LiveBackend& backend(const std::string& dir) {
    auto it = backends_.find(dir);
    if (it == backends_.end()) {
      auto b = std::make_unique<LiveBackend>(std::vector<ServerControl*>{server_}, ScriptPack::load(dir), "");
      it = backends_.emplace(dir, std::move(b)).first;
    }
    return *it->second;
  }

  // Runs one case; returns "" if every expectation holds, else the first miss.
  static std::string run_case(const cases::ScriptCase& c, const std::string& dir) {
    LiveBackend& live = backend(dir);
    const auto miss = run_script_case(live, [&live] { live.wipe(); }, c);
    return miss ? describe_case_miss(*miss) : "";
  }

  static RedisServer* server_;
  static std::map<std::string, std::unique_ptr<LiveBackend>> backends_;
};

RedisServer* LiveScripts::server_ = nullptr;
std::map<std::string, std::unique_ptr<LiveBackend>> LiveScripts::backends_;

TEST_F(LiveScripts, EveryCaseOnItsPack) {
  const auto all = cases::all_cases();
  ASSERT_FALSE(all.empty());
  for (const auto& c : all) {
    EXPECT_EQ(run_case(c, pack_dir_for(c.variant)), "") << c.name << " on " << pack_dir_for(c.variant);
  }
}

TEST_F(LiveScripts, VariantCasesFailOnOurPack) {
  int checked = 0;
  for (const auto& c : cases::all_cases()) {
    if (!c.differs_from_correct) continue;
    ++checked;
    EXPECT_NE(run_case(c, kOurs), "") << c.name << " passes on the correct scripts";
  }
  EXPECT_GT(checked, 0);
}

// (The reordered pack has no spin lock or faster multi-lock scripts: their
// cases are not its.)
TEST_F(LiveScripts, ReorderedPackPassesTheCorrectCases) {
  for (const auto& c : cases::all_cases()) {
    if (c.variant != ModelVariant::Correct) continue;
    if (std::any_of(c.steps.begin(), c.steps.end(), [](const auto& s) { return is_optional_script(s.call.kind); })) continue;
    EXPECT_EQ(run_case(c, kReordered), "") << c.name << " on the reordered pack";
  }
}

TEST_F(LiveScripts, LuaSyntaxErrorNamesTheFile) {
  std::string templ = (fs::temp_directory_path() / "locksim-badlua-XXXXXX").string();
  const std::string dir = ::mkdtemp(templ.data());
  for (const auto& entry : fs::directory_iterator(kOurs)) {
    fs::copy_file(entry.path(), fs::path(dir) / entry.path().filename());
  }
  {
    std::ofstream out(dir + "/rlock_renew.lua", std::ios::trunc);
    out << "if redis.call('exists', KEYS[1] then return 1 end\n";
  }
  ScriptPack pack = ScriptPack::load(dir);  // syntax is Redis's business
  try {
    LiveBackend live({server_}, std::move(pack), "");
    ADD_FAILURE() << "a Lua syntax error was accepted";
  } catch (const ScriptPackError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rlock_renew.lua"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Redis rejected the script"), std::string::npos) << msg;
  }
  fs::remove_all(dir);
}

TEST_F(LiveScripts, ZeroLatchLifetimeIsAnErrorAfterTheWrites) {
  // lock-semantics.md: SET ... PX 0 fails; Redis keeps what the script did
  // before (no rollback): the lock is gone and the wake-up went out.
  LiveBackend& live = backend(kOurs);
  live.wipe();
  const int64_t t = cases::kT;
  ASSERT_TRUE(live.execute(0, cases::acquire(cases::kA), t * 1000).reply.is_nil());
  const ExecResult r = live.execute(0, cases::release(cases::kA, "r1", cases::kLease, 0), t * 1000);
  EXPECT_TRUE(r.reply.is_error()) << r.reply.to_string();
  ASSERT_EQ(r.published.size(), 1u);
  EXPECT_EQ(r.published[0].channel, cases::channel());
  EXPECT_TRUE(live.snapshot(0, t * 1000).empty());
}

}  // namespace
}  // namespace locksim
