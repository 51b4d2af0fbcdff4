// Server faults in the simulator: a replica that trails its primary by the
// replication lag and is promoted by a failover (losing what had not
// arrived), restarts with and without persistence, a restarted server that
// stays down and refuses requests, and the profiles that draw these faults.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "sim/model_backend.h"
#include "sim/profiles.h"
#include "sim/replicated_backend.h"
#include "sim/world.h"
#include "traces/event_detail.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

ScriptCall acquire(const std::string& owner) {
  ScriptCall call;
  call.kind = ScriptKind::RlockAcquire;
  call.params.lock = "lsim:A";
  call.params.owner = owner;
  call.params.lease_ms = 30'000;
  return call;
}

bool holds(Backend& b, const std::string& owner, int64_t now_us) {
  for (const auto& k : b.snapshot(0, now_us))
    if (k.key == "lsim:A" && k.value.find(owner + "=") != std::string::npos) return true;
  return false;
}

TEST(ReplicatedBackend, FailoverKeepsWhatArrivedWithinTheLagAndLosesTheRest) {
  ModelBackend primary(1);
  ReplicatedBackend b(primary, std::make_unique<ModelBackend>(1), {100});
  EXPECT_TRUE(b.execute(0, acquire("a:1"), 1'000'000).reply.is_nil());
  // 50 ms later the replica has not received it yet (150 ms: below).
  const auto f = b.failover(0, 1'050'000);
  EXPECT_TRUE(f.promoted);
  EXPECT_EQ(f.lag_ms, 100);
  EXPECT_EQ(f.lost_writes, 1);
  EXPECT_FALSE(holds(b, "a:1", 1'060'000));  // the promoted replica never saw it
  EXPECT_TRUE(b.execute(0, acquire("b:1"), 1'070'000).reply.is_nil());  // someone else gets it
  EXPECT_FALSE(b.failover(0, 2'000'000).promoted);  // no replica left

  ModelBackend primary2(1);
  ReplicatedBackend caught_up(primary2, std::make_unique<ModelBackend>(1), {100});
  caught_up.execute(0, acquire("a:1"), 1'000'000);
  const auto g = caught_up.failover(0, 1'150'000);
  EXPECT_EQ(g.lost_writes, 0);
  EXPECT_TRUE(holds(caught_up, "a:1", 1'160'000));
}

struct ServerWorld {
  explicit ServerWorld(ServerFaultConfig faults) : backend(1) {
    WorldConfig wc;
    wc.clients = 1;
    wc.link = LinkProfile{1000, 1000, 0.0, 0, 0.0};
    wc.server_faults = std::move(faults);
    world = std::make_unique<World>(wc, backend, sink);
  }
  ModelBackend backend;
  VectorSink sink;
  std::unique_ptr<World> world;
};

TEST(ServerFaults, RestartLosesDataWithoutPersistenceAndKeepsItWith) {
  for (Persistence p : {Persistence::None, Persistence::Always}) {
    ServerFaultConfig f;
    f.persistence = p;
    ServerWorld w(f);
    std::optional<AcquireResult> got;
    const LockSpec lock{"lsim:A", LockKind::Reentrant, 0, {}};
    w.world->client(0).lock(1, lock, -1, [&](AcquireResult r) { got = r; });
    w.world->run_until(100'000);
    ASSERT_EQ(got, AcquireResult::Acquired);
    w.world->redis_restart(0);
    EXPECT_EQ(holds(w.backend, w.world->client(0).owner(1), w.world->server_now_us(0)), p == Persistence::Always);
    const Event& fault = w.sink.events.back();
    EXPECT_EQ(fault.op, Op::RedisRestart);
    EXPECT_EQ(fault.persistence, p);
    EXPECT_EQ(detail_text(fault), p == Persistence::Always ? "persistence always" : "");  // the trace's words unchanged
  }
}

TEST(ServerFaults, ADownServerRefusesRequestsUntilItIsBack) {
  ServerFaultConfig f;
  f.restart_delay_ms = 5'000;
  ServerWorld w(f);
  w.world->redis_restart(0);
  EXPECT_EQ(w.sink.events.back().duration_ms, 5'000);
  EXPECT_TRUE(w.world->server_down(0));
  std::optional<AcquireResult> got;
  const LockSpec lock{"lsim:A", LockKind::Reentrant, 0, {}};
  w.world->client(0).try_lock_once(1, lock, -1, [&](AcquireResult r) { got = r; });
  w.world->run_until(100'000);
  EXPECT_EQ(got, AcquireResult::Unknown);  // answered at once with an error, nothing ran
  for (const Event& e : w.sink.events) EXPECT_NE(e.kind, EventKind::Script);
  w.world->run_until(5'100'000);
  EXPECT_FALSE(w.world->server_down(0));
  got.reset();
  w.world->client(0).try_lock_once(1, lock, -1, [&](AcquireResult r) { got = r; });
  w.world->run_until(5'200'000);
  EXPECT_EQ(got, AcquireResult::Acquired);
}

TEST(ServerFaultProfiles, DrawTheirFaultsAndCombine) {
  const Rng rng(5);
  const FaultPlan restarts = make_fault_plan(Profile::named("restarts"), 4, 5, 600'000'000, rng);
  ASSERT_FALSE(restarts.actions.empty());
  for (const auto& a : restarts.actions) EXPECT_EQ(a.kind, FaultKind::RedisRestart);
  const FaultPlan failover = make_fault_plan(Profile::named("failover"), 4, 3, 600'000'000, rng);
  ASSERT_EQ(failover.replica_lag_ms.size(), 3u);
  for (int64_t lag : failover.replica_lag_ms) EXPECT_TRUE(lag >= 20 && lag <= 2'000);
  for (const auto& a : failover.actions) EXPECT_EQ(a.kind, FaultKind::Failover);
  const FaultPlan clock = make_fault_plan(Profile::named("server-clock"), 4, 3, 600'000'000, rng);
  bool backward = false;
  for (const auto& a : clock.actions) {
    EXPECT_EQ(a.kind, FaultKind::ServerClockJump);
    backward |= a.duration_ms < 0;
  }
  EXPECT_TRUE(backward);
  // A combination is the union, each part drawing what it draws alone.
  const FaultPlan pauses = make_fault_plan(Profile::named("pauses"), 4, 5, 600'000'000, rng);
  const FaultPlan both = make_fault_plan(Profile::named("pauses+restarts"), 4, 5, 600'000'000, rng);
  EXPECT_EQ(both.actions.size(), pauses.actions.size() + restarts.actions.size());
  EXPECT_TRUE(is_profile("pauses+restarts"));
  EXPECT_FALSE(is_profile("pauses+pauses"));
  EXPECT_FALSE(is_profile("restarts+"));
}

}  // namespace
}  // namespace locksim
