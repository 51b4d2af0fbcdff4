// The hiredis wrapper fails with messages that say what failed and where, and
// never hangs: connect refused, read timeout on a silent peer, bad port.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "impl/redis_conn.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

// A loopback socket that accepts connections (backlog) but never answers.
struct SilentListener {
  int fd = -1;
  int port = 0;
  SilentListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd, 4);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~SilentListener() { ::close(fd); }
};

int closed_port() {
  SilentListener l;  // bound then closed: nothing listens there afterwards
  return l.port;
}

TEST(RedisConn, RefusedConnectionNamesTheEndpoint) {
  RedisConnOptions opts;
  opts.port = closed_port();
  try {
    RedisConn::connect(opts);
    FAIL() << "expected RedisError";
  } catch (const RedisError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(opts.port)), std::string::npos) << msg;
    EXPECT_NE(msg.find("connect"), std::string::npos) << msg;
  }
}

TEST(RedisConn, SilentPeerTimesOutInsteadOfHanging) {
  SilentListener silent;
  RedisConnOptions opts;
  opts.port = silent.port;
  opts.io_timeout_ms = 150;
  auto conn = RedisConn::connect(opts);  // the kernel completes the handshake
  try {
    conn.command({"PING"});
    FAIL() << "expected RedisError";
  } catch (const RedisError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("PING"), std::string::npos) << msg;
    EXPECT_NE(msg.find("timed out after 150 ms"), std::string::npos) << msg;
  }
}

TEST(RedisConn, InvalidPortIsRejected) {
  RedisConnOptions opts;
  opts.port = 70000;
  EXPECT_THROW(RedisConn::connect(opts), RedisError);
}

