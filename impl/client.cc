#include "impl/client.h"

#include "model/faster_multi_fields.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace locksim {

struct LockClient::AcquireOp {
  uint64_t op_id = 0;
  int task = 0;
  LockSpec lock;
  std::string owner;
  Op op_name = Op::Lock;  // lock or try_lock
  int64_t wait_ms = -1;   // -1: no budget (lock())
  int64_t lease_ms = -1;  // -1: default lease + watchdog
  bool once = false;      // tryLock(): exactly one attempt
  int64_t start_ms = 0;   // local wall clock at the start (budget accounting)
  std::string channel;
  // The acquire script, built once (owner, key names, lease, slot); an
  // attempt sets only its now_ms. Fair: also the line/deadlines key names
  // that acquire_failed sends.
  ScriptCall call;
  ScriptTag tag;
  ClientEnv::SubscriptionId sub = 0;
  bool subscribed = false;  // requested (confirmed or not)
  ClientEnv::TimerId wait_timer = 0;
  bool waiting = false;
  int64_t rounds = 0;
  bool wake_pending = false;  // a message came while not waiting (remember_wakeups)
  BackoffState backoff;       // a spin lock's waiter: its sleeps so far
  std::vector<uint64_t> value_ids;  // its op ids, one per value (LockClient::value_op_ids)
  // Giving up on a fair lock: acquire_failed was sent and the operation
  // ends when it answers (or times out), so that the task's next acquire,
  // under the same owner, cannot reach the server before it and be taken
  // out of the line by it. Nothing else moves the operation meanwhile.
  bool leaving = false;
  bool finished = false;
  AcquireDone done;

  bool has_budget() const { return wait_ms >= 0; }
};

LockClient::LockClient(ClientEnv& env, ClientConfig config)
    : env_(env), config_(std::move(config)), watchdog_(env_, config_) {
  assert(!config_.client_uuid.empty());
  assert(config_.request_timeout_ms > 0);
  assert(config_.retry_attempts >= 0);
  assert(config_.latch_ttl_ms() >= 1);
}

LockClient::~LockClient() = default;

Event LockClient::op_event(EventKind kind, Op op, uint64_t op_id,
                           const std::string& owner, const std::string& lock) const {
  Event e;
  e.kind = kind;
  e.op = op;
  e.op_id = op_id;
  e.owner.assign(owner);
  e.lock.assign(lock);
  return e;
}

std::vector<uint64_t> LockClient::value_op_ids(const LockSpec& lock, uint64_t op_id) {
  std::vector<uint64_t> ids = {op_id};
  if (lock.kind != LockKind::FasterMulti) return ids;
  assert(!lock.values.empty());
  for (size_t i = 1; i < lock.values.size(); ++i) ids.push_back(env_.new_op_id());
  return ids;
}

void LockClient::emit_op(const Event& e, const std::vector<int>& values, const std::vector<uint64_t>& ids) {
  if (values.empty()) {
    env_.emit(e);
    return;
  }
  assert(values.size() == ids.size());
  const std::string group = e.lock.name();
  for (size_t i = 0; i < values.size(); ++i) {
    Event v = e;
    v.lock = LockRef::member_of(group, values[i]);
    v.op_id = ids[i];
    env_.emit(std::move(v));
  }
}

int64_t LockClient::fair_slot_ms(int64_t wait_ms) const {
  if (config_.fair_slot_fixed_ms > 0) return config_.fair_slot_fixed_ms;
  return wait_ms > 0 ? wait_ms : config_.fair_wait_default_ms;
}

std::string LockClient::channel_of(const LockSpec& lock, const std::string& owner) const {
  if (lock.kind == LockKind::Fair) return LockKeys::waiter_channel(lock.name, owner);
  if (lock.kind == LockKind::Spin) return "";  // nobody publishes; a spin waiter never subscribes
  return LockKeys::channel(lock.name);
}

void LockClient::lock(int task, const LockSpec& lock, int64_t lease_ms, AcquireDone done) {
  start_acquire(task, lock, -1, lease_ms, false, std::move(done));
}

