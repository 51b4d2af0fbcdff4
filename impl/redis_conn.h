// RedisConn: one blocking hiredis connection with connect and I/O timeouts.
// Every failure throws RedisError whose message says what failed and where
// ("redis 127.0.0.1:6390: connect: Connection refused",
//  "redis 127.0.0.1:6390: EVALSHA: read timed out after 2000 ms").
// Replies are converted to locksim::Reply (RESP2: nil, integer, bulk/status,
// error, array). A Redis error *reply* is returned as Reply::error, not thrown:
// only transport problems throw. Not thread-safe; move-only.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/reply.h"

struct redisContext;
struct redisReply;

namespace locksim {

struct RedisError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A hiredis reply as a locksim Reply (RESP2: nil, integer, bulk/status,
// error, arrays of these); other types become an error reply naming them.
Reply reply_from_hiredis(const redisReply* r);

struct RedisConnOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  int64_t connect_timeout_ms = 2000;
  int64_t io_timeout_ms = 5000;
};

class RedisConn {
 public:
  // Connects or throws RedisError.
  static RedisConn connect(const RedisConnOptions& options);

  RedisConn(RedisConn&& other) noexcept;
  RedisConn& operator=(RedisConn&& other) noexcept;
  RedisConn(const RedisConn&) = delete;
  RedisConn& operator=(const RedisConn&) = delete;
  ~RedisConn();

  // Sends one command and reads its reply.
  Reply command(const std::vector<std::string>& argv);
  // Pipelining / pub/sub: queue a command, then read replies one by one.
  void append(const std::vector<std::string>& argv);
  Reply read_reply();

  const std::string& where() const { return where_; }  // "redis host:port"

 private:
  RedisConn(redisContext* ctx, std::string where, int64_t io_timeout_ms);
  [[noreturn]] void fail(const std::string& what) const;
  redisContext* ctx_ = nullptr;
  std::string where_;
  int64_t io_timeout_ms_ = 0;
};

}  // namespace locksim
