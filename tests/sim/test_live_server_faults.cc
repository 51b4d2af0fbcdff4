// Server faults on the live backend (issue 10): a real redis-server that
// restarts with its append-only file (persistence always), a server clock
// moved back and forward through the vclock shim, and a real replica behind
// REPLICAOF promoted by a failover; each compared script by script with the
// model, and end to end: `locksim run` on both backends writes the same
// trace apart from the header's backend, and `locksim replay` reproduces the
// live trace identically.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "impl/script_pack.h"
#include "sim/live_backend.h"
#include "sim/model_backend.h"
#include "sim/replicated_backend.h"
#include "tests/cli_runner.h"
#include "model/script_cases.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;
using testing::CliRun;
using testing::read_file;
using testing::run_locksim;

const std::string kOurs = std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";
constexpr int64_t kT = cases::kT;  // ms

ScriptCall acquire_on(const std::string& lock, const std::string& owner, int64_t lease_ms) {
  ScriptCall call = cases::acquire(owner, lease_ms);
  call.params.lock = lock;
  return call;
}

// Runs the same calls on the model and on live and expects the same results.
void expect_same(ModelBackend& model, LiveBackend& live, const ScriptCall& call, int64_t t_ms) {
  const ExecResult m = model.execute(0, call, t_ms * 1000);
  const ExecResult l = live.execute(0, call, t_ms * 1000);
  EXPECT_EQ(l.reply, m.reply) << script_name(call.kind) << " " << call.params.owner << " at " << t_ms;
  EXPECT_EQ(l.holders_after, m.holders_after) << script_name(call.kind) << " at " << t_ms;
  EXPECT_EQ(l.published, m.published);
}

