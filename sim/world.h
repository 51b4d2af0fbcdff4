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
// The agenda is data (sim/agenda.h): each queued entry says what it is
// (an arrival, a reply, a timer, a driver's step, a planned fault, ...) and
// the World runs it by one switch; the driver of the clients' tasks gets its
// steps back through TaskRunner.
// Schedule mode (set_schedule, sim/schedule_hook.h): a hook decides every
// message's fate and which actor's entry runs first at an instant; since
// each queued entry says what it is, the world can skip the dead ones
// without running them and fingerprint its state (digest();
// sim/world_digest.cc) for the explorer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "impl/client.h"
#include "impl/multi_lock.h"
#include "redis/key_hash.h"
#include "sim/agenda.h"
#include "sim/backend.h"
#include "sim/digest_scratch.h"
#include "sim/event_queue.h"
#include "sim/fault_plan.h"
#include "sim/network.h"
#include "sim/node_clock.h"
#include "sim/queue_census.h"
#include "sim/record_pool.h"
#include "sim/rng.h"
#include "sim/schedule_hook.h"
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
  LossScript losses;                      // losses by message (sim/fault_plan.h); off by default
  std::map<int, int64_t> steady_links;    // client -> from when its link takes its least latency (FaultPlan)
  bool groups = false;                    // every client also runs a MultiLockClient
  GroupOptions group_options;
};

class ReplicatedBackend;