void LockClient::try_lock(int task, const LockSpec& lock, int64_t wait_ms, int64_t lease_ms,
                          AcquireDone done) {
  assert(wait_ms >= 0);
  start_acquire(task, lock, wait_ms, lease_ms, false, std::move(done));
}

void LockClient::try_lock_once(int task, const LockSpec& lock, int64_t lease_ms, AcquireDone done) {
  start_acquire(task, lock, 0, lease_ms, true, std::move(done));
}

void LockClient::start_acquire(int task, const LockSpec& lock, int64_t wait_ms, int64_t lease_ms,
                               bool once, AcquireDone done) {
  assert(!dead_);
  assert(lease_ms == -1 || lease_ms > 0);
  auto op = std::make_shared<AcquireOp>();
  op->op_id = env_.new_op_id();
  op->task = task;
  op->lock = lock;
  op->owner = owner(task);
  op->op_name = (wait_ms < 0 && !once) ? Op::Lock : Op::TryLock;
  op->wait_ms = wait_ms;
  op->lease_ms = lease_ms;
  op->once = once;
  op->start_ms = env_.now_ms();
  op->channel = channel_of(lock, op->owner);
  ScriptParams& p = op->call.params;
  p.lock = lock.name;
  p.owner = op->owner;
  if (lease_ms < 0) {
    p.lease_ms = config_.watchdog_lease_ms;
  } else if (config_.mutant == ClientMutant::LeaseUnitSeconds) {
    p.lease_ms = lease_ms / 1000;  // the bug: a unit mix-up
  } else {
    p.lease_ms = lease_ms;
  }
  p.token = acquire_token(op->owner, lock.name);
  op->value_ids = value_op_ids(lock, op->op_id);
  if (lock.kind == LockKind::Fair) {
    op->call.kind = once ? ScriptKind::FairTryOnce : ScriptKind::FairAcquire;
    p.line = LockKeys::line(lock.name);
    p.deadlines = LockKeys::deadlines(lock.name);
    p.wait_ms = fair_slot_ms(wait_ms);
  } else if (lock.kind == LockKind::FasterMulti) {
    op->call.kind = ScriptKind::FasterMultiAcquire;
    p.values = values_text(lock.values);
  } else {
    op->call.kind = ScriptKind::RlockAcquire;
  }
  op->tag = ScriptTag{op->op_name, op->op_id, ""};
  if (lock.kind == LockKind::FasterMulti) op->tag.value_op_ids = op->value_ids;
  op->done = std::move(done);
  acquires_.emplace(op->op_id, op);

  Event e = op_event(EventKind::Invoke, op->op_name, op->op_id, op->owner, lock.name);
  e.wait_ms = wait_ms;
  e.lease_ms = lease_ms;
  e.once = once;
  emit_op(e, lock.values, op->value_ids);
  attempt(op);
}

// Remaining budget after the time spent since the start. Redisson subtracts
// each stretch (attempt, wait) as measured on the wall clock; the stretches
// are contiguous, so the sum is simply now - start.
bool LockClient::spend_budget(const std::shared_ptr<AcquireOp>& op) {
  if (!op->has_budget()) return true;
  return op->wait_ms - (env_.now_ms() - op->start_ms) > 0;
}

void LockClient::attempt(const std::shared_ptr<AcquireOp>& op) {
  assert(!op->finished);
  if (++op->rounds > config_.max_wait_rounds) {
    if (op->has_budget()) {
      give_up(op, "wait rounds exhausted");
    } else {
      finish(op, EventKind::Fail, 0, "wait rounds exhausted", AcquireResult::NotAcquired);
    }
    return;
  }
  op->wake_pending = false;  // this poll sees every release published so far
  if (op->lock.kind == LockKind::Fair || op->lock.kind == LockKind::FasterMulti) {
    op->call.params.now_ms = env_.now_ms();
  }
  // The callbacks name the operation by id (small enough for std::function
  // to keep inline): a finished or crashed one is no longer in acquires_.
  env_.send_script(op->lock.server, op->call, op->tag, config_.request_timeout_ms,
                   [this, op_id = op->op_id](const ScriptOutcome& out) {
                     if (const std::shared_ptr<AcquireOp> op = pending_acquire(op_id)) on_acquire_reply(op, out);
                   });
}

