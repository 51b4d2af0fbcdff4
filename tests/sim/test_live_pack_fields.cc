// Manifest fields on a live redis-server (LiveBackend): a one-command script
// runs as that command, an absent script answers an error and touches
// nothing, reply adapters read list-shaped replies, string ARGV literals and
// concatenated keys reach Redis, and the pack's wake-up channel and unlock
// message read as today's. The list_reply test pack agrees with the model on
// random sequences; the historical one does not, and diff says where.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "sim/differential.h"
#include "sim/live_backend.h"
#include "sim/model_backend.h"
#include "model/script_cases.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

const std::string kPacks = std::string(LOCKSIM_SOURCE_DIR) + "/tests/impl/packs/";
constexpr int64_t kT = cases::kT;  // ms
constexpr int64_t kC = cases::kC;  // ms, the fair clients' clock

class LivePackFields : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RedisServerOptions o;
    o.initial_clock_us = kDiffEpochUs;
    server_ = new RedisServer(o);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  std::unique_ptr<LiveBackend> backend(const std::string& pack, const std::string& prefix = "") {
    auto live = std::make_unique<LiveBackend>(std::vector<ServerControl*>{server_},
                                              ScriptPack::load(kPacks + pack), prefix);
    live->wipe();
    return live;
  }
  static RedisServer* server_;
};
RedisServer* LivePackFields::server_ = nullptr;

