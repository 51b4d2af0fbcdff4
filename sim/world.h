// World: the simulated system without its workload — the event loop in true
// virtual time (µs), client nodes running impl/'s LockClient over a ClientEnv,
// per-node clocks, the client<->server network, pub/sub routing, and the
// fault actions (each records a Fault event). Scripts execute on the Backend
// when a request *arrives* at the server, strictly in true-time order.
//
// Client-bound actions (timers, replies, deliveries) are dropped once the
// node has crashed (incarnation check) and deferred while it is paused.
// Subscriptions are server state: a subscribe request activates on arrival,
// unsubscribe removes it after one link delay; a crash drops them all; a Redis
// restart keeps them (the client is assumed to resubscribe at once).
// Server faults (sim/server_faults.h): a restart keeps the data or not
// (persistence) and leaves the server down for restart_delay_ms, during which
// every request is answered at once with an error; with replica lags every
// server has an asynchronous replica (on the model sim/replicated_backend.h,
// on another backend its own: Backend::configure_server_faults) and
// failover() promotes it. With `groups`, every client also runs a
// MultiLockClient (impl/multi_lock.h) for multi-locks and RedLocks.
// Every history Event goes to the EventSink with consecutive ids.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "impl/client.h"
#include "impl/multi_lock.h"
#include "model/key_hash.h"
#include "sim/action.h"
#include "sim/backend.h"
#include "sim/event_queue.h"
#include "sim/network.h"
#include "sim/node_clock.h"
#include "sim/record_pool.h"
#include "sim/rng.h"
#include "sim/server_faults.h"
#include "traces/event_sink.h"

namespace locksim {

struct WorldConfig {
  uint64_t seed = 1;
  int clients = 1;
  LinkProfile link;
  std::vector<ClockSetup> client_clocks;  // empty: all exact
  std::vector<ClockSetup> server_clocks;  // empty: all exact
  ClientConfig client;                    // template; client_uuid is generated
  ServerFaultConfig server_faults;        // restarts, replicas
  bool groups = false;                    // every client also runs a MultiLockClient
  GroupOptions group_options;
};

class ReplicatedBackend;

struct WorldStats {
  uint64_t events = 0;
  uint64_t scripts = 0;
  uint64_t actions = 0;   // queue items processed
  uint64_t messages_lost = 0;
};

class World {
 public:
  World(WorldConfig config, Backend& backend, EventSink& sink);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int64_t now_us() const { return now_us_; }
  int client_count() const { return static_cast<int>(nodes_.size()); }
  int server_count() const { return backend_.server_count(); }

  // Schedules a world action (not tied to a client) at true time at_us >= now.
  // (Actions are taken by rvalue reference all the way into the queue: a
  // lambda converts to one Action, which is moved once, into its slot.)
  void at(int64_t at_us, Action&& action);
  // at() for a plan's actions scheduled in time order (a fault plan): they
  // wait in a queue lane, out of the heap (sim/event_queue.h). Same order.
  void at_planned(int64_t at_us, Action&& action);
  // Schedules an action on client c's current incarnation: dropped if it
  // crashes first, deferred to the end of a pause.
  void at_client(int c, int64_t at_us, Action&& action);

  // Runs `action` on client c after delay_ms of its monotonic clock (a task's
  // sleep); same crash/pause rules as at_client.
  void after_client(int c, int64_t delay_ms, Action&& action);

  bool client_alive(int c) const;
  LockClient& client(int c);  // c must be alive
  MultiLockClient& group_client(int c);  // c must be alive; WorldConfig::groups
  int64_t client_local_ms(int c) const;
  int64_t server_now_us(int s) const;

  // Faults. Each records a Fault event.
  void crash(int c);
  void restart(int c);  // a crashed client comes back under a new uuid
  void pause(int c, int64_t duration_ms);
  void jump_client_clock(int c, int64_t delta_ms);
  void jump_server_clock(int s, int64_t delta_ms);
  void partition(int c, int64_t duration_ms);
  // Restarts server s as WorldConfig::server_faults says (data lost or kept,
  // down for restart_delay_ms).
  void redis_restart(int s);
  // Promotes server s's replica (a no-op without one, e.g. after a failover).
  void failover(int s);
  bool server_down(int s) const;