std::shared_ptr<LockClient::AcquireOp> LockClient::pending_acquire(uint64_t op_id) const {
  if (dead_) return nullptr;
  auto it = acquires_.find(op_id);
  if (it == acquires_.end() || it->second->leaving) return nullptr;
  assert(!it->second->finished);
  return it->second;
}

void LockClient::on_acquire_reply(const std::shared_ptr<AcquireOp>& op, const ScriptOutcome& out) {
  if (dead_ || op->finished) return;
  if (out.timed_out) {
    // Outcome unknown. A fair waiter may now sit in the line: leave it, as on
    // any give-up, so it does not block everyone behind it until its slot ends.
    leave(op, EventKind::Info, EndReason::Timeout, AcquireResult::Unknown);
    return;
  }
  const Reply& r = out.reply;
  if (r.is_nil()) {
    if (op->lease_ms < 0) watchdog_.arm(op->lock, op->owner, op->call.params.token);
    finish(op, EventKind::Ok, 1, "", AcquireResult::Acquired);
    return;
  }
  if (!r.is_int()) {
    finish(op, EventKind::Info, 0, "error: " + r.to_string(), AcquireResult::Unknown);
    return;
  }
  if (op->once) {
    finish(op, EventKind::Fail, 0, "not acquired", AcquireResult::NotAcquired);
    return;
  }
  if (!spend_budget(op)) {
    give_up(op, "wait budget exhausted");
    return;
  }
  if (op->lock.kind == LockKind::Spin) {  // nobody publishes: back off and try again
    wait_for_wake(op, backoff_sleep(*op));
    return;
  }
  if (config_.wake.mode == WakeMode::Poll) {  // no message comes: sleep the declared interval
    wait_for_wake(op, poll_sleep(*op));
    return;
  }
  if (!op->subscribed) {
    op->subscribed = true;
    const int64_t remaining = op->wait_ms - (env_.now_ms() - op->start_ms);
    const int64_t timeout_ms = op->has_budget() ? remaining : config_.request_timeout_ms;
    op->sub = env_.subscribe(op->lock.server, op->channel, timeout_ms, [this, op_id = op->op_id](bool ok) {
      const std::shared_ptr<AcquireOp> op = pending_acquire(op_id);
      if (!op) return;
      if (!ok) {
        give_up(op, "subscribe timeout");
        return;
      }
      if (!spend_budget(op)) {
        give_up(op, "wait budget exhausted");
        return;
      }
      attempt(op);
    });
    return;
  }
  wait_for_wake(op, r.integer);
}

void LockClient::wait_for_wake(const std::shared_ptr<AcquireOp>& op, int64_t ttl_ms) {
  assert(!op->waiting);
  op->waiting = true;
  if (op->wake_pending) {  // woken while the poll was in flight: poll again now
    op->wake_pending = false;
    op->wait_timer = env_.start_timer(0, [this, op_id = op->op_id] { wake_by_id(op_id); });
    return;
  }
  int64_t wait_ms = -1;  // -1: until a message
  if (op->has_budget()) {
    const int64_t remaining = op->wait_ms - (env_.now_ms() - op->start_ms);
    wait_ms = ttl_ms >= 0 ? std::min(ttl_ms, remaining) : remaining;
  } else if (ttl_ms >= 0) {
    wait_ms = ttl_ms;
  }
  if (wait_ms >= 0) {
    op->wait_timer = env_.start_timer(wait_ms, [this, op_id = op->op_id] { wake_by_id(op_id); });
  }
}

void LockClient::wake_by_id(uint64_t op_id) {
  if (const std::shared_ptr<AcquireOp> op = pending_acquire(op_id)) wake(op);
}

