// The lock client as a library on real threads against a live redis-server
// (impl/realtime/): reentrancy, wake-up by message, try_lock timeouts, the
// watchdog, expiry after the holder is dropped, fair order, non-owner
// unlock, connection loss; and the recorded real-time history goes through
// the same checkers as a simulated one, which catch a broken client too.
// Each test starts its own plain redis-server (wall clock). No test asserts
// speed: waits are bounded generously, far below the leases they contrast.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "impl/realtime/history_recorder.h"
#include "impl/realtime/redis_lock_client.h"
#include "impl/redis_conn.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "properties/violation.h"
#include "tools/server/redis_server.h"
#include "traces/event_sink.h"
#include "traces/trace_format.h"

namespace locksim {
namespace {

using Clock = std::chrono::steady_clock;

int64_t ms_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

void sleep_ms(int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// A thread-safe VectorSink (the recorder calls it under its own lock, but
// tests read it from their thread).
class SharedSink final : public EventSink {
 public:
  void on_event(const Event& e) override {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(e);
  }
  std::vector<Event> events() {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
};

class RealtimeLock : public ::testing::Test {
 protected:
  void SetUp() override {
    RedisServerOptions o;
    o.virtual_clock = false;
    server_ = std::make_unique<RedisServer>(o);
  }

  RedisConnOptions where() const {
    RedisConnOptions w;
    w.host = "127.0.0.1";
    w.port = server_->port();
    return w;
  }

  RedisLockClientOptions options(int64_t lease_ms = 30'000) {
    RedisLockClientOptions o;
    o.server = where();
    o.config.watchdog_lease_ms = lease_ms;
    o.history = recorder_.get();
    return o;
  }

  void record() { recorder_ = std::make_unique<HistoryRecorder>(sink_, std::vector<RedisConnOptions>{where()}); }

  // Violations of the properties that fail by default, in the recorded history.
  std::vector<Violation> check(int64_t lease_ms = 30'000) {
    recorder_->close();
    CheckConfig config = default_check_config();
    config.default_lease_ms = lease_ms;
    config.clock_epoch_ms = recorder_->wall_epoch_ms();
    std::vector<Violation> failing;
    const std::vector<Event> events = sink_.events();
    for (const Violation& v : check_history(events, config)) {
      if (!is_advisory_property(v.property)) failing.push_back(v);
    }
    if (!failing.empty()) {  // keep the history for a look (one event per line)
      const std::string path = ::testing::TempDir() + "realtime-" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".events";
      std::ofstream out(path);
      for (const Event& e : events) out << encode_event(e) << "\n";
      std::printf("history of %zu events written to %s\n", events.size(), path.c_str());
    }
    return failing;
  }

  static std::string describe(const std::vector<Violation>& vs) {
    std::string out;
    for (const Violation& v : vs) out += v.to_string() + "\n";
    return out;
  }

  Reply redis(const std::vector<std::string>& argv) {
    RedisConn conn = RedisConn::connect(where());
    return conn.command(argv);
  }

  std::unique_ptr<RedisServer> server_;
  SharedSink sink_;
  std::unique_ptr<HistoryRecorder> recorder_;
};

TEST_F(RealtimeLock, ReentrantHoldsCountPerThread) {
  record();
  RedisLockClient client(options());
  RLock lock = client.get_lock("rt:reentrant");
  lock.lock();
  lock.lock();
  const std::string owner = client.owner_of_current_thread();
  EXPECT_EQ(redis({"HGET", "rt:reentrant", owner}), Reply::bulk("2"));
  EXPECT_TRUE(lock.is_held_by_current_thread());
  lock.unlock();
  EXPECT_EQ(redis({"HGET", "rt:reentrant", owner}), Reply::bulk("1"));
  EXPECT_TRUE(lock.is_held_by_current_thread());
  lock.unlock();
  EXPECT_EQ(redis({"EXISTS", "rt:reentrant"}), Reply::of_int(0));
  EXPECT_FALSE(lock.is_held_by_current_thread());
  // Another thread of the same client is another owner.
  lock.lock();
  bool other_got_it = true;
  std::thread([&] { other_got_it = lock.try_lock(); }).join();
  EXPECT_FALSE(other_got_it);
  lock.unlock();
  const auto failing = check();
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

TEST_F(RealtimeLock, WaiterIsWokenByTheReleaseMessage) {
  record();
  RedisLockClient holder_client(options());
  RedisLockClient waiter_client(options());
  RLock held = holder_client.get_lock("rt:wake");
  held.lock();  // lease 30 s: without a message the waiter would sleep ~30 s
  std::atomic<int64_t> waited_ms{-1};
  std::thread waiter([&] {
    RLock lock = waiter_client.get_lock("rt:wake");
    const auto t0 = Clock::now();
    lock.lock();
    waited_ms = ms_since(t0);
    lock.unlock();
  });
  sleep_ms(300);
  held.unlock();
  waiter.join();
  EXPECT_GE(waited_ms.load(), 250);
  EXPECT_LT(waited_ms.load(), 15'000) << "woken by its poll timer, not by the release message";
  const auto events = sink_.events();
  const bool delivered = std::any_of(events.begin(), events.end(), [&](const Event& e) {
    return e.kind == EventKind::Deliver && e.client == waiter_client.history_client() && !e.published.empty() &&
           e.published[0] == "redisson_lock__channel:{rt:wake} 0";
  });
  EXPECT_TRUE(delivered);
  const auto failing = check();
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

TEST_F(RealtimeLock, TryLockGivesUpAfterItsWait) {
  record();
  RedisLockClient a(options());
  RedisLockClient b(options());
  RLock held = a.get_lock("rt:try");
  held.lock();
  RLock other = b.get_lock("rt:try");
  EXPECT_FALSE(other.try_lock());  // one attempt
  const auto t0 = Clock::now();
  EXPECT_FALSE(other.try_lock(400));
  const int64_t waited = ms_since(t0);
  EXPECT_GE(waited, 350);
  EXPECT_LT(waited, 15'000);
  RLock fair_held = a.get_fair_lock("rt:try-fair");
  fair_held.lock();
  RLock fair_other = b.get_fair_lock("rt:try-fair");
  EXPECT_FALSE(fair_other.try_lock(300));
  // A fair waiter that gave up has left the line (acquire_failed).
  EXPECT_EQ(redis({"LLEN", "redisson_lock_queue:{rt:try-fair}"}), Reply::of_int(0));
  fair_held.unlock();
  held.unlock();
  EXPECT_TRUE(other.try_lock(1000));
  other.unlock();
  const auto failing = check();
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

// A waiter whose wait ends while its wake-up subscription is being
// confirmed gives up from inside the confirmation, unsubscribing the channel
// the confirmation is still reading (a use after free an ASan build of this
// test caught: `locksim stress --lock fair` crashed about 1 run in 7).
TEST_F(RealtimeLock, WaitEndingAsItsSubscriptionIsConfirmed) {
  record();
  RedisLockClient a(options());
  RedisLockClient b(options());
  for (const bool fair : {false, true}) {
    RLock held = fair ? a.get_fair_lock("rt:brief-fair") : a.get_lock("rt:brief");
    held.lock();
    RLock other = fair ? b.get_fair_lock("rt:brief-fair") : b.get_lock("rt:brief");
    for (int i = 0; i < 200; ++i) EXPECT_FALSE(other.try_lock(i % 3));
    held.unlock();
  }
  const auto failing = check();
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

TEST_F(RealtimeLock, WatchdogKeepsTheLockPastItsLease) {
  record();
  RedisLockClient a(options(1000));
  RedisLockClient b(options(1000));
  RLock lock = a.get_lock("rt:watchdog");
  lock.lock();
  sleep_ms(3000);  // three leases
  EXPECT_EQ(lock.renewal_failure(), "");
  EXPECT_TRUE(lock.is_held_by_current_thread());
  const Reply pttl = redis({"PTTL", "rt:watchdog"});
  ASSERT_TRUE(pttl.is_int());
  EXPECT_GT(pttl.integer, 0);
  EXPECT_FALSE(b.get_lock("rt:watchdog").try_lock());
  lock.unlock();
  EXPECT_TRUE(b.get_lock("rt:watchdog").try_lock());
  b.get_lock("rt:watchdog").unlock();
  const auto failing = check(1000);
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

TEST_F(RealtimeLock, LockExpiresAfterItsHolderIsDropped) {
  record();
  auto a = std::make_unique<RedisLockClient>(options(1000));
  RedisLockClient b(options(1000));
  a->get_lock("rt:dropped").lock();
  const std::string a_owner = a->owner_of_current_thread();
  a.reset();  // dies without unlocking: nobody renews any more
  const Reply held = redis({"HEXISTS", "rt:dropped", a_owner});
  EXPECT_EQ(held, Reply::of_int(1)) << "the dropped client released instead of dying";
  const auto t0 = Clock::now();
  RLock lock = b.get_lock("rt:dropped");
  lock.lock();
  EXPECT_LT(ms_since(t0), 15'000);
  lock.unlock();
  const auto events = sink_.events();
  EXPECT_TRUE(std::any_of(events.begin(), events.end(),
                          [](const Event& e) { return e.kind == EventKind::Fault && e.op == Op::Crash; }));
  const auto failing = check(1000);
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

TEST_F(RealtimeLock, FairLockGrantsInArrivalOrder) {
  record();
  RedisLockClient holder(options());
  RedisLockClient waiters(options());
  RLock held = holder.get_fair_lock("rt:fair");
  held.lock();
  std::mutex m;
  std::vector<int> order;
  std::vector<std::thread> threads;
  constexpr int kWaiters = 4;
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] {
      RLock lock = waiters.get_fair_lock("rt:fair");
      lock.lock();
      {
        std::lock_guard<std::mutex> g(m);
        order.push_back(i);
      }
      lock.unlock();
    });
    // The next waiter starts once this one stands in the line.
    const auto t0 = Clock::now();
    while (ms_since(t0) < 10'000) {
      const Reply len = redis({"LLEN", "redisson_lock_queue:{rt:fair}"});
      if (len.is_int() && len.integer == i + 1) break;
      sleep_ms(5);
    }
  }
  held.unlock();
  for (auto& t : threads) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  const auto failing = check();
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

TEST_F(RealtimeLock, UnlockByANonOwnerIsRejected) {
  record();
  RedisLockClient a(options());
  RedisLockClient b(options());
  RLock lock = a.get_lock("rt:owner");
  EXPECT_THROW(lock.unlock(), LockNotHeldError);  // never locked
  lock.lock();
  const std::string owner = a.owner_of_current_thread();
  std::thread([&] { EXPECT_THROW(lock.unlock(), LockNotHeldError); }).join();  // same client, other thread
  EXPECT_THROW(b.get_lock("rt:owner").unlock(), LockNotHeldError);          // other client
  try {
    b.get_lock("rt:owner").unlock();
  } catch (const LockNotHeldError& e) {
    EXPECT_NE(std::string(e.what()).find("rt:owner"), std::string::npos) << e.what();
  }
  EXPECT_EQ(redis({"HGET", "rt:owner", owner}), Reply::bulk("1"));  // nothing changed
  lock.unlock();
  const auto failing = check();
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

TEST_F(RealtimeLock, ConnectionLossStopsTheWatchdogAndNamesServerAndCommand) {
  RedisLockClientOptions o = options(1500);
  o.config.request_timeout_ms = 500;
  std::atomic<int> losses{0};
  o.on_lock_lost = [&](const LockLoss&) { ++losses; };
  RedisLockClient client(o);
  RLock lock = client.get_lock("rt:loss");
  lock.lock();
  server_->stop();
  const auto t0 = Clock::now();
  while (lock.renewal_failure().empty() && ms_since(t0) < 20'000) sleep_ms(20);
  const std::string failure = lock.renewal_failure();
  const std::string port = std::to_string(server_->port());
  EXPECT_NE(failure.find("127.0.0.1:" + port), std::string::npos) << failure;
  EXPECT_NE(failure.find("rlock_renew"), std::string::npos) << failure;
  EXPECT_EQ(losses.load(), 1);
  try {
    lock.unlock();
    ADD_FAILURE() << "unlock on a dead server did not throw";
  } catch (const LockRedisError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("127.0.0.1:" + port), std::string::npos) << what;
    EXPECT_NE(what.find("EVALSHA rlock_release"), std::string::npos) << what;
  }
  try {
    RedisLockClient dead(o);
    ADD_FAILURE() << "a client on a dead server was created";
  } catch (const LockRedisError& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + port), std::string::npos) << e.what();
  }
}

TEST_F(RealtimeLock, RedisErrorReplyNamesServerAndCommand) {
  ASSERT_EQ(redis({"SET", "rt:string", "not a hash"}), Reply::bulk("OK"));
  RedisLockClient client(options());
  const std::string port = std::to_string(server_->port());
  try {
    client.get_lock("rt:string").lock();
    ADD_FAILURE() << "lock() on a string key did not throw";
  } catch (const LockRedisError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("redis 127.0.0.1:" + port), std::string::npos) << what;
    EXPECT_NE(what.find("EVALSHA rlock_acquire"), std::string::npos) << what;
    EXPECT_NE(what.find("WRONGTYPE"), std::string::npos) << what;
  }
}

TEST_F(RealtimeLock, ContendedHistoryPassesTheCheckers) {
  record();
  constexpr int kClients = 2;
  constexpr int kThreadsPerClient = 4;
  std::vector<std::unique_ptr<RedisLockClient>> clients;
  for (int c = 0; c < kClients; ++c) clients.push_back(std::make_unique<RedisLockClient>(options()));
  std::atomic<int> inside[2] = {0, 0};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    for (int t = 0; t < kThreadsPerClient; ++t) {
      threads.emplace_back([&, c, t] {
        for (int i = 0; i < 25; ++i) {
          const int k = (t + i) % 2;
          RLock lock = k == 0 ? clients[c]->get_lock("rt:c0") : clients[c]->get_fair_lock("rt:c1");
          lock.lock();
          if (inside[k].fetch_add(1) != 0) ++overlaps;
          inside[k].fetch_sub(1);
          lock.unlock();
        }
      });
    }
  }
  for (auto& t : threads) t.join();
  clients.clear();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(recorder_->scripts_unordered(), 0u);
  EXPECT_EQ(recorder_->scripts_dropped(), 0u);
  const auto failing = check();
  EXPECT_TRUE(failing.empty()) << describe(failing);
}

// The same detectors catch a broken client: lease_unit_seconds passes a
// 500 ms lease as 0, so Redis drops the key at once and two holds overlap.
TEST_F(RealtimeLock, CheckersCatchABrokenClient) {
  record();
  RedisLockClientOptions broken = options();
  broken.config.mutant = ClientMutant::LeaseUnitSeconds;
  RedisLockClient a(broken);
  RedisLockClient b(broken);
  a.get_lock("rt:broken").lock(500);
  const bool b_got_it = b.get_lock("rt:broken").try_lock(0, 500);
  EXPECT_TRUE(b_got_it);
  EXPECT_THROW(a.get_lock("rt:broken").unlock(), LockNotHeldError);
  if (b_got_it) {
    EXPECT_THROW(b.get_lock("rt:broken").unlock(), LockNotHeldError);
  }
  const auto failing = check();
  const bool caught = std::any_of(failing.begin(), failing.end(),
                                  [](const Violation& v) { return v.property == property::kMutualExclusion; });
  EXPECT_TRUE(caught) << describe(failing);
}

}  // namespace
}  // namespace locksim
