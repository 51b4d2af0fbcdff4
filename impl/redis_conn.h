// RedisConn: one blocking hiredis connection with connect and I/O timeouts.
// Every failure throws RedisError whose message says what failed and where
// ("redis 127.0.0.1:6390: connect: Connection refused",
//  "redis 127.0.0.1:6390: EVALSHA: read timed out after 2000 ms").
// Replies are converted to locksim::Reply (RESP2: nil, integer, bulk/status,
// error, array). A Redis error *reply* is returned as Reply::error, not thrown:
// only transport problems throw. Not thread-safe; move-only.
//
// use_resp3() switches a connection to RESP3 (HELLO 3), which hiredis 0.14
// cannot parse: from then on RedisConn writes and parses the protocol itself
// on the same socket (same timeouts and messages). A RESP3 reply is turned
// into the Reply its RESP2 form would be: null -> nil, simple string ->
// bulk, double / big number / verbatim string -> bulk of its text (Redis
// prints doubles alike in both: %.17g, "inf"), boolean -> 1 / nil (a Lua
// true / false in RESP2), map -> flat key, value array, set -> array,
// attributes skipped. A command whose RESP3 reply nests differently (ZRANGE
// WITHSCORES: [member, score] pairs) keeps the RESP3 nesting. Push messages
// (pub/sub on a subscribed RESP3 connection, which can still run commands)
// come only from read_reply(&push); command() skips them.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "redis/reply.h"

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
  // The same without copying the arguments (RESP3 connections only).
  void append_view(std::span<const std::string_view> argv);
  Reply read_reply();
  // The next reply or push message; *push tells which (RESP3; on RESP2
  // every reply is a reply).
  Reply read_reply(bool* push);

  // Sends HELLO 3 and speaks RESP3 from then on (call it with no reply
  // pending). False: the server refused (Redis < 6), still RESP2.
  bool use_resp3();
  bool resp3() const { return resp3_; }

  const std::string& where() const { return where_; }  // "redis host:port"

 private:
  RedisConn(redisContext* ctx, std::string where, int64_t io_timeout_ms);
  [[noreturn]] void fail(const std::string& what) const;
  // RESP3: the socket I/O and parser of this class.
  void flush3();
  Reply read3(bool* push, const char* what);  // `what` names it in errors
  Reply read3_reply(const char* what);         // skips push messages
  [[noreturn]] void fail3(const std::string& what, int err, bool writing) const;  // err 0: closed
  [[noreturn]] void unexpected_hello(const Reply& r) const;
  redisContext* ctx_ = nullptr;
  std::string where_;
  int64_t io_timeout_ms_ = 0;
  bool resp3_ = false;
  std::string out_;      // RESP3: commands not sent yet
  std::string in_;       // RESP3: bytes received and not parsed yet, from in_pos_
  size_t in_pos_ = 0;
};

}  // namespace locksim