void LockClient::wake(const std::shared_ptr<AcquireOp>& op) {
  if (dead_ || op->finished || !op->waiting) return;
  op->waiting = false;
  env_.cancel_timer(op->wait_timer);
  if (!spend_budget(op)) {
    give_up(op, "wait budget exhausted");
    return;
  }
  attempt(op);
}

void LockClient::on_message(const std::string& channel, const std::string& /*payload*/) {
  if (dead_) return;
  std::vector<std::shared_ptr<AcquireOp>> woken;
  for (const auto& [id, op] : acquires_) {
    if (op->channel != channel) continue;
    if (op->waiting) {
      woken.push_back(op);
    } else if (config_.remember_wakeups && op->subscribed) {
      op->wake_pending = true;
    }
  }
  for (const auto& op : woken) wake(op);
}

void LockClient::leave(const std::shared_ptr<AcquireOp>& op, EventKind kind, const OpEnding& why,
                       AcquireResult result) {
  assert(!op->finished && !op->leaving);
  if (op->lock.kind != LockKind::Fair || op->once ||
      config_.mutant == ClientMutant::FairGiveupNoAcquireFailed) {
    finish(op, kind, 0, why, result);
    return;
  }
  op->leaving = true;
  if (op->waiting) {
    op->waiting = false;
    env_.cancel_timer(op->wait_timer);
  }
  ScriptCall call;
  call.kind = ScriptKind::FairAcquireFailed;
  call.params.line = op->call.params.line;
  call.params.deadlines = op->call.params.deadlines;
  call.params.owner = op->owner;
  call.params.wait_ms = fair_slot_ms(op->wait_ms);
  call.params.lock = op->lock.name;
  env_.send_script(op->lock.server, call, ScriptTag{Op::AcquireFailed, op->op_id, ""}, config_.request_timeout_ms,
                   [this, op, kind, why, result](const ScriptOutcome&) {
                     if (dead_ || op->finished) return;
                     finish(op, kind, 0, why, result);
                   });
  env_.emit(op_event(EventKind::Info, Op::AcquireFailed, op->op_id, op->owner, op->lock.name));
}

void LockClient::give_up(const std::shared_ptr<AcquireOp>& op, const OpEnding& why) {
  leave(op, EventKind::Fail, why, AcquireResult::NotAcquired);
}

void LockClient::finish(const std::shared_ptr<AcquireOp>& op, EventKind kind, int64_t value,
                        const OpEnding& why, AcquireResult result) {
  assert(!op->finished);
  op->finished = true;
  if (op->waiting) {
    op->waiting = false;
    env_.cancel_timer(op->wait_timer);
  }
  if (op->subscribed) env_.unsubscribe(op->sub);  // always unsubscribe when leaving
  acquires_.erase(op->op_id);
  Event e = op_event(kind, op->op_name, op->op_id, op->owner, op->lock.name);
  e.wait_ms = op->wait_ms;
  e.lease_ms = op->lease_ms;
  e.value = value;
  why.set_on(&e);
  if (result == AcquireResult::Acquired && op->call.params.token != op->owner) e.token = op->call.params.token;
  emit_op(e, op->lock.values, op->value_ids);
  if (result == AcquireResult::Acquired) {
    if (config_.token == TokenMode::FreshPerAcquire) hold_tokens_[op->owner + "\n" + op->lock.name] = op->call.params.token;
    last_lease_[op->owner + "\n" + op->lock.name] =
        op->lease_ms < 0 ? config_.watchdog_lease_ms
                         : (config_.mutant == ClientMutant::LeaseUnitSeconds ? op->lease_ms / 1000
                                                                             : op->lease_ms);
  }
  AcquireDone done = std::move(op->done);
  if (done) done(result);
}

