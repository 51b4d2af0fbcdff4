#include "impl/realtime/redis_pipe.h"

#include <cassert>

namespace locksim {

RedisPipe::RedisPipe(RedisConnOptions options)
    : options_(std::move(options)), where_("redis " + options_.host + ":" + std::to_string(options_.port)) {}

RedisPipe::~RedisPipe() { close(); }

void RedisPipe::request(std::vector<std::vector<std::string>> commands, Done done) {
  assert(!commands.empty());
  std::unique_ptr<RespSocket> old;
  std::string connect_error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) {
      connect_error = "connection closed by the client";
    } else if (!socket_ || !socket_->open()) {
      old = std::move(socket_);
      auto gen = std::make_shared<Generation>();
      try {
        socket_ = std::make_unique<RespSocket>(
            options_,
            [gen](Reply reply) {
              Done finished;
              std::vector<Reply> replies;
              {
                std::lock_guard<std::mutex> g(gen->mutex);
                if (gen->pending.empty()) return;  // a reply nobody waits for (cannot happen)
                Pending& p = gen->pending.front();
                p.got.push_back(std::move(reply));
                if (p.got.size() < p.expected) return;
                finished = std::move(p.done);
                replies = std::move(p.got);
                gen->pending.pop_front();
              }
              finished(std::move(replies), "");
            },
            [gen](const std::string& why) {
              std::deque<Pending> lost;
              {
                std::lock_guard<std::mutex> g(gen->mutex);
                gen->dead = true;
                lost.swap(gen->pending);
              }
              // why = "redis host:port: <what>"; the caller names the server.
              const auto colon = why.find(": ");
              const std::string what = colon == std::string::npos ? why : why.substr(colon + 2);
              for (Pending& p : lost) p.done({}, "connection lost (" + what + ")");
            });
        gen_ = gen;
      } catch (const RedisError& e) {
        const std::string why = e.what();
        const auto colon = why.find(": ");
        connect_error = colon == std::string::npos ? why : why.substr(colon + 2);
      }
    }
    if (connect_error.empty()) {
      std::shared_ptr<Generation> gen = gen_;
      std::lock_guard<std::mutex> g(gen->mutex);
      if (gen->dead) {
        connect_error = "connection lost";
      } else {
        gen->pending.push_back(Pending{commands.size(), {}, std::move(done)});
        std::string error;
        // On a failed write the socket shuts down and the reader fails
        // everything pending, this request included.
        socket_->send(commands, &error);
      }
    }
  }
  old.reset();  // joins the old reader (outside mutex_)
  if (!connect_error.empty()) done({}, connect_error);
}

void RedisPipe::close() {
  std::unique_ptr<RespSocket> socket;
  std::shared_ptr<Generation> gen;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    socket = std::move(socket_);
    gen = std::move(gen_);
  }
  socket.reset();  // joins the reader: no reply callback after this
  if (!gen) return;
  std::deque<Pending> lost;
  {
    std::lock_guard<std::mutex> g(gen->mutex);
    gen->dead = true;
    lost.swap(gen->pending);
  }
  for (Pending& p : lost) p.done({}, "connection closed by the client");
}

}  // namespace locksim
