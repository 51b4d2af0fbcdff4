// The World's agenda, as data: every entry of its event queue
// (sim/event_queue.h) is one of the structs below, with named fields, and
// the World runs it by one switch (World::run_entry). Nothing on the agenda
// is a closure: what a client handed over as a callback (ClientEnv's
// contract, impl/client.h) stays in the client's node (its timers' table)
// or in the request's record, and the entry names it by id.
//
// Each entry is pushed with a guard (sim/event_queue.h's QueueGuard): the
// client incarnation it belongs to, or none for a world entry. A guarded
// entry is dropped once that incarnation has crashed and deferred while the
// client is paused. Which entries are guarded is fixed by their kind (see
// each struct), so that a reader of the queue (the explorer's fingerprint,
// sim/world_digest.cc; schedule mode's actors, sim/schedule_hook.h) can
// reason about an entry without running it.
//
// Adding a kind of entry: a struct here, an alternative of AgendaEntry, its
// EntryKind, and its case in World::run_entry, entry_state, actor_of and the
// fingerprint; each is a switch over EntryKind or a visit of AgendaEntry
// without a default, so the compiler names every one left out.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "impl/client.h"
#include "redis/exec_result.h"
#include "sim/fault_plan.h"
#include "sim/record_pool.h"

namespace locksim {

// A script request in flight (ClientEnv::send_script): its timeout, its
// arrival at the server and its reply share it. Pooled: its strings keep
// their buffers from request to request.
struct ScriptRequest {
  bool finished = false;
  bool spared = false;  // its request was a spared loss: it and its reply get through
  ClientEnv::TimerId timer = 0;
  std::function<void(const ScriptOutcome&)> done;  // the client's callback; cleared once called
  ScriptCall call;
  ScriptTag tag;
  Reply reply;
  // Schedule mode: the fingerprints of what does not change while it is
  // queued (sim/world_digest.cc): its call and tag, set when it is sent,
  // and its reply, set when the server has run it.
  uint64_t fixed_digest = 0;
  uint64_t reply_digest = 0;
};
using ScriptRequestRef = RecordPool<ScriptRequest>::Ref;

// A subscribe request in flight (ClientEnv::subscribe): its timeout and its
// acknowledgement share it.
struct SubscribeRequest {
  bool finished = false;
  ClientEnv::TimerId timer = 0;
  uint64_t id = 0;  // the subscription
  std::function<void(bool)> done;  // the client's callback
};

// A subscription as the server holds it.
struct Subscription {
  int client = -1;
  int server = 0;
  std::string channel;
  bool active = false;  // reached the server
};

// A step of the caller that drives the clients (the workload, an explicit
// plan's run, a test's script): what it is is the driver's own business
// (TaskRunner). client -1: a world step, not tied to a client.
struct TaskStep {
  int client = -1;
  uint32_t step = 0;   // the driver's: which kind of step
  uint64_t task = 0;   // the driver's: which task
};

// The driver the World hands its steps back to (World::set_task_runner).
class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  virtual void run_step(const TaskStep& step) = 0;
};