TEST_F(LivePackFields, BarePexpireRenewalRunsAsACommand) {
  auto live = backend("historical");
  ASSERT_TRUE(live->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  // A plain PEXPIRE does not check the owner: B "renews" A's lock.
  const ExecResult r = live->execute(0, cases::renew(cases::kB, 90'000), (kT + 10) * 1000);
  EXPECT_EQ(r.reply, Reply::of_int(1));
  EXPECT_EQ(r.holders_after, (std::vector<std::string>{cases::kA}));
  const auto keys = live->snapshot(0, (kT + 10) * 1000);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].pttl_ms, 90'000);
  // The model (our renewal) refuses B.
  ModelBackend model;
  model.execute(0, cases::acquire(cases::kA), kT * 1000);
  EXPECT_EQ(model.execute(0, cases::renew(cases::kB, 90'000), (kT + 10) * 1000).reply, Reply::of_int(0));
}

TEST_F(LivePackFields, AbsentScriptAnswersAnErrorAndChangesNothing) {
  auto live = backend("historical");
  ASSERT_TRUE(live->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  const ExecResult r = live->execute(0, cases::force_release(), kT * 1000);
  ASSERT_TRUE(r.reply.is_error());
  EXPECT_NE(r.reply.text.find("rlock_force_release is absent"), std::string::npos) << r.reply.text;
  EXPECT_TRUE(r.published.empty());
  EXPECT_EQ(r.holders_after, (std::vector<std::string>{cases::kA}));  // still held
  // The fair give-up too: B stays in the line.
  ASSERT_EQ(live->execute(0, cases::fair_acquire(cases::kB, kC), kT * 1000).reply, Reply::of_int(30'000));
  const ExecResult gone = live->execute(0, cases::fair_acquire_failed(cases::kB), kT * 1000);
  EXPECT_TRUE(gone.reply.is_error());
  EXPECT_EQ(live->snapshot(0, kT * 1000).size(), 3u);  // lock, line, deadlines
}

TEST_F(LivePackFields, FairReleaseWakesTheNextWaiterUnderTodaysNames) {
  auto live = backend("historical");
  // A takes the fair lock, B waits (slot 5 s, whatever B's wait).
  ASSERT_TRUE(live->execute(0, cases::fair_acquire(cases::kA, kC), kT * 1000).reply.is_nil());
  ASSERT_EQ(live->execute(0, cases::fair_acquire(cases::kB, kC, cases::kLease, 60'000), kT * 1000).reply,
            Reply::of_int(30'000));
  const auto keys = live->snapshot(0, kT * 1000);
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[2].key, cases::deadlines());  // the concatenated key name is ours
  EXPECT_EQ(keys[2].value, cases::kB + ":" + format_score(static_cast<double>(kC + 30'000 + 5'000)));
  // Released: the script publishes 'unlocked' on "<prefix>/B:1"; read as
  // today's "0" on "<prefix>:B:1", so the waiter's subscription hears it.
  const ExecResult r = live->execute(0, cases::fair_release(cases::kA, kC, "r1"), kT * 1000);
  EXPECT_EQ(r.reply, Reply::of_int(1));
  EXPECT_EQ(r.published, (std::vector<Published>{cases::unlocked(cases::waiter_channel(cases::kB))}));
}

TEST_F(LivePackFields, StringArgvLiteralNamesThePublishCommand) {
  auto live = backend("list_reply");
  ASSERT_TRUE(live->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  const ExecResult r = live->execute(0, cases::release(cases::kA, "r1"), kT * 1000);
  EXPECT_EQ(r.reply, Reply::of_int(1));
  EXPECT_EQ(r.published, (std::vector<Published>{cases::unlocked(cases::channel())}));
}

TEST_F(LivePackFields, FirstReadsAOneElementListReply) {
  auto live = backend("list_reply");
  ASSERT_TRUE(live->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  EXPECT_EQ(live->execute(0, cases::renew(cases::kA), kT * 1000).reply, Reply::of_int(1));
  EXPECT_EQ(live->execute(0, cases::renew(cases::kB), kT * 1000).reply, Reply::of_int(0));
}

DiffReport diff_against_model(const std::string& pack, int sequences) {
  RedisServerOptions o;
  o.initial_clock_us = kDiffEpochUs;
  RedisServer server(o);
  LiveBackend live({&server}, ScriptPack::load(kPacks + pack), kDiffKeyPrefix);
  ModelBackend model;
  DiffOptions options;
  options.sequences = sequences;
  options.length = 30;
  options.seed = 3;
  return run_differential(options, DiffSide{&model, [&model] { model.wipe(); }},
                          DiffSide{&live, [&live] { live.wipe(); }});
}

TEST(LivePackDiff, ListReplyPackAgreesWithTheModel) {
  const DiffReport r = diff_against_model("list_reply", 40);
  EXPECT_EQ(r.divergences, 0) << format_counterexample(r, "model", "live");
  EXPECT_EQ(r.sequences_run, 40);
}

TEST(LivePackDiff, HistoricalPackDiverges) {
  const DiffReport r = diff_against_model("historical", 40);
  EXPECT_EQ(r.divergences, 1);
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// A pack with a plain command runs on the RESP2 marker pipeline: messages
// another client publishes between two scripts are not the next script's,
// and the script's own are.
TEST_F(LivePackFields, MarkerPipelineIgnoresMessagesPublishedBeforeTheScript) {
  auto live = backend("historical");
  RedisConn other = RedisConn::connect(RedisConnOptions{server_->host(), server_->port()});
  ASSERT_TRUE(live->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  ASSERT_EQ(other.command({"PUBLISH", "elsewhere", "hello"}), Reply::of_int(1));
  const ExecResult r = live->execute(0, cases::release(cases::kA, "r1"), kT * 1000);
  ASSERT_EQ(r.reply, Reply::of_int(1));
  ASSERT_EQ(r.published.size(), 1u);
  EXPECT_NE(r.published[0].channel, "elsewhere");
}

// The same on the one-connection pipeline of an all-Lua pack.
TEST_F(LivePackFields, OneConnectionIgnoresMessagesPublishedBeforeTheScript) {
  auto live = std::make_unique<LiveBackend>(std::vector<ServerControl*>{server_},
                                            ScriptPack::load(ScriptPack::default_dir()), "");
  live->wipe();
  RedisConn other = RedisConn::connect(RedisConnOptions{server_->host(), server_->port()});
  ASSERT_TRUE(live->execute(0, cases::acquire(cases::kA), kT * 1000).reply.is_nil());
  ASSERT_EQ(other.command({"PUBLISH", "elsewhere", "hello"}), Reply::of_int(1));
  const ExecResult r = live->execute(0, cases::release(cases::kA, "r1"), kT * 1000);
  ASSERT_EQ(r.reply, Reply::of_int(1));
  ASSERT_EQ(r.published.size(), 1u);
  EXPECT_NE(r.published[0].channel, "elsewhere");
  // The next script publishes nothing: the foreign message after it is not its.
  ASSERT_EQ(other.command({"PUBLISH", "elsewhere", "again"}), Reply::of_int(1));
  EXPECT_TRUE(live->execute(0, cases::acquire(cases::kB), kT * 1000).published.empty());
}

}  // namespace
}  // namespace locksim
