// Same seed + same build => byte-identical trace, on the model and on a live
// redis-server; and the model and live histories of one scenario are equal.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "sim/live_backend.h"
#include "sim/model_backend.h"
#include "sim/profiles.h"
#include "sim/run.h"
#include "sim/simulator.h"
#include "tools/server/redis_server.h"
#include "traces/trace_writer.h"

namespace locksim {
namespace {

Scenario short_scenario(uint64_t seed, const std::string& profile) {
  Scenario s;
  s.seed = seed;
  s.clients = 1 + static_cast<int>(seed % 5);
  s.locks = 1 + static_cast<int>(seed % 3);
  const ScenarioLockKind kinds[] = {ScenarioLockKind::Rlock, ScenarioLockKind::Fair, ScenarioLockKind::Mixed};
  s.lock_kind = kinds[(seed / 3) % 3];
  s.duration_ms = 2'000 + static_cast<int64_t>(seed % 4) * 500;
  s.profile = Profile::named(profile);
  return s;
}

std::string run_trace(const Scenario& s, Backend& backend, const std::string& backend_kind) {
  std::ostringstream out;
  {
    TraceWriter writer(out, make_trace_header(s, backend_kind));
    Simulator sim(s, backend, writer);
    sim.run();
    writer.close();
  }
  return out.str();
}

std::string model_trace(const Scenario& s) {
  ModelBackend backend(s.servers);
  return run_trace(s, backend, "model");
}

const char* kProfiles[] = {"none", "safe", "pauses", "skew", "hostile"};

TEST(Determinism, ModelSameSeedTwiceIsByteIdentical) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const Scenario s = short_scenario(seed, kProfiles[seed % 5]);
    const std::string a = model_trace(s);
    const std::string b = model_trace(s);
    ASSERT_EQ(a, b) << "seed " << seed;
    ASSERT_GT(std::count(a.begin(), a.end(), '\n'), 2) << "seed " << seed << " produced no events";
  }
}

TEST(Determinism, DifferentSeedsGiveDifferentHistories) {
  const Scenario a = short_scenario(11, "safe");
  Scenario b = a;
  b.seed = 12;
  const std::string ta = model_trace(a), tb = model_trace(b);
  EXPECT_NE(ta.substr(ta.find('\n')), tb.substr(tb.find('\n')));
}

TEST(Determinism, AddingAClientKeepsTheFaultPlanOfOthers) {
  // Per-component streams: the fault plan of client 0 does not depend on the
  // number of clients.
  const Rng root(5);
  const FaultPlan p2 = make_fault_plan(Profile::named("hostile"), 2, 1, 600'000'000, root.split("faults"));
  const FaultPlan p3 = make_fault_plan(Profile::named("hostile"), 3, 1, 600'000'000, root.split("faults"));
  std::vector<int64_t> t2, t3;
  for (const auto& f : p2.actions) if (f.target == 0 && f.kind != FaultKind::ServerClockJump && f.kind != FaultKind::RedisRestart) t2.push_back(f.at_us);
  for (const auto& f : p3.actions) if (f.target == 0 && f.kind != FaultKind::ServerClockJump && f.kind != FaultKind::RedisRestart) t3.push_back(f.at_us);
  EXPECT_FALSE(t2.empty());
  EXPECT_EQ(t2, t3);
}

// One live redis-server (under the virtual clock), wiped before each run.
class LiveRuns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new RedisServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  std::string live_trace(const Scenario& s) {
    LiveBackend backend({server_}, ScriptPack::load(ScriptPack::default_dir()), kKeyPrefix);
    backend.wipe();
    return run_trace(s, backend, "live");
  }
  static RedisServer* server_;
};
RedisServer* LiveRuns::server_ = nullptr;

Scenario live_scenario(uint64_t seed, const std::string& profile) {
  Scenario s = short_scenario(seed, profile);
  s.clients = 1 + static_cast<int>(seed % 3);
  s.duration_ms = 1'000;
  return s;
}

TEST_F(LiveRuns, SameSeedTwiceIsByteIdentical) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const Scenario s = live_scenario(seed, kProfiles[seed % 5]);
    const std::string a = live_trace(s);
    const std::string b = live_trace(s);
    ASSERT_EQ(a, b) << "seed " << seed;
  }
}

TEST_F(LiveRuns, ModelAndLiveAgreeApartFromTheBackendField) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const Scenario s = live_scenario(seed, "safe");
    const std::string live = live_trace(s);
    const std::string model = model_trace(s);
    const size_t lh = live.find('\n'), mh = model.find('\n');
    ASSERT_NE(lh, std::string::npos);
    std::string live_header = live.substr(0, lh);
    const size_t at = live_header.find("\"backend\":\"live\"");
    ASSERT_NE(at, std::string::npos);
    live_header.replace(at, 16, "\"backend\":\"model\"");
    EXPECT_EQ(live_header, model.substr(0, mh)) << "seed " << seed;
    ASSERT_EQ(live.substr(lh), model.substr(mh)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace locksim