TEST(RedisConn, ErrorRepliesAreValuesNotExceptions) {
  RedisServer server;
  RedisConnOptions opts;
  opts.port = server.port();
  auto conn = RedisConn::connect(opts);
  Reply r = conn.command({"SET", "k", "v", "PX", "0"});
  ASSERT_TRUE(r.is_error());
  EXPECT_NE(r.text.find("invalid expire time"), std::string::npos) << r.text;
  EXPECT_EQ(conn.command({"PING"}), Reply::bulk("PONG"));
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// RESP3 (use_resp3): the replies a RESP2 connection would get, pushes apart.
TEST(RedisConnResp3, RepliesAreThoseOfResp2) {
  RedisServer server;
  RedisConnOptions opts;
  opts.port = server.port();
  auto resp2 = RedisConn::connect(opts);
  auto resp3 = RedisConn::connect(opts);
  ASSERT_TRUE(resp3.use_resp3());
  ASSERT_TRUE(resp3.resp3());
  ASSERT_FALSE(resp2.command({"HSET", "h", "a", "1", "b", "2"}).is_error());
  ASSERT_FALSE(resp2.command({"ZADD", "z", "1.5", "m", "1e300", "n"}).is_error());
  ASSERT_FALSE(resp2.command({"SADD", "s", "x"}).is_error());
  const std::vector<std::vector<std::string>> commands = {
      {"HGETALL", "h"},  // a map in RESP3
      {"HKEYS", "h"},
      {"ZSCORE", "z", "m"},  // a double in RESP3
      {"ZSCORE", "z", "n"},
      {"SMEMBERS", "s"},  // a set in RESP3
      {"GET", "missing"},  // null
      {"HGETALL", "missing"},
      {"SET", "k", "v"},  // a simple string
      {"TYPE", "h"},
      {"PTTL", "h"},
      {"EVAL", "return false", "0"},  // a Lua false: nil
      {"EVAL", "return true", "0"},
      {"EVAL", "return {1, 'a', {2, false}}", "0"},
      {"EVAL", "return {double = 2.25}", "0"},
      {"EVAL", "return redis.error_reply('MY error')", "0"},
      {"EVAL", "redis.setresp(3); return redis.call('hgetall', KEYS[1])", "1", "h"},
      {"EVAL", "redis.setresp(3); return redis.call('zscore', KEYS[1], 'm')", "1", "z"},
      {"HSET", "k", "f", "v"},  // WRONGTYPE
  };
  for (const auto& c : commands) {
    EXPECT_EQ(resp3.command(c), resp2.command(c)) << c[0] << " " << (c.size() > 1 ? c[1] : "");
  }
  const Reply info = resp3.command({"INFO", "server"});  // a verbatim string in RESP3
  ASSERT_EQ(info.kind, Reply::Kind::Bulk);
  EXPECT_EQ(info.text.rfind("# Server", 0), 0u) << info.text.substr(0, 20);
}

TEST(RedisConnResp3, PushMessagesOnlyThroughReadReplyWithPush) {
  RedisServer server;
  RedisConnOptions opts;
  opts.port = server.port();
  auto other = RedisConn::connect(opts);
  auto conn = RedisConn::connect(opts);
  ASSERT_TRUE(conn.use_resp3());
  conn.append({"PSUBSCRIBE", "*"});
  bool push = false;
  const Reply confirmation = conn.read_reply(&push);
  EXPECT_TRUE(push);
  ASSERT_EQ(confirmation.elements.size(), 3u);
  EXPECT_EQ(confirmation.elements[0], Reply::bulk("psubscribe"));
  // A subscribed RESP3 connection still runs commands; command() skips the
  // messages published meanwhile.
  ASSERT_EQ(other.command({"PUBLISH", "ch", "dropped"}), Reply::of_int(1));
  EXPECT_EQ(conn.command({"PING"}), Reply::bulk("PONG"));
  ASSERT_EQ(other.command({"PUBLISH", "ch", "kept"}), Reply::of_int(1));
  conn.append({"PING"});
  const Reply message = conn.read_reply(&push);
  EXPECT_TRUE(push);
  ASSERT_EQ(message.elements.size(), 4u);
  EXPECT_EQ(message.elements[0], Reply::bulk("pmessage"));
  EXPECT_EQ(message.elements[2], Reply::bulk("ch"));
  EXPECT_EQ(message.elements[3], Reply::bulk("kept"));
  EXPECT_EQ(conn.read_reply(&push), Reply::bulk("PONG"));
  EXPECT_FALSE(push);
  // A script's own publish reaches its own connection before the reply.
  conn.append({"EVAL", "redis.call('publish', 'own', 'm'); return 7", "0"});
  const Reply own = conn.read_reply(&push);
  EXPECT_TRUE(push);
  ASSERT_EQ(own.elements.size(), 4u);
  EXPECT_EQ(own.elements[2], Reply::bulk("own"));
  EXPECT_EQ(conn.read_reply(&push), Reply::of_int(7));
  EXPECT_FALSE(push);
}

// A peer that answers HELLO with `hello` (an empty map: RESP3), then sends
// `canned` a few bytes at a time (so replies arrive split across reads),
// then stays open until the client closes.
struct CannedPeer {
  SilentListener listener;
  std::thread thread;
  explicit CannedPeer(std::string canned, std::string hello = "%0\r\n") {
    thread = std::thread([this, canned = std::move(canned), hello = std::move(hello)] {
      const int fd = ::accept(listener.fd, nullptr, nullptr);
      if (fd < 0) return;
      char buf[256];
      (void)::read(fd, buf, sizeof buf);  // HELLO 3
      (void)::write(fd, hello.data(), hello.size());
      (void)::read(fd, buf, sizeof buf);  // the test's commands
      for (size_t i = 0; i < canned.size(); i += 3) {
        (void)::write(fd, canned.data() + i, std::min<size_t>(3, canned.size() - i));
        ::usleep(200);
      }
      (void)::read(fd, buf, sizeof buf);  // until the test closes
      ::close(fd);
    });
  }
  ~CannedPeer() { thread.join(); }
};

TEST(RedisConnResp3, EveryTypeSplitAcrossReads) {
  const std::string canned =
      "%2\r\n+k\r\n,3.5\r\n$1\r\nb\r\n_\r\n"  // map
      "|1\r\n+ttl\r\n:3\r\n#t\r\n"             // attribute, then a boolean
      "#f\r\n"
      "=8\r\ntxt:abcd\r\n"
      "(12345678901234567890\r\n"
      "!9\r\nERR blob!\r\n"
      "~2\r\n:1\r\n*-1\r\n"
      ">2\r\n$7\r\nmessage\r\n$-1\r\n"
      "-ERR plain\r\n";
  std::optional<CannedPeer> peer;
  peer.emplace(canned);
  RedisConnOptions opts;
  opts.port = peer->listener.port;
  opts.io_timeout_ms = 5000;
  {
    auto conn = RedisConn::connect(opts);
    ASSERT_TRUE(conn.use_resp3());
    conn.append({"ANYTHING"});
    Reply map;
    map.kind = Reply::Kind::Array;
    map.elements = {Reply::bulk("k"), Reply::bulk("3.5"), Reply::bulk("b"), Reply::nil()};
    bool push = true;
    EXPECT_EQ(conn.read_reply(&push), map);
    EXPECT_FALSE(push);
    EXPECT_EQ(conn.read_reply(&push), Reply::of_int(1));
    EXPECT_EQ(conn.read_reply(&push), Reply::nil());
    EXPECT_EQ(conn.read_reply(&push), Reply::bulk("abcd"));
    EXPECT_EQ(conn.read_reply(&push), Reply::bulk("12345678901234567890"));
    EXPECT_EQ(conn.read_reply(&push), Reply::error("ERR blob!"));
    Reply set;
    set.kind = Reply::Kind::Array;
    set.elements = {Reply::of_int(1), Reply::nil()};
    EXPECT_EQ(conn.read_reply(&push), set);
    const Reply message = conn.read_reply(&push);
    EXPECT_TRUE(push);
    ASSERT_EQ(message.elements.size(), 2u);
    EXPECT_EQ(conn.read_reply(), Reply::error("ERR plain"));
  }
  peer.reset();
}

TEST(RedisConnResp3, SilentPeerTimesOut) {
  std::optional<CannedPeer> peer;
  peer.emplace("");
  RedisConnOptions opts;
  opts.port = peer->listener.port;
  opts.io_timeout_ms = 150;
  {
    auto conn = RedisConn::connect(opts);
    ASSERT_TRUE(conn.use_resp3());
    try {
      conn.command({"PING"});
      FAIL() << "expected RedisError";
    } catch (const RedisError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("PING"), std::string::npos) << msg;
      EXPECT_NE(msg.find("timed out after 150 ms"), std::string::npos) << msg;
    }
  }
  peer.reset();
}

TEST(RedisConnResp3, AServerWithoutHelloStaysOnResp2) {
  std::optional<CannedPeer> peer;
  peer.emplace("+PONG\r\n", "-ERR unknown command 'HELLO'\r\n");
  RedisConnOptions opts;
  opts.port = peer->listener.port;
  {
    auto conn = RedisConn::connect(opts);
    EXPECT_FALSE(conn.use_resp3());
    EXPECT_FALSE(conn.resp3());
    EXPECT_EQ(conn.command({"PING"}), Reply::bulk("PONG"));  // through hiredis again
  }
  peer.reset();
}

}  // namespace
}  // namespace locksim
