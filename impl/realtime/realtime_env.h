// RealtimeEnv: the lock client's ClientEnv (impl/client_env.h) in real time,
// for one client process: its scripts go over one pipelined command
// connection per server (RedisPipe), its wake-up channels over one
// subscriber connection per server that multiplexes every channel its
// waiters listen to, its timers run on an EventLoop (monotonic clock), and
// now_ms() is the wall clock (what the fair lock's deadlines use).
//
// Contract (besides ClientEnv's):
//  - Every ClientEnv method is called on the loop thread, and every callback
//    (script done, subscribe done, messages) runs there; never inside the
//    call that started it.
//  - Scripts are the pack's Lua, loaded with SCRIPT LOAD at construction
//    (RedisError naming the server if it cannot connect, ScriptPackError if
//    Redis rejects a script) and again on NOSCRIPT.
//  - A transport failure or a Redis error reply completes the script with an
//    error reply naming the server, the command and the script:
//    "redis 127.0.0.1:6379: EVALSHA rlock_release: connection lost (...)".
//  - With a HistoryRecorder, each script runs inside MULTI/EXEC with the
//    recorder's markers and reads (history_recorder.h): the lock's holders,
//    the fair line, and the server clock the script saw (from the lock's
//    PEXPIRETIME, or else PTTL of the key
//    "lsim:realtime:clock", set to expire at a known instant an hour ahead:
//    the only key written besides the locks' own), and every event the
//    client emits, every Script and every delivered message (Deliver) is
//    recorded with this client's index; `done` runs after its Script event.
//  - on_event (optional) sees every event the client emits, on the loop
//    thread, before it is recorded (the blocking API learns details there).
//  - command() runs one plain command (no history) on a server's command
//    connection; done(reply, error) on the loop thread.
//  - close() (after the loop has stopped; also the destructor) closes the
//    connections; callbacks still in flight are dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "impl/client_env.h"
#include "impl/realtime/event_loop.h"
#include "impl/realtime/history_recorder.h"
#include "impl/realtime/redis_pipe.h"
#include "impl/realtime/resp_socket.h"
#include "impl/script_pack.h"

namespace locksim {

struct RealtimeEnvOptions {
  std::vector<RedisConnOptions> servers;  // server index -> address
  HistoryRecorder* history = nullptr;     // optional; must outlive the env
  int client_index = -1;                  // this client's index in the history
};

class RealtimeEnv final : public ClientEnv {
 public:
  using OnMessage = std::function<void(const std::string& channel, const std::string& payload)>;
  using OnEvent = std::function<void(const Event& event)>;

  RealtimeEnv(std::shared_ptr<EventLoop> loop, const ScriptPack& pack, RealtimeEnvOptions options,
              OnMessage on_message, OnEvent on_event = {});
  ~RealtimeEnv() override;

  int64_t now_ms() const override;
  TimerId start_timer(int64_t delay_ms, std::function<void()> fire) override;
  void cancel_timer(TimerId id) override;
  void send_script(int server, const ScriptCall& call, const ScriptTag& tag, int64_t timeout_ms,
                   std::function<void(const ScriptOutcome&)> done) override;
  SubscriptionId subscribe(int server, const std::string& channel, int64_t timeout_ms,
                           std::function<void(bool ok)> done) override;
  void unsubscribe(SubscriptionId id) override;
  uint64_t new_op_id() override;
  void emit(Event event) override;

  void command(int server, std::vector<std::string> argv, std::function<void(Reply, std::string error)> done);
  // The op_id new_op_id() handed out last (the blocking API reads it right
  // after starting an operation, on the loop thread).
  uint64_t last_op_id() const { return last_op_id_; }
  int server_count() const { return static_cast<int>(servers_.size()); }
  const std::string& where(int server) const;
  void close();

 private:
  struct ScriptRequest;
  struct Channel {
    int refs = 0;
    bool on_wire = false;    // SUBSCRIBE sent and no UNSUBSCRIBE since
    uint64_t sent = 0;       // SUBSCRIBEs sent
    uint64_t confirmed = 0;  // their confirmations
  };
  struct Subscription {
    int server = 0;
    std::string channel;
    uint64_t target = 0;  // confirmed once Channel::confirmed reaches it
    bool answered = false;
    TimerId timer = 0;
    std::function<void(bool)> done;
  };
  struct Server {
    RedisConnOptions options;
    std::unique_ptr<RedisPipe> pipe;
    std::unique_ptr<RespSocket> subscriber;
    std::map<std::string, Channel> channels;
    std::vector<std::string> sha;  // by ScriptKind
  };

  void load_scripts(Server& s);
  void issue(int server, const std::shared_ptr<ScriptRequest>& req, int attempt);
  void complete(const std::shared_ptr<ScriptRequest>& req, const Reply& reply);
  Event script_event(int server, const ScriptRequest& req, const std::vector<Reply>& exec) const;
  bool ensure_subscriber(int server);
  void on_subscriber_reply(int server, const Reply& r);
  void send_subscriber(int server, const std::string& verb, const std::string& channel);

  std::shared_ptr<EventLoop> loop_;
  const ScriptPack& pack_;
  RealtimeEnvOptions options_;
  OnMessage on_message_;
  OnEvent on_event_;
  std::vector<Server> servers_;
  std::map<SubscriptionId, Subscription> subscriptions_;
  SubscriptionId next_subscription_ = 1;
  uint64_t next_local_op_id_ = 1;
  uint64_t last_op_id_ = 0;
  std::shared_ptr<bool> alive_;  // false once closed: late posted work is dropped
};

}  // namespace locksim
