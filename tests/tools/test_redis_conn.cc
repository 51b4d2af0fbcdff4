// The hiredis wrapper fails with messages that say what failed and where, and
// never hangs: connect refused, read timeout on a silent peer, bad port.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

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