  // Called after a client (re)starts: the workload starts its tasks.
  std::function<void(int c)> on_client_started;
  // Test hook: called with each Script event; true -> its reply is lost.
  std::function<bool(const Event& script_event)> lose_reply;

  // Runs one queued action; false when the queue is empty.
  bool step();
  // Runs the next action if it is due at or before limit_us; else false.
  bool step_before(int64_t limit_us) {
    if (queue_.empty() || queue_.next_at_us() > limit_us) return false;
    return step();
  }
  // Runs every action scheduled at or before until_us; now becomes until_us.
  void run_until(int64_t until_us);
  bool idle() const { return queue_.empty(); }
  size_t queued() const { return queue_.size(); }
  const WorldStats& stats() const { return stats_; }

  // Appends an event to the history (fills id and true_us).
  void emit(Event event);

 private:
  class NodeEnv;
  struct Node;
  struct Subscription {
    int client = -1;
    int server = 0;
    std::string channel;
    bool active = false;  // reached the server
  };

  // A script request in flight (NodeEnv::send_script): the timeout timer, the
  // arrival at the server and the reply share it. Pooled: its strings keep
  // their buffers from request to request.
  struct ScriptRequest {
    bool finished = false;
    ClientEnv::TimerId timer = 0;
    std::function<void(const ScriptOutcome&)> done;  // cleared once called
    ScriptCall call;
    ScriptTag tag;
    Reply reply;
  };

  Node& node(int c);
  void start_client(int c);
  bool link_down(int c) const;
  std::string make_uuid(int c);
  // Server side of a script request from client c: true with *reply and
  // the reply's arrival time *back_us at the client, false if no reply goes
  // back (link down, or the reply is lost).
  bool execute_at_server(int c, int s, const ScriptCall& call, const ScriptTag& tag, Reply* reply,
                         int64_t* back_us);
  // at_client for a given incarnation of c; at_us < 0 means now. The queue
  // carries the (client, incarnation) guard that step() checks.
  void at_client_incarnation(int c, uint64_t incarnation, Action&& action, int64_t at_us = -1);
  // The queue lanes (sim/event_queue.h): the fault plan, and request
  // timeouts (one length per client, armed in time order).
  static constexpr EventQueue::Lane kPlanLane{0};
  static constexpr EventQueue::Lane kRequestTimeoutLane{1};
  // at_client, through `lane`.
  void at_client_in_lane(EventQueue::Lane lane, int c, int64_t at_us, Action&& action);
  void route_published(int s, const std::vector<Published>& published);
  void drop_subscriptions(int c);
  // A message the link dropped at random (not a partition): counted, and
  // recorded as a Fault event "lost" (detail: what was lost, e.g.
  // "reply rlock_acquire" or "message <channel>") so checkers can blame it.
  void record_lost(int c, std::string what, const std::string& lock);
  void emit_in_place(Event& event);  // emit() without a copy; fills id and true_us

  WorldConfig config_;
  std::unique_ptr<ReplicatedBackend> replicated_;  // with replica lags
  Backend& backend_;
  EventSink& sink_;
  RecordPool<ScriptRequest> script_requests_;  // before queue_: queued actions hold Refs
  EventQueue queue_;
  int64_t now_us_ = 0;
  uint64_t next_event_id_ = 0;
  uint64_t next_op_id_ = 1;
  uint64_t next_sub_id_ = 1;
  Rng uuid_rng_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<NodeClock> server_clocks_;
  std::vector<int64_t> server_down_until_us_;  // per server
  std::vector<uint64_t> partition_gen_;  // per client; odd = partitioned
  std::map<uint64_t, Subscription> subs_;  // by id
  // server -> channel -> client -> active subscription count
  std::vector<std::map<std::string, std::map<int, int>>> channels_;
  WorldStats stats_;
  ExecResult script_result_;             // execute_at_server's reused result
  Event script_event_;                   // execute_at_server's reused event
  struct LineCopy {
    uint64_t token = 0;  // ExecResult::line_token of `entries`
    SharedLine entries;  // shared with the script events that carry it
  };
  // Per server, per line key: the last tokened line, in event form.
  std::vector<std::unordered_map<std::string, LineCopy, KeyHash>> line_copies_;  // never iterated
};

}  // namespace locksim