void LockClient::unlock(int task, const LockSpec& lock, UnlockDone done) {
  assert(!dead_);
  const uint64_t op_id = env_.new_op_id();
  const std::string who = owner(task);
  // Deterministic request id: client uuid + a per-client counter.
  const std::string request_id = config_.client_uuid + "-" + std::to_string(next_request_++);
  const std::vector<uint64_t> ids = value_op_ids(lock, op_id);
  others_[op_id] = OtherOp{Op::Unlock, who, lock.name, request_id, 0, lock.values, ids};
  emit_op(op_event(EventKind::Invoke, Op::Unlock, op_id, who, lock.name), lock.values, ids);
  send_release(op_id, task, lock, request_id, 0, std::move(done));
}

void LockClient::send_release(uint64_t op_id, int task, const LockSpec& lock,
                              const std::string& request_id, int attempt, UnlockDone done) {
  const std::string who = owner(task);
  auto other = others_.find(op_id);
  assert(other != others_.end());
  other->second.attempt = attempt;
  ScriptCall call;
  ScriptParams& p = call.params;
  p.lock = lock.name;
  p.owner = who;
  p.latch = LockKeys::latch(lock.name, request_id);
  auto lease = last_lease_.find(who + "\n" + lock.name);
  p.lease_ms = lease == last_lease_.end() ? config_.watchdog_lease_ms : lease->second;
  p.latch_ttl_ms = config_.latch_ttl_ms();
  p.message = "0";
  p.token = token_of(who, lock.name);
  const std::string wrong = config_.mutant == ClientMutant::UnlockNoWake ? ":nowake" : "";
  if (lock.kind == LockKind::Fair) {
    call.kind = ScriptKind::FairRelease;
    p.line = LockKeys::line(lock.name);
    p.deadlines = LockKeys::deadlines(lock.name);
    p.channel_prefix = LockKeys::channel(lock.name) + wrong;
    p.now_ms = env_.now_ms();
  } else if (lock.kind == LockKind::Spin) {
    call.kind = ScriptKind::SpinRelease;  // publishes nothing: nobody listens
  } else if (lock.kind == LockKind::FasterMulti) {
    call.kind = ScriptKind::FasterMultiRelease;
    p.channel = LockKeys::channel(lock.name) + wrong;
    p.now_ms = env_.now_ms();
    p.values = values_text(lock.values);
  } else {
    call.kind = ScriptKind::RlockRelease;
    p.channel = LockKeys::channel(lock.name) + wrong;
  }
  ScriptTag tag{Op::Unlock, op_id, request_id};
  if (lock.kind == LockKind::FasterMulti) tag.value_op_ids = other->second.value_op_ids;
  env_.send_script(lock.server, call, tag,
                   config_.request_timeout_ms,
                   [this, op_id, task, lock, request_id, attempt,
                    done = std::move(done)](const ScriptOutcome& out) mutable {
    if (dead_) return;
    if (out.timed_out && attempt < config_.retry_attempts) {
      send_release(op_id, task, lock, request_id, attempt + 1, std::move(done));  // same id
      return;
    }
    const std::string who = owner(task);
    const std::vector<uint64_t> ids = others_.at(op_id).value_op_ids;
    others_.erase(op_id);
    Event e = op_event(EventKind::Info, Op::Unlock, op_id, who, lock.name);
    UnlockResult result = UnlockResult::Unknown;
    if (out.timed_out) {
      e.reason = EndReason::Timeout;
      watchdog_.release_one(lock.name, who);
    } else if (out.reply.is_nil()) {
      e.kind = EventKind::Fail;
      e.reason = EndReason::IllegalMonitorState;
      result = UnlockResult::NotHeld;
      watchdog_.drop_owner(lock.name, who);
      hold_tokens_.erase(who + "\n" + lock.name);
    } else if (out.reply.is_int() && (out.reply.integer == 0 || out.reply.integer == 1)) {
      e.kind = EventKind::Ok;
      e.value = out.reply.integer;
      if (out.reply.integer == 0) {
        result = UnlockResult::StillHeld;
        watchdog_.release_one(lock.name, who);
      } else {
        result = UnlockResult::Released;
        if (config_.mutant != ClientMutant::WatchdogNotCancelled) watchdog_.drop_owner(lock.name, who);
        last_lease_.erase(who + "\n" + lock.name);
        hold_tokens_.erase(who + "\n" + lock.name);
      }
    } else {
      e.detail = "error: " + out.reply.to_string();
      watchdog_.release_one(lock.name, who);
    }
    emit_op(e, lock.values, ids);
    if (done) done(result);
  });
}

