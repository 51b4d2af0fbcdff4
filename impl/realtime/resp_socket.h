// RespSocket: one TCP connection to Redis that can be written from any thread
// while a reader thread of its own parses every reply (RESP2, through
// hiredis's reply parser) and hands it to a callback. Used for the real-time
// client's pipelined command connections and its subscriber connections,
// where writes must not wait for replies.
//
// Contract:
//  - The constructor connects (connect timeout from the options) or throws
//    RedisError "redis HOST:PORT: connect: <why>", then starts the reader.
//  - send(commands) writes the commands back to back (a pipeline) under a
//    mutex, so concurrent senders never interleave; false once the socket is
//    closed or the write failed (*error says why, naming the server).
//  - on_reply(reply) runs on the reader thread, once per reply, in order.
//    on_closed(why) runs on the reader thread exactly once when the
//    connection ends for any reason other than close() (EOF, error, a
//    malformed reply); no callback runs after it.
//  - close() (idempotent; the destructor) shuts the socket down and joins
//    the reader; after it returns no callback runs. Not from a callback.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "impl/redis_conn.h"
#include "redis/reply.h"

namespace locksim {

class RespSocket {
 public:
  using OnReply = std::function<void(Reply reply)>;
  using OnClosed = std::function<void(const std::string& why)>;

  RespSocket(const RedisConnOptions& options, OnReply on_reply, OnClosed on_closed);
  ~RespSocket();
  RespSocket(const RespSocket&) = delete;
  RespSocket& operator=(const RespSocket&) = delete;

  bool send(const std::vector<std::vector<std::string>>& commands, std::string* error);
  void close();
  bool open() const { return open_.load(); }
  const std::string& where() const { return where_; }  // "redis host:port"

 private:
  void read_loop();

  std::string where_;
  int fd_ = -1;
  OnReply on_reply_;
  OnClosed on_closed_;
  std::mutex write_mutex_;
  std::atomic<bool> open_{true};
  std::atomic<bool> closing_{false};
  std::thread reader_;
};

}  // namespace locksim