// The World's queue: agenda entries (sim/agenda.h) with their guards.
using EventQueue = BasicEventQueue<AgendaEntry>;

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

  // The driver of the clients' tasks (the workload, an explicit plan's run,
  // a test's script): every step it schedules is handed back to it. Set
  // once, before the first step; it outlives the world.
  void set_task_runner(TaskRunner* runner);
  // Schedules a driver's step at true time at_us >= now. With step.client
  // >= 0 it belongs to that client's current incarnation: dropped if it
  // crashes first, deferred to the end of a pause.
  void at_step(int64_t at_us, TaskStep step);
  // at_step() after delay_ms of client step.client's monotonic clock (a
  // task's sleep).
  void after_step(int64_t delay_ms, TaskStep step);
  // at_step() for a client's step that starts the operation `name` names
  // (an explicit plan's): a deadline of the client's own, fingerprinted by
  // its name (sim/world_digest.cc).
  void at_operation(int64_t at_us, TaskStep step, uint64_t name);
  // A fault plan's action, at f.at_us (it runs first at its instant, and
  // waits in a queue lane meanwhile: sim/event_queue.h).
  void plan_fault(const FaultAction& f);
  // A fault chosen while the run goes on (a targeted nemesis), at f.at_us.
  void inject_fault(const FaultAction& f);
  // Applies f now (its Fault event(s) recorded); a crash with
  // restart_after_ms >= 0 schedules the client's restart.
  void apply_fault(const FaultAction& f);

  // Schedule mode (sim/schedule_hook.h), set before the first step. The
  // link must have one fixed latency (latency_min_us == latency_max_us)
  // and no loss of its own. The hook outlives the world.
  void set_schedule(ScheduleHook* hook);
  bool scheduled() const { return hook_ != nullptr; }
  // Schedule mode: drops the dead actions due first (a crashed incarnation's,
  // a cancelled timer's) and defers a paused client's, until the earliest
  // action is live; returns its time, or -1 when no live action is due at
  // or before limit_us (nothing after limit_us is touched, as step_before).
  int64_t next_live_us(int64_t limit_us);
  // Schedule mode, right after next_live_us() returned an instant: whether
  // the next step there asks the hook to pick among actors (more than one
  // actor has a live action due, and no planned action is among them).
  bool due_pick_pending() const;
  // Schedule mode: now becomes at_us (>= now, and no live action is due
  // before it): faults happen at the instant before its actions.
  void advance_to(int64_t at_us);
  // Schedule mode: the earliest time, strictly after after_us, of a live
  // action that is a client's own (a timer, an operation's start, the end
  // of a pause), or -1: the next deadline a late message can be delayed past.
  int64_t next_deadline_after(int64_t after_us) const;
  // Schedule mode: some live queued action concerns client c (its own, or
  // a message to or from it), or its pause is still to end.
  bool client_has_pending(int c) const;
  // Schedule mode: adds the fingerprint of the world's state to *out
  // (sim/world_digest.cc). Throws std::logic_error for what it cannot
  // fingerprint (an untagged action, a backend without digest()). It only
  // reads the world; its buffers are *scratch's (sim/digest_scratch.h). It
  // counts the queued actions it took in and walked past
  // (sim/queue_census.h).
  QueueCensus digest(StateDigest* out, DigestScratch* scratch) const;
  // Schedule mode: drops the queued actions that are dead (they would be
  // dropped when due, and dead stays dead), so that the fingerprint and the
  // scans of the queue do not walk them; what happens is the same.
  void purge_dead();
  // Messages sent on client c's link so far (MessageInfo::index).
  uint64_t messages_sent(int c) const;

  bool client_alive(int c) const;
  bool client_paused(int c) const;
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

  // Runs one queued entry; false when the queue is empty. In schedule
  // mode one step may instead only drop dead actions or defer a paused
  // client's (it runs at most one live action).
  bool step();
  // Runs the next action if it is due at or before limit_us; else false.
  bool step_before(int64_t limit_us) {
    if (due_held_) return now_us_ <= limit_us && step();  // the held actions are due now
    if (queue_.empty() || queue_.next_at_us() > limit_us) return false;
    return step();
  }
  // Runs every action scheduled at or before until_us; now becomes until_us.
  void run_until(int64_t until_us);
  bool idle() const { return queue_.empty() && !due_held_; }
  size_t queued() const { return queue_.size() + (due_held_ ? due_live_.size() : 0); }
  const WorldStats& stats() const { return stats_; }

  // Appends an event to the history (fills id and true_us).
  void emit(Event event);

 private:
  class NodeEnv;
  struct Node;
  // The fingerprints of a request's fixed part and of its reply
  // (sim/world_digest.cc).
  static uint64_t fixed_request_digest(const ScriptCall& call, const ScriptTag& tag);
  static uint64_t reply_digest_of(const Reply& reply);

  Node& node(int c);
  const Node& node(int c) const;
  void start_client(int c);
  // Schedule mode.
  enum class EntryState { Dead, Deferred, Live };
  EntryState entry_state(const QueueGuard& guard, const AgendaEntry& entry) const;
  bool step_scheduled();
  // Takes the due entries out, releases the dead ones, defers the paused
  // ones and leaves the live ones in due_live_ (in order).
  void collect_due();
  // Held due actions (due_held_): next_live_us() leaves the live actions of
  // the instant it found out of the queue, in due_live_, so that the step
  // that follows runs one without taking them out again; a step leaves the
  // others of its instant so for the next. Every reader of the queue sees
  // them (for_each_queued). take_held_due(): true when they are still what
  // collect_due() would take (nothing joined their instant since, and each
  // is still live), and the step uses them; false, with them back in the
  // queue, when not (the step collects anew, as if they had never been
  // held). unhold() puts them back.
  bool take_held_due();
  void unhold();
  // fn(at_us, order, guard, entry) for every queued entry, held ones included.
  template <class Fn>
  void for_each_queued(Fn&& fn) const {
    queue_.for_each(fn);
    if (!due_held_) return;
    for (const EventQueue::Popped& e : due_live_) fn(e.at_us, e.order, e.guard, queue_.item(e.slot));
  }
  // The index in due_live_ of the first planned action (it runs first at
  // its instant), or due_live_.size() when there is none.
  size_t first_planned_due() const;
  // The actor of a live entry (sim/schedule_hook.h), ordered: lower first
  // among the candidates of a pick.
  static int64_t actor_of(const AgendaEntry& entry, const QueueGuard& guard);
  // The fate of a message in schedule mode; records a lost or late one
  // (`what()` says which, as record_lost does: made only then). False: lost.
  template <class What>
  bool scheduled_fate(int c, int s, MessageKind kind, const What& what, const std::string& lock,
                      int64_t* arrive_us);
  bool link_down(int c) const;
  std::string make_uuid(int c);
  // Server side of a script request from client c: true with *reply and
  // the reply's arrival time *back_us at the client, false if no reply goes
  // back (link down, or the reply is lost).
  // `spared`: the request was drawn lost but delivered (random_loss), and
  // its reply gets through too.
  bool execute_at_server(int c, int s, const ScriptCall& call, const ScriptTag& tag, Reply* reply,
                         int64_t* back_us, bool spared);
  // The queue lanes (sim/event_queue.h): the fault plan, and request
  // timeouts (one length per client, armed in time order).
  static constexpr EventQueue::Lane kPlanLane{0};
  static constexpr EventQueue::Lane kRequestTimeoutLane{1};
  // The one way onto the agenda: `entry` at true time at_us >= now, with
  // the guard and in the lane its kind gives (sim/agenda.h).
  void schedule(int64_t at_us, AgendaEntry&& entry);
  QueueGuard guard_of(const AgendaEntry& entry) const;
  // Runs a popped, live entry (the one switch over what an entry is).
  void run_entry(AgendaEntry& entry);
  void run(agenda::ClientTimer& e);
  void run(agenda::RequestTimeout& e);
  void run(agenda::SubscribeTimeout& e);
  void run(agenda::Arrival& e);
  void run(agenda::ReplyBack& e);
  void run(agenda::SubscribeArrival& e);
  void run(agenda::SubscribeAck& e);
  void run(agenda::UnsubscribeArrival& e);
  void run(agenda::Delivery& e);
  void run(agenda::Resume& e);
  void run(agenda::Heal& e);
  void route_published(int s, const std::vector<Published>& published);
  // A faster multi-lock's script event *e, emitted once per value of the
  // call (as "<group>@<value>", under the value's op id from the tag, with
  // the value's owners read from the hash's fields as its holders). Returns
  // whether lose_reply chose the reply of any of them. *e's lock is the
  // group again afterwards.
  bool emit_per_value(const ScriptCall& call, const ScriptTag& tag, Event* e);
  void drop_subscriptions(int c);
  // A message the link dropped at random (not a partition): counted, and
  // recorded as a Fault event "lost" (detail: what was lost, e.g.
  // "reply rlock_acquire" or "message <channel>") so checkers can blame it.
  void record_lost(int c, LostMessage what, const std::string& lock);
  // Whether a message on client c's link is lost at random: a draw from its
  // link's stream (`forced`: lost without a draw, the lose_reply hook), or,
  // with WorldConfig::losses.lost, its key (`what()` is what a loss records:
  // "reply rlock_acquire lsim:L0"). Spared: drawn lost but delivered by the
  // script; such a message (and a spared request's reply, never lost) draws
  // its delays from the link's spare stream (link_rng), so that the link's
  // own stream meets the other messages as in the run that lost it.
  enum class LinkDraw { Delivered, Lost, Spared };
  template <class What>
  LinkDraw random_loss(int c, const What& what, bool forced = false);
  // Client c's link stream, or its spare stream for a spared message.
  Rng& link_rng(int c, bool spared);
  // A delay on client c's link, drawn from link_rng(c, spared); on a steady
  // link (WorldConfig::steady_links) the draw is made and the link's least
  // latency taken instead, so the link's streams stay where they were.
  int64_t link_delay_us(int c, bool spared);
  void emit_in_place(Event& event);  // emit() without a copy; fills id and true_us

  WorldConfig config_;
  std::unique_ptr<ReplicatedBackend> replicated_;  // with replica lags
  Backend& backend_;
  EventSink& sink_;
  RecordPool<ScriptRequest> script_requests_;  // before queue_: queued entries hold Refs
  EventQueue queue_;
  // Schedule mode: the times of dead actions dropped from the queue before
  // they were due (purge_dead()) and not yet passed; next_live_us() moves
  // time through them as if they had been popped there.
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<int64_t>> purged_dead_us_;
  int64_t now_us_ = 0;
  uint64_t next_event_id_ = 0;
  uint64_t next_op_id_ = 1;
  uint64_t next_sub_id_ = 1;
  Rng uuid_rng_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<NodeClock> server_clocks_;
  std::vector<int64_t> server_down_until_us_;  // per server
  std::vector<uint64_t> partition_gen_;  // per client; odd = partitioned
  // Keyed losses (WorldConfig::losses): per (client, what) the messages met
  // so far, and the ordinal of the last one (for record_lost).
  std::map<std::pair<int, std::string>, uint64_t> message_ordinals_;
  uint64_t last_ordinal_ = 0;
  std::map<uint64_t, Subscription> subs_;  // by id
  // server -> channel -> client -> active subscription count
  std::vector<std::map<std::string, std::map<int, int>>> channels_;
  WorldStats stats_;
  ScheduleHook* hook_ = nullptr;
  TaskRunner* runner_ = nullptr;
  std::vector<EventQueue::Popped> due_;       // schedule mode: the instant's entries
  std::vector<EventQueue::Popped> due_live_;  // ... the live ones
  std::vector<std::pair<int64_t, size_t>> due_heads_;  // ... each actor's first (actor, index in due_live_)
  bool due_held_ = false;  // due_live_ is out of the queue, held for the next step (queue_ marked then)
  ExecResult script_result_;             // execute_at_server's reused result
  Event script_event_;                   // execute_at_server's reused event
  struct LineCopy {
    uint64_t token = 0;  // ExecResult::line_token of `entries`
    SharedLine entries;  // shared with the script events that carry it
  };
  // Per server, per line key: the last tokened line, in event form.
  std::vector<std::unordered_map<std::string, LineCopy, KeyHash>> line_copies_;  // never iterated
  // A design with fresh tokens (impl/lock_design.h): every token a script
  // call carried -> its owner. Script events name a holder by its owner id
  // (a token no call carried stays as the server holds it). Never iterated.
  std::unordered_map<std::string, std::string, KeyHash> token_owner_;
};

}  // namespace locksim
