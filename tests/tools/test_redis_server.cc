// The foundation's live-Redis tests: redis-server under the vclock shim keeps
// virtual time exactly (expiry, PTTL, TIME), servers keep independent clocks,
// and no redis-server outlives its owner, even one killed with SIGKILL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "impl/redis_conn.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

constexpr int64_t kT0Ms = 1'700'000'000'000;

RedisConn connect_to(const RedisServer& server) {
  RedisConnOptions opts;
  opts.port = server.port();
  return RedisConn::connect(opts);
}

// True once pid no longer names a live process (a zombie counts as dead).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, comm, state;
  if (!(stat >> pid_text >> comm >> state)) return true;
  return state == "Z" || state == "X";
}

bool wait_gone(pid_t pid, int limit_ms) {
  for (int waited_ms = 0; waited_ms < limit_ms; waited_ms += 10) {
    if (process_gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return process_gone(pid);
}

TEST(VirtualClock, ExpiryFollowsTheClockToTheMillisecond) {
  RedisServer server;
  auto conn = connect_to(server);
  server.set_clock_ms(kT0Ms);
  ASSERT_EQ(conn.command({"SET", "k", "v", "PX", "1000"}), Reply::bulk("OK"));
  server.set_clock_ms(kT0Ms + 999);
  EXPECT_EQ(conn.command({"GET", "k"}), Reply::bulk("v"));
  server.set_clock_ms(kT0Ms + 1000);  // now == expire_at: still there (strict rule)
  EXPECT_EQ(conn.command({"GET", "k"}), Reply::bulk("v"));
  EXPECT_EQ(conn.command({"PTTL", "k"}), Reply::of_int(0));
  server.set_clock_ms(kT0Ms + 1001);  // now > expire_at: gone
  EXPECT_EQ(conn.command({"GET", "k"}), Reply::nil());
  EXPECT_EQ(conn.command({"EXISTS", "k"}), Reply::of_int(0));
}

TEST(VirtualClock, PttlAnswersFromVirtualTime) {
  RedisServer server;
  auto conn = connect_to(server);
  server.set_clock_ms(kT0Ms);
  ASSERT_EQ(conn.command({"SET", "k", "v", "PX", "5000"}), Reply::bulk("OK"));
  server.set_clock_ms(kT0Ms + 1234);
  EXPECT_EQ(conn.command({"PTTL", "k"}), Reply::of_int(3766));
  // Real time passing changes nothing while the virtual clock is frozen.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(conn.command({"PTTL", "k"}), Reply::of_int(3766));
  EXPECT_EQ(conn.command({"PTTL", "absent"}), Reply::of_int(-2));
  ASSERT_EQ(conn.command({"SET", "forever", "v"}), Reply::bulk("OK"));
  EXPECT_EQ(conn.command({"PTTL", "forever"}), Reply::of_int(-1));
}

TEST(VirtualClock, MicrosecondClockIsWhatTimeReports) {
  RedisServer server;
  auto conn = connect_to(server);
  server.set_clock_us(kT0Ms * 1000 + 123'456);
  Reply time = conn.command({"TIME"});
  ASSERT_EQ(time.kind, Reply::Kind::Array);
  ASSERT_EQ(time.elements.size(), 2u);
  EXPECT_EQ(time.elements[0].text, std::to_string(kT0Ms / 1000 + 0));
  EXPECT_EQ(time.elements[1].text, "123456");
  EXPECT_EQ(server.clock_us(), kT0Ms * 1000 + 123'456);
}

TEST(VirtualClock, ClockCanGoBackwards) {
  RedisServer server;
  auto conn = connect_to(server);
  server.set_clock_ms(kT0Ms);
  ASSERT_EQ(conn.command({"SET", "k", "v", "PX", "100"}), Reply::bulk("OK"));
  server.set_clock_ms(kT0Ms + 500);
  // Virtual time may move backwards (a clock jump on the server): the key,
  // never read while it was past its expiry, is alive again with more PTTL.
  server.set_clock_ms(kT0Ms - 50);
  EXPECT_EQ(conn.command({"PTTL", "k"}), Reply::of_int(150));
}

TEST(VirtualClock, TwoServersKeepIndependentClocks) {
  RedisServer a;
  RedisServer b;
  ASSERT_NE(a.port(), b.port());
  auto ca = connect_to(a);
  auto cb = connect_to(b);
  a.set_clock_ms(kT0Ms);
  b.set_clock_ms(kT0Ms);
  ASSERT_EQ(ca.command({"SET", "k", "v", "PX", "1000"}), Reply::bulk("OK"));
  ASSERT_EQ(cb.command({"SET", "k", "v", "PX", "1000"}), Reply::bulk("OK"));
  a.set_clock_ms(kT0Ms + 1001);
  b.set_clock_ms(kT0Ms + 400);
  EXPECT_EQ(ca.command({"EXISTS", "k"}), Reply::of_int(0));
  EXPECT_EQ(cb.command({"PTTL", "k"}), Reply::of_int(600));
}

TEST(RedisServer, RestartLosesDataKeepsPortAndClock) {
  RedisServer server;
  const int port = server.port();
  auto conn = connect_to(server);
  server.set_clock_ms(kT0Ms);
  ASSERT_EQ(conn.command({"SET", "k", "v"}), Reply::bulk("OK"));
  server.restart();
  EXPECT_EQ(server.port(), port);
  auto again = connect_to(server);
  EXPECT_EQ(again.command({"EXISTS", "k"}), Reply::of_int(0));
  EXPECT_EQ(server.clock_us(), kT0Ms * 1000);
  Reply time = again.command({"TIME"});
  ASSERT_EQ(time.elements.size(), 2u);
  EXPECT_EQ(time.elements[0].text, std::to_string(kT0Ms / 1000));
}

TEST(RedisServer, DestructorAndExceptionStopTheProcess) {
  pid_t pid = -1;
  {
    RedisServer server;
    pid = server.pid();
    ASSERT_GT(pid, 0);
    EXPECT_FALSE(process_gone(pid));
  }
  EXPECT_TRUE(wait_gone(pid, 2000));

  pid_t pid2 = -1;
  try {
    RedisServer server;
    pid2 = server.pid();
    throw std::runtime_error("unwind");
  } catch (const std::runtime_error&) {
  }
  ASSERT_GT(pid2, 0);
  EXPECT_TRUE(wait_gone(pid2, 2000));
}

TEST(RedisServer, NoServerLeftBehindWhenTheOwnerIsKilled) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t owner = ::fork();
  ASSERT_GE(owner, 0);
  if (owner == 0) {
    ::close(fds[0]);
    RedisServer server;
    const pid_t redis_pid = server.pid();
    if (::write(fds[1], &redis_pid, sizeof redis_pid) != sizeof redis_pid) ::_exit(3);
    for (;;) ::pause();  // until SIGKILL
  }
  ::close(fds[1]);
  pid_t redis_pid = -1;
  ASSERT_EQ(::read(fds[0], &redis_pid, sizeof redis_pid), static_cast<ssize_t>(sizeof redis_pid));
  ::close(fds[0]);
  ASSERT_GT(redis_pid, 0);
  EXPECT_FALSE(process_gone(redis_pid));
  ASSERT_EQ(::kill(owner, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(owner, &status, 0), owner);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(wait_gone(redis_pid, 5000)) << "redis-server " << redis_pid << " survived its owner";
}

TEST(RedisServer, BadBinaryGivesAClearError) {
  RedisServerOptions opts;
  opts.redis_server_path = "/nonexistent/redis-server";
  try {
    RedisServer server(opts);
    FAIL() << "expected RedisError";
  } catch (const RedisError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/redis-server"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace locksim