TEST(LiveServerFaults, ServerClockBackwardDoesNotBringBackAKeyThatExpired) {
  RedisServer server;
  LiveBackend live({&server}, ScriptPack::load(kOurs), "");
  ModelBackend model;
  expect_same(model, live, acquire_on("L", cases::kA, 1'000), kT);
  // 2 s later another lock is used: on the model lock L expires for good
  // (the store is swept before every script), whoever looks at it.
  expect_same(model, live, acquire_on("M", cases::kB, 30'000), kT + 2'000);
  // The server clock jumps back 1.5 s: L's lease would still run there.
  expect_same(model, live, acquire_on("L", cases::kB, 30'000), kT + 500);
  EXPECT_EQ(live.snapshot(0, (kT + 500) * 1000), model.snapshot(0, (kT + 500) * 1000));
  // And forward: a lease ends early.
  expect_same(model, live, acquire_on("M", cases::kA, 30'000), kT + 500 + 60'000);
  EXPECT_EQ(live.snapshot(0, (kT + 60'500) * 1000), model.snapshot(0, (kT + 60'500) * 1000));
}

TEST(LiveServerFaults, RestartWithPersistenceAlwaysKeepsTheDataOfARealServer) {
  RedisServer server;
  LiveBackend live({&server}, ScriptPack::load(kOurs), "");
  ServerFaultConfig faults;
  faults.persistence = Persistence::Always;
  live.configure_server_faults(faults);
  EXPECT_TRUE(server.append_only());
  ASSERT_TRUE(live.execute(0, cases::acquire(cases::kA, 5'000), kT * 1000).reply.is_nil());
  const pid_t before = server.pid();
  live.restart_keeping_data(0);
  EXPECT_NE(server.pid(), before);  // a new process, the data read back from its AOF
  const auto state = live.snapshot(0, (kT + 1'000) * 1000);
  ASSERT_EQ(state.size(), 1u);
  EXPECT_EQ(state[0].pttl_ms, 4'000);  // the absolute expiry survived
  EXPECT_EQ(live.execute(0, cases::acquire(cases::kB), (kT + 1'000) * 1000).reply, Reply::of_int(4'000));
  // Without persistence the same restart loses everything.
  live.restart(0);
  EXPECT_TRUE(live.snapshot(0, (kT + 1'000) * 1000).empty());
  faults.persistence = Persistence::None;
  live.configure_server_faults(faults);
  EXPECT_FALSE(server.append_only());
}

TEST(LiveServerFaults, FailoverPromotesARealReplicaHoldingWhatTheLagLetThrough) {
  RedisServer primary;
  LiveBackend live({&primary}, ScriptPack::load(kOurs), "");
  live.set_replica_factory([] { return std::make_unique<RedisServer>(); });
  ServerFaultConfig faults;
  faults.replica_lag_ms = {100};
  live.configure_server_faults(faults);
  ModelBackend primary_model;
  ReplicatedBackend model(primary_model, std::make_unique<ModelBackend>(1), {100});
  const auto both = [&](const ScriptCall& call, int64_t t_ms) {
    const ExecResult m = model.execute(0, call, t_ms * 1000);
    const ExecResult l = live.execute(0, call, t_ms * 1000);
    EXPECT_EQ(l.reply, m.reply) << call.params.lock << " at " << t_ms;
    EXPECT_EQ(l.holders_after, m.holders_after);
  };
  both(acquire_on("L", cases::kA, 30'000), kT);
  both(acquire_on("M", cases::kA, 50), kT + 50);  // expires at kT + 100: the sweep's DEL replicates too
  both(acquire_on("N", cases::kA, 30'000), kT + 120);
  both(acquire_on("P", cases::kB, 30'000), kT + 130);
  // At kT + 170 the replica has what ran by kT + 70 (L, M); N and P are lost.
  const FailoverResult m = model.failover(0, (kT + 170) * 1000);
  const FailoverResult l = live.failover(0, (kT + 170) * 1000);
  EXPECT_TRUE(l.promoted);
  EXPECT_EQ(l.lag_ms, m.lag_ms);
  EXPECT_EQ(l.lost_writes, 2);
  EXPECT_EQ(l.lost_writes, m.lost_writes);
  EXPECT_EQ(live.snapshot(0, (kT + 180) * 1000), model.snapshot(0, (kT + 180) * 1000));
  both(acquire_on("N", cases::kB, 30'000), kT + 190);  // the promoted replica never saw A's N
  both(acquire_on("L", cases::kB, 30'000), kT + 200);  // but it has A's L
  EXPECT_FALSE(live.failover(0, (kT + 300) * 1000).promoted);  // no replica left
  // A new run points index 0 at the given server again, with a new replica.
  live.wipe();
  live.configure_server_faults(faults);
  EXPECT_TRUE(live.snapshot(0, kT * 1000).empty());
  EXPECT_TRUE(live.execute(0, acquire_on("L", cases::kA, 30'000), kT * 1000).reply.is_nil());
  live.restart(0);  // an empty primary: its replica starts over, empty too
  EXPECT_TRUE(live.failover(0, (kT + 1'000) * 1000).promoted);
  EXPECT_TRUE(live.snapshot(0, (kT + 1'000) * 1000).empty());
}

TEST(LiveServerFaults, FailoverWithPersistenceAlwaysIsRefused) {
  RedisServer primary;
  LiveBackend live({&primary}, ScriptPack::load(kOurs), "");
  live.set_replica_factory([] { return std::make_unique<RedisServer>(); });
  ServerFaultConfig faults;
  faults.replica_lag_ms = {100};
  faults.persistence = Persistence::Always;
  EXPECT_THROW(live.configure_server_faults(faults), std::invalid_argument);
  LiveBackend no_factory({&primary}, ScriptPack::load(kOurs), "");
  faults.persistence = Persistence::None;
  EXPECT_THROW(no_factory.configure_server_faults(faults), std::invalid_argument);
}

// ---- end to end: model and live traces of one seed -------------------------

std::string without_backend(std::string trace) {
  const std::string live = "\"backend\":\"live\"";
  const auto at = trace.find(live);
  if (at != std::string::npos && at < trace.find('\n')) trace.replace(at, live.size(), "\"backend\":\"model\"");
  return trace;
}

// `run` on the model and on live with `args`; the traces must be identical
// but for the backend, and the live trace must replay identically.
void expect_model_and_live_identical(const std::string& name, const std::string& args,
                                     const std::string& fault_text) {
  const fs::path dir = fs::path(LOCKSIM_BINARY_DIR) / "test-live-server-faults";
  fs::create_directories(dir);
  const fs::path model = dir / (name + "-model.jsonl");
  const fs::path live = dir / (name + "-live.jsonl");
  const CliRun m = run_locksim("run --backend model " + args + " --trace " + model.string());
  const CliRun l = run_locksim("run --backend live " + args + " --trace " + live.string());
  ASSERT_NE(m.exit_code, 2) << m.out;
  EXPECT_EQ(l.exit_code, m.exit_code) << l.out;
  const std::string model_trace = read_file(model);
  const std::string live_trace = read_file(live);
  ASSERT_NE(live_trace.find("\"backend\":\"live\""), std::string::npos);
  EXPECT_NE(model_trace.find(fault_text), std::string::npos) << name << ": no " << fault_text << " in the trace";
  EXPECT_TRUE(without_backend(live_trace) == model_trace) << name << ": live and model traces differ";
  const CliRun r = run_locksim("replay " + live.string());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("reproduced identically"), std::string::npos) << r.out;
}

TEST(LiveServerFaultsTrace, RestartWithoutPersistence) {
  expect_model_and_live_identical("restarts", "--seed 1 --lock redlock --servers 5 --profile restarts --duration-s 13",
                                  "\"redis_restart\"");
}

TEST(LiveServerFaultsTrace, RestartWithPersistenceAlways) {
  expect_model_and_live_identical(
      "restarts-always", "--seed 1 --lock redlock --servers 5 --profile restarts --persistence always --duration-s 13",
      "persistence always");
}

TEST(LiveServerFaultsTrace, Failover) {
  expect_model_and_live_identical("failover", "--seed 28 --profile failover --duration-s 15", "\"failover\"");
}

TEST(LiveServerFaultsTrace, RestartOfAPrimaryWithAReplicaThenFailover) {
  // Server 1 fails over; servers 2 and 0 restart empty while their replicas
  // follow them (each replica starts over from the empty primary).
  expect_model_and_live_identical(
      "failover-restarts", "--seed 4 --lock redlock --servers 3 --profile failover+restarts --duration-s 40",
      "\"failover\"");
}

TEST(LiveServerFaultsTrace, ServerClockJumps) {
  // Server 1's clock jumps 22.8 s back, later 20.6 s forward.
  expect_model_and_live_identical("server-clock",
                                  "--seed 5 --lock redlock --servers 3 --profile server-clock --duration-s 40",
                                  "\"op\":\"clock_jump\",\"dur\":-");
}

}  // namespace
}  // namespace locksim