namespace agenda {

// Guarded by its client. One of the client's own timers (a LockClient's or
// a watchdog's): its callback waits in the node's table of live timers,
// under `timer`; the entry is dead once the timer is cancelled.
struct ClientTimer {
  int client = 0;
  ClientEnv::TimerId timer = 0;
};
// Guarded. A script request's timeout (its record is held by the client
// node's unfinished requests until it finishes).
struct RequestTimeout {
  int client = 0;
  ClientEnv::TimerId timer = 0;
  const ScriptRequest* request = nullptr;
};
// Guarded. A subscribe request's timeout.
struct SubscribeTimeout {
  int client = 0;
  ClientEnv::TimerId timer = 0;
  std::shared_ptr<SubscribeRequest> request;
};
// Not guarded (a request outlives its sender's crash on the wire). A script
// request reaching `server` from `client`'s incarnation `incarnation`.
struct Arrival {
  int client = 0;
  int server = 0;
  uint64_t incarnation = 0;
  ScriptRequestRef request;
};
// Guarded. Its reply reaching the client.
struct ReplyBack {
  int client = 0;
  int server = 0;
  uint64_t incarnation = 0;
  ScriptRequestRef request;
};
// Not guarded. A subscribe request reaching the server.
struct SubscribeArrival {
  int client = 0;
  int server = 0;
  uint64_t subscription = 0;
  uint64_t incarnation = 0;
  bool spared = false;  // drawn lost but delivered: its acknowledgement gets through too
  std::shared_ptr<SubscribeRequest> request;
};
// Guarded. Its acknowledgement reaching the client.
struct SubscribeAck {
  int client = 0;
  int server = 0;
  uint64_t subscription = 0;
  uint64_t incarnation = 0;
  std::shared_ptr<SubscribeRequest> request;
};
// Not guarded. An unsubscribe reaching the server (void if its client has
// crashed since: the crash dropped the subscription already).
struct UnsubscribeArrival {
  Subscription subscription;
  uint64_t incarnation = 0;
  uint64_t channel_digest = 0;  // for the fingerprint
};
// Guarded. A pub/sub message reaching a client.
struct Delivery {
  int client = 0;
  int server = 0;
  Published message;
  uint64_t message_digest = 0;  // for the fingerprint
};
// Not guarded. The end of a pause (void if a later pause or a crash
// superseded it).
struct Resume {
  int client = 0;
  int64_t until_us = 0;
  uint64_t incarnation = 0;
};
// Not guarded. The end of a partition (void if a later partition superseded
// it: its generation is no longer the client's).
struct Heal {
  int client = 0;
  uint64_t generation = 0;
};
// Guarded by step.client when >= 0. A driver's step (TaskRunner).
struct Step {
  TaskStep step;
};
// Guarded. A driver's step that starts an operation `name` names (an
// explicit plan's: its task and the operation's index): a client's own
// deadline, fingerprinted by its name.
struct OperationStart {
  TaskStep step;
  uint64_t name = 0;
};
// Not guarded. A fault plan's action (runs first at its instant).
struct PlannedFault {
  FaultAction fault;
};
// Not guarded. A fault a targeted nemesis chose while the run went on
// (sim/targeted_nemesis.h); a world entry like any other.
struct InjectedFault {
  FaultAction fault;
};
// Not guarded. A crashed client's restart, a crash's restart_after_ms later.
struct RestartClient {
  int client = 0;
};

}  // namespace agenda

// What an entry is; the order of AgendaEntry's alternatives.
enum class EntryKind : uint8_t {
  None = 0,  // a free slot
  ClientTimer,
  RequestTimeout,
  SubscribeTimeout,
  Arrival,
  Reply,
  SubscribeArrival,
  SubscribeAck,
  UnsubscribeArrival,
  Delivery,
  Resume,
  Heal,
  Step,
  OperationStart,
  PlannedFault,
  InjectedFault,
  RestartClient,
};

using AgendaEntry =
    std::variant<std::monostate, agenda::ClientTimer, agenda::RequestTimeout, agenda::SubscribeTimeout,
                 agenda::Arrival, agenda::ReplyBack, agenda::SubscribeArrival, agenda::SubscribeAck,
                 agenda::UnsubscribeArrival, agenda::Delivery, agenda::Resume, agenda::Heal, agenda::Step,
                 agenda::OperationStart, agenda::PlannedFault, agenda::InjectedFault, agenda::RestartClient>;

static_assert(std::variant_size_v<AgendaEntry> == static_cast<size_t>(EntryKind::RestartClient) + 1,
              "one EntryKind per alternative of AgendaEntry");

inline EntryKind entry_kind(const AgendaEntry& entry) { return static_cast<EntryKind>(entry.index()); }

// The client an entry is about (its guard's, or the one it concerns), or -1
// for a world entry about no client.
int entry_client(const AgendaEntry& entry);

}  // namespace locksim