void LockClient::force_unlock(int task, const LockSpec& lock, std::function<void(bool)> done) {
  assert(!dead_);
  const uint64_t op_id = env_.new_op_id();
  const std::string who = owner(task);
  const std::vector<uint64_t> ids = value_op_ids(lock, op_id);
  others_[op_id] = OtherOp{Op::ForceUnlock, who, lock.name, "", 0, lock.values, ids};
  emit_op(op_event(EventKind::Invoke, Op::ForceUnlock, op_id, who, lock.name), lock.values, ids);
  ScriptCall call;
  ScriptParams& p = call.params;
  p.lock = lock.name;
  p.message = "0";
  if (lock.kind == LockKind::Fair) {
    call.kind = ScriptKind::FairForceRelease;
    p.line = LockKeys::line(lock.name);
    p.deadlines = LockKeys::deadlines(lock.name);
    p.channel_prefix = LockKeys::channel(lock.name);
    p.now_ms = env_.now_ms();
  } else if (lock.kind == LockKind::Spin) {
    call.kind = ScriptKind::SpinForceRelease;
  } else if (lock.kind == LockKind::FasterMulti) {
    call.kind = ScriptKind::FasterMultiForceRelease;
    p.channel = LockKeys::channel(lock.name);
    p.values = values_text(lock.values);  // not the script's: the history records it per value
  } else {
    call.kind = ScriptKind::RlockForceRelease;
    p.channel = LockKeys::channel(lock.name);
  }
  ScriptTag tag{Op::ForceUnlock, op_id, ""};
  if (lock.kind == LockKind::FasterMulti) tag.value_op_ids = ids;
  env_.send_script(lock.server, call, tag, config_.request_timeout_ms,
                   [this, op_id, ids, who, lock, done = std::move(done)](const ScriptOutcome& out) {
    if (dead_) return;
    others_.erase(op_id);
    Event e = op_event(EventKind::Info, Op::ForceUnlock, op_id, who, lock.name);
    bool released = false;
    if (out.timed_out) {
      e.reason = EndReason::Timeout;
    } else if (out.reply.is_int()) {
      e.kind = EventKind::Ok;
      e.value = out.reply.integer;
      released = out.reply.integer == 1;
      watchdog_.cancel(lock.name);
    } else {
      e.detail = "error: " + out.reply.to_string();
    }
    emit_op(e, lock.values, ids);
    if (done) done(released);
  });
}

std::string LockClient::token_of(const std::string& owner, const std::string& lock) const {
  if (config_.token == TokenMode::PerOwner) return owner;
  const auto it = hold_tokens_.find(owner + "\n" + lock);
  return it != hold_tokens_.end() ? it->second : owner + "#0";  // counted from 1: no acquire sent #0
}

std::string LockClient::acquire_token(const std::string& owner, const std::string& lock) {
  if (config_.token == TokenMode::PerOwner) return owner;
  if (config_.reentrant) {
    if (const auto it = hold_tokens_.find(owner + "\n" + lock); it != hold_tokens_.end()) return it->second;
  }
  return owner + "#" + std::to_string(next_token_++);
}

// A waiter's deterministic draw: FNV-1a over the client's uuid, then `a` and `b`.
uint64_t LockClient::waiter_draw(uint64_t a, uint64_t b) const {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : config_.client_uuid) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  h = (h ^ a) * 0x100000001b3ULL;
  return (h ^ b) * 0x100000001b3ULL;
}

int64_t LockClient::poll_sleep(const AcquireOp& op) const {
  return poll_sleep_ms(config_.wake, waiter_draw(op.op_id, static_cast<uint64_t>(op.rounds)));
}

