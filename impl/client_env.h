// ClientEnv: everything the lock client needs from the world, as callbacks, so
// the same client code runs in the simulator (sim/) and, later, on real
// threads. The client never reads a clock or sleeps by itself.
//
// Contract:
//  - now_ms(): the node's local wall clock (may be skewed, drift, jump).
//  - start_timer(delay_ms, fire): calls `fire` once after `delay_ms` of the
//    node's *monotonic* time (not affected by wall-clock jumps), unless
//    cancelled first. cancel_timer of a fired or unknown id is a no-op.
//  - send_script(server, call, tag, timeout_ms, done): sends one script; `done`
//    is called exactly once, later (never inside send_script), with the reply
//    or with timed_out = true when no reply arrived within timeout_ms. A late
//    reply after a timeout is dropped. The env records the script execution
//    in the history using `tag` (the causing operation).
//  - subscribe(server, channel, timeout_ms, done): asks the server to deliver
//    `channel`'s messages to this client; done(true) once confirmed,
//    done(false) on timeout. Messages arrive through the client's
//    on_message(). unsubscribe(id) is fire-and-forget and idempotent.
//  - new_op_id(): a fresh operation id (> 0, unique in the history).
//  - emit(event): appends to the history; the env fills id, true_us, client,
//    and local_ms.
//  If the node dies, pending callbacks are simply never called.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "redis/reply.h"
#include "model/script_call.h"
#include "traces/event.h"

namespace locksim {

struct ScriptOutcome {
  bool timed_out = false;
  Reply reply;  // meaningful when !timed_out
};

// What caused a script execution, for the history's Script event.
struct ScriptTag {
  Op op = Op::None;        // lock, try_lock, unlock, renew, acquire_failed, ...
  uint64_t op_id = 0;
  std::string request_id;  // release latch request id, else empty
  // A faster multi-lock's script: the operation id of each value it names
  // (ScriptParams::values, in order; the first is op_id), each value's
  // execution recorded as its own Script event. Empty for every other lock.
  std::vector<uint64_t> value_op_ids{};
};

class ClientEnv {
 public:
  using TimerId = uint64_t;
  using SubscriptionId = uint64_t;

  virtual ~ClientEnv() = default;
  virtual int64_t now_ms() const = 0;
  virtual TimerId start_timer(int64_t delay_ms, std::function<void()> fire) = 0;
  virtual void cancel_timer(TimerId id) = 0;
  virtual void send_script(int server, const ScriptCall& call, const ScriptTag& tag,
                           int64_t timeout_ms, std::function<void(const ScriptOutcome&)> done) = 0;
  virtual SubscriptionId subscribe(int server, const std::string& channel, int64_t timeout_ms,
                                   std::function<void(bool ok)> done) = 0;
  virtual void unsubscribe(SubscriptionId id) = 0;
  virtual uint64_t new_op_id() = 0;
  virtual void emit(Event event) = 0;
};

}  // namespace locksim
