// ModelBackend and LiveBackend behave as the Backend contract says: µs -> ms
// by floor, per-server stores, restart loses data, the live backend reloads
// its scripts after a restart or a SCRIPT FLUSH, collects exactly the
// script's publishes, lists only keys under its prefix, and renders every
// key type exactly like the model.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "sim/live_backend.h"
#include "sim/model_backend.h"
#include "model/script_cases.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

const std::string kOurs = std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";
constexpr int64_t kT = cases::kT;  // ms

TEST(ModelBackend, ServerMicrosecondsFloorToMilliseconds) {
  EXPECT_EQ(server_ms_of_us(1'999), 1);
  EXPECT_EQ(server_ms_of_us(2'000), 2);
  EXPECT_EQ(server_ms_of_us(-1), -1);
  ModelBackend model;
  ASSERT_TRUE(model.execute(0, cases::acquire(cases::kA, 1), kT * 1000).reply.is_nil());
  // expire_at = kT + 1: still there at kT+1 ms + 999 µs, gone at kT+2 ms.
  EXPECT_EQ(model.snapshot(0, (kT + 1) * 1000 + 999).size(), 1u);
  EXPECT_TRUE(model.snapshot(0, (kT + 2) * 1000).empty());
}

TEST(ModelBackend, ServersAreIndependentAndRestartLosesData) {
  ModelBackend model(2);
  EXPECT_EQ(model.server_count(), 2);
  const ExecResult a = model.execute(0, cases::acquire(cases::kA), kT * 1000);
  EXPECT_EQ(a.holders_after, (std::vector<std::string>{cases::kA}));
  // The same lock on server 1 is free.
  EXPECT_TRUE(model.execute(1, cases::acquire(cases::kB), kT * 1000).reply.is_nil());
  model.restart(0);
  EXPECT_TRUE(model.snapshot(0, kT * 1000).empty());
  EXPECT_EQ(model.snapshot(1, kT * 1000).size(), 1u);
  model.wipe();
  EXPECT_TRUE(model.snapshot(1, kT * 1000).empty());
}

TEST(ModelBackend, VariantIsUsed) {
  ModelBackend model(1, ModelVariant::RenewNoOwnerCheck);
  ASSERT_TRUE(model.execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  EXPECT_EQ(model.execute(0, cases::renew(cases::kB), kT * 1000).reply, Reply::of_int(1));
}

class LiveBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new RedisServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    live_ = std::make_unique<LiveBackend>(std::vector<ServerControl*>{server_}, ScriptPack::load(kOurs), "");
    live_->wipe();
  }
  RedisConn side_connection() {
    RedisConnOptions o;
    o.port = server_->port();
    return RedisConn::connect(o);
  }
  static RedisServer* server_;
  std::unique_ptr<LiveBackend> live_;
};
RedisServer* LiveBackendTest::server_ = nullptr;

TEST_F(LiveBackendTest, CollectsExactlyTheScriptsPublishes) {
  ASSERT_TRUE(live_->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  const ExecResult r = live_->execute(0, cases::release(cases::kA, "r1"), kT * 1000);
  EXPECT_EQ(r.reply, Reply::of_int(1));
  ASSERT_EQ(r.published, (std::vector<Published>{{cases::channel(), "0"}}));
  const ExecResult again = live_->execute(0, cases::release(cases::kA, "r1"), kT * 1000);
  EXPECT_EQ(again.reply, Reply::of_int(1));  // latched
  EXPECT_TRUE(again.published.empty());
}

TEST_F(LiveBackendTest, HoldersAfterAndSnapshotMatchTheModel) {
  ModelBackend model;
  const std::vector<std::pair<ScriptCall, int64_t>> calls = {
      {cases::fair_acquire(cases::kA, cases::kC), kT},
      {cases::fair_acquire(cases::kB, cases::kC + 10), kT + 10},
      {cases::fair_acquire(cases::kCo, cases::kC + 20), kT + 20},
      {cases::release(cases::kA, "r9", cases::kLease, 777), kT + 30},
  };
  for (const auto& [call, t] : calls) {
    const ExecResult m = model.execute(0, call, t * 1000);
    const ExecResult l = live_->execute(0, call, t * 1000);
    EXPECT_EQ(l.reply, m.reply) << script_name(call.kind);
    EXPECT_EQ(l.published, m.published);
    EXPECT_EQ(l.holders_after, m.holders_after);
    EXPECT_EQ(live_->snapshot(0, t * 1000), model.snapshot(0, t * 1000));
  }
  const auto state = live_->snapshot(0, (kT + 30) * 1000);
  ASSERT_EQ(state.size(), 3u);  // lock gone; latch, line, deadlines
  EXPECT_EQ(state[0].type, "list");  // redisson_lock_queue:{L}
  EXPECT_EQ(state[0].value, cases::kB + "," + cases::kCo);
  EXPECT_EQ(state[1].type, "zset");  // redisson_lock_timeout:{L}
  EXPECT_EQ(state[2].type, "string");  // the latch
  EXPECT_EQ(state[2].pttl_ms, 777);
}

TEST_F(LiveBackendTest, SnapshotListsOnlyKeysUnderItsPrefix) {
  LiveBackend prefixed({server_}, ScriptPack::load(kOurs), "lsim:");
  auto conn = side_connection();
  conn.command({"SET", "other:key", "x"});
  conn.command({"SET", "pre{lsim:L0}", "y"});
  const auto state = prefixed.snapshot(0, kT * 1000);
  ASSERT_EQ(state.size(), 1u);
  EXPECT_EQ(state[0].key, "pre{lsim:L0}");
  EXPECT_EQ(state[0].value, "y");
  EXPECT_EQ(state[0].pttl_ms, -1);
}

TEST_F(LiveBackendTest, ReloadsScriptsAfterScriptFlush) {
  auto conn = side_connection();
  ASSERT_EQ(conn.command({"SCRIPT", "FLUSH"}).is_error(), false);
  EXPECT_TRUE(live_->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  EXPECT_EQ(live_->snapshot(0, kT * 1000).size(), 1u);
}

TEST_F(LiveBackendTest, RestartLosesDataAndKeepsWorking) {
  ASSERT_TRUE(live_->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  live_->restart(0);
  EXPECT_TRUE(live_->snapshot(0, kT * 1000).empty());
  ASSERT_TRUE(live_->execute(0, cases::acquire(cases::kB), kT * 1000).reply.is_nil());
  const ExecResult r = live_->execute(0, cases::release(cases::kB, "r2"), kT * 1000);
  EXPECT_EQ(r.reply, Reply::of_int(1));
  EXPECT_EQ(r.published.size(), 1u);  // resubscribed after the restart
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

TEST_F(LiveBackendTest, IgnoresMessagesPublishedBeforeTheScript) {
  // Another client (or another backend on the same server) publishes between
  // our scripts: those messages must not be attributed to our next script.
  auto conn = side_connection();
  ASSERT_TRUE(live_->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  conn.command({"PUBLISH", "elsewhere", "hello"});
  const ExecResult r = live_->execute(0, cases::renew(cases::kA), kT * 1000);
  EXPECT_TRUE(r.published.empty()) << r.published.size() << " stale message(s)";
}

}  // namespace
}  // namespace locksim