int64_t LockClient::backoff_sleep(AcquireOp& op) const {
  if (config_.mutant == ClientMutant::BackoffNoGrowth) return kBackoffFirstMs;  // the bug: never grows
  const uint64_t draw = waiter_draw(static_cast<uint64_t>(op.task), static_cast<uint64_t>(op.backoff.sleeps));
  return next_backoff_ms(config_.spin_backoff, &op.backoff, draw);
}

void LockClient::crash() {
  if (dead_) return;
  dead_ = true;
  // Every pending operation's outcome is unknown, in op_id order.
  struct Note {
    Event e;
    std::vector<int> values;
    std::vector<uint64_t> ids;
  };
  std::map<uint64_t, Note> notes;
  for (const auto& [id, op] : acquires_) {
    Event e = op_event(EventKind::Info, op->op_name, id, op->owner, op->lock.name);
    e.wait_ms = op->wait_ms;
    e.lease_ms = op->lease_ms;
    e.reason = EndReason::Crashed;
    notes.emplace(id, Note{std::move(e), op->lock.values, op->value_ids});
  }
  for (const auto& [id, other] : others_) {
    Event e = op_event(EventKind::Info, other.op, id, other.owner, other.lock);
    e.reason = EndReason::Crashed;
    notes.emplace(id, Note{std::move(e), other.values, other.value_op_ids});
  }
  for (auto& [id, note] : notes) emit_op(note.e, note.values, note.ids);
  acquires_.clear();
  others_.clear();
}

void LockClient::digest(const DigestNames& names, StateDigest* out) const {
  out->add(dead_);
  out->add(next_request_);
  out->add(static_cast<uint64_t>(acquires_.size()));
  for (const auto& [id, op] : acquires_) {
    out->add(op->task);
    out->add(std::string_view(op->lock.name));
    out->add(static_cast<int>(op->lock.kind));
    out->add(op->lock.server);
    out->add(op_name(op->op_name));  // the digest of the name, as before it was typed
    out->add(op->wait_ms);
    out->add(op->lease_ms);
    out->add(op->once);
    out->add(op->start_ms - names.now_ms);
    out->add(op->subscribed);
    if (op->subscribed) out->add(names.subscription(op->sub));
    out->add(op->waiting);
    if (op->waiting) out->add(names.timer(op->wait_timer));
    out->add(op->wake_pending);
    out->add(op->leaving);
    if (op->lock.kind == LockKind::Spin) {  // the back-off, as far as it decides the next sleeps
      const bool saturated = op->backoff.saturated(config_.spin_backoff);
      out->add(saturated);
      out->add(op->backoff.last_ms);
      if (!saturated) out->add(op->backoff.sleeps);
    }
    for (int v : op->lock.values) out->add(v);  // a faster multi-lock's values (none otherwise)
  }
  out->add(static_cast<uint64_t>(others_.size()));
  for (const auto& [id, other] : others_) {
    out->add(op_name(other.op));
    out->add(std::string_view(other.owner));
    out->add(std::string_view(other.lock));
    out->add(std::string_view(other.request_id));
    out->add(other.attempt);
    for (int v : other.values) out->add(v);
  }
  out->add(static_cast<uint64_t>(last_lease_.size()));
  for (const auto& [key, lease] : last_lease_) {
    out->add(std::string_view(key));
    out->add(lease);
  }
  if (config_.token == TokenMode::FreshPerAcquire) {  // tokens as they compare: equal or not to each other
    out->add(next_token_);
    out->add(static_cast<uint64_t>(hold_tokens_.size()));
    for (const auto& [key, token] : hold_tokens_) {
      out->add(std::string_view(key));
      out->add(std::string_view(token));
    }
  }
  watchdog_.digest(names, out);
}

void LockClient::live_op_ids(std::vector<uint64_t>* out) const {
  out->clear();
  for (const auto& [id, op] : acquires_) out->push_back(id);
  for (const auto& [id, other] : others_) out->push_back(id);
  watchdog_.renewals_in_flight(out);
  std::sort(out->begin(), out->end());
}

}  // namespace locksim
