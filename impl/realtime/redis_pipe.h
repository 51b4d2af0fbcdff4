// RedisPipe: a pipelined command connection to one Redis server, usable from
// any thread. Each request is a group of commands written back to back; its
// `done` gets one reply per command, in order, once the last one arrived.
// Requests are answered in the order they were written (Redis answers a
// connection's commands in order), so many requests can be in flight.
//
// Contract:
//  - request() connects on first use and reconnects after a loss (blocking
//    up to the connect timeout, on the calling thread).
//  - done(replies, error) is called exactly once: on success with
//    replies.size() == commands.size() and error empty, on the connection's
//    reader thread; on failure with no replies and `error` saying what
//    happened, without the server's name ("connection lost (connection
//    closed by the server)", "connect: Connection refused"), possibly on the
//    calling thread when the connection cannot be opened. Callers that need
//    "never inside the call" post `done`'s work to their own loop.
//  - A request whose connection is lost fails, whether or not Redis ran it.
//  - close() (idempotent; the destructor) fails what is in flight and joins
//    the reader. Not from inside `done`.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "impl/realtime/resp_socket.h"

namespace locksim {

class RedisPipe {
 public:
  using Done = std::function<void(std::vector<Reply> replies, const std::string& error)>;

  explicit RedisPipe(RedisConnOptions options);
  ~RedisPipe();
  RedisPipe(const RedisPipe&) = delete;
  RedisPipe& operator=(const RedisPipe&) = delete;

  void request(std::vector<std::vector<std::string>> commands, Done done);
  void close();
  const std::string& where() const { return where_; }  // "redis host:port"

 private:
  struct Pending {
    size_t expected = 0;
    std::vector<Reply> got;
    Done done;
  };
  // One connection's in-flight requests (a reconnect starts a new one).
  struct Generation {
    std::mutex mutex;
    std::deque<Pending> pending;
    bool dead = false;
  };

  RedisConnOptions options_;
  std::string where_;
  std::mutex mutex_;  // socket_ and gen_
  std::unique_ptr<RespSocket> socket_;
  std::shared_ptr<Generation> gen_;
  bool closed_ = false;
};

}  // namespace locksim
