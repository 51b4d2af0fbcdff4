#include "impl/multi_lock.h"

#include <algorithm>
#include <cassert>

namespace locksim {

namespace {
std::string hold_key(const std::string& owner, const std::string& group) { return owner + "\n" + group; }
}  // namespace

// The ClientEnv the member LockClient runs on: everything goes to the real
// env, except that member operations are attributed to the group operation
// that started them (their scripts carry its op_id and op) and their own
// Invoke / Ok / Fail / Info events are not recorded. Watchdog notices
// (hold_lost, watchdog_stop) are recorded and reported to the group client.
class MultiLockClient::MemberEnv final : public ClientEnv {
 public:
  MemberEnv(ClientEnv& outer, MultiLockClient& group) : outer_(outer), group_(group) {}

  // While set, new member operations belong to this group operation.
  void attribute_to(uint64_t op_id, locksim::Op op) { current_ = Attribution{op_id, op}; }
  void attribute_to_none() { current_ = Attribution{}; }

  int64_t now_ms() const override { return outer_.now_ms(); }
  TimerId start_timer(int64_t delay_ms, std::function<void()> fire) override {
    return outer_.start_timer(delay_ms, std::move(fire));
  }
  void cancel_timer(TimerId id) override { outer_.cancel_timer(id); }
  void send_script(int server, const ScriptCall& call, const ScriptTag& tag, int64_t timeout_ms,
                   std::function<void(const ScriptOutcome&)> done) override {
    ScriptTag t = tag;
    if (auto it = member_ops_.find(tag.op_id); it != member_ops_.end()) {
      t.op = it->second.op;
      t.op_id = it->second.op_id;
    }
    outer_.send_script(server, call, t, timeout_ms, std::move(done));
  }
  SubscriptionId subscribe(int server, const std::string& channel, int64_t timeout_ms,
                           std::function<void(bool ok)> done) override {
    return outer_.subscribe(server, channel, timeout_ms, std::move(done));
  }
  void unsubscribe(SubscriptionId id) override { outer_.unsubscribe(id); }
  // Which member operation belongs to which group operation (by rank).
  void digest(const DigestNames& names, StateDigest* out) const {
    assert(current_.op_id == 0 && "fingerprinted inside a group call");
    out->add(static_cast<uint64_t>(member_ops_.size()));
    for (const auto& [id, a] : member_ops_) {
      out->add(names.op(id));
      out->add(names.op(a.op_id));
      out->add(static_cast<int>(a.op));
    }
  }
  uint64_t new_op_id() override {
    const uint64_t id = outer_.new_op_id();
    if (current_.op_id != 0) member_ops_[id] = current_;
    return id;
  }
  void emit(Event event) override {
    auto it = event.op_id != 0 ? member_ops_.find(event.op_id) : member_ops_.end();
    if (it != member_ops_.end()) {
      // A member operation's own event: not recorded; its completion ends
      // the attribution (no script follows a completion).
      if (event.kind != EventKind::Invoke && event.op != locksim::Op::AcquireFailed) member_ops_.erase(it);
      return;
    }
    const bool lost = event.kind == EventKind::Info && (event.op == locksim::Op::HoldLost || event.op == locksim::Op::WatchdogStop);
    const std::string lock = event.lock;
    const std::string owner = event.owner;
    outer_.emit(std::move(event));
    if (lost) group_.on_member_lost(lock, owner);
  }

 private:
  struct Attribution {
    uint64_t op_id = 0;
    locksim::Op op = locksim::Op::None;
  };
  ClientEnv& outer_;
  MultiLockClient& group_;
  Attribution current_;
  std::map<uint64_t, Attribution> member_ops_;  // member op_id -> group operation
};

struct MultiLockClient::GroupOp {
  uint64_t op_id = 0;
  int task = 0;
  GroupRef group;
  std::string owner;
  locksim::Op op_name = locksim::Op::Lock;  // lock or try_lock
  int64_t wait_ms = -1;     // -1: lock() (no overall budget)
  int64_t lease_ms = -1;    // -1: default lease + watchdog on every member
  bool once = false;        // tryLock(): one try per member
  bool forever = false;     // lock(): rounds of kLockRoundWaitMs per member
  int64_t start_ms = 0;     // local clock at the start
  int64_t round_start_ms = 0;
  int rounds = 0;
  size_t next = 0;          // next member to try
  int failures = 0;
  std::vector<size_t> acquired;  // member indexes held this round
  std::set<size_t> touched;      // acquired or outcome unknown: released on failure
  bool finished = false;
  AcquireDone done;
  // Where the operation waits, besides trying a member (each fingerprinted):
  bool refusing = false;             // a reentry, refused by a timer of 0 ms
  ClientEnv::TimerId refusal_timer = 0;
  size_t releases_left = 0;          // round failed: touched members' unlocks not yet answered
  std::string failed_why;            // ... and why the round failed
  bool failed_budget_spent = false;  // ... because the wait budget ran out
  size_t renews_left = 0;            // acquired: lease resets not yet answered
  int64_t validity_ms = 0;           // acquired: the validity measured (0: not checked)

  int64_t member_lease_ms() const {
    // An explicit lease with a wait: first 2 * wait, reset to the lease once
    // all are held (a wait of 0 gives no provisional lease). lock() waits
    // kLockRoundWaitMs per member and round.
    if (lease_ms > 0 && forever) return 2 * kLockRoundWaitMs * static_cast<int64_t>(group.members.size());
    if (lease_ms > 0 && wait_ms > 0 && !once) return 2 * wait_ms;
    return lease_ms;
  }
};

struct MultiLockClient::Hold {
  uint64_t op_id = 0;
  std::vector<std::string> members;  // held at success
  std::set<std::string> lost;        // members the client learned are gone
  int needed = 0;                    // members the group needs (N - failure budget)
  bool group_lost = false;
  ClientEnv::TimerId validity_timer = 0;
  bool validity_armed = false;
};

MultiLockClient::MultiLockClient(ClientEnv& env, ClientConfig config, GroupOptions options)
    : env_(env), config_(std::move(config)), options_(options) {
  member_env_ = std::make_unique<MemberEnv>(env_, *this);
  members_ = std::make_unique<LockClient>(*member_env_, config_);
}

MultiLockClient::~MultiLockClient() = default;

int MultiLockClient::failure_budget(GroupKind kind, int members) {
  assert(members >= 1);
  if (kind == GroupKind::Multi) return 0;
  return members - (members / 2 + 1);
}

int64_t MultiLockClient::per_lock_wait_ms(GroupKind kind, int members, int64_t remaining_ms) {
  assert(members >= 1);
  if (kind == GroupKind::Multi) return remaining_ms;
  return std::max<int64_t>(remaining_ms / members, 1);
}

Event MultiLockClient::group_event(EventKind kind, locksim::Op op, uint64_t op_id, const std::string& owner,
                                   const std::string& group) const {
  Event e;
  e.kind = kind;
  e.op = op;
  e.op_id = op_id;
  e.owner.assign(owner);
  e.lock.assign(group);
  return e;
}

void MultiLockClient::lock(int task, const GroupRef& group, int64_t lease_ms, AcquireDone done) {
  start(task, group, -1, lease_ms, false, true, std::move(done));
}

void MultiLockClient::try_lock(int task, const GroupRef& group, int64_t wait_ms, int64_t lease_ms,
                               AcquireDone done) {
  assert(wait_ms >= 0);
  start(task, group, wait_ms, lease_ms, false, false, std::move(done));
}

void MultiLockClient::try_lock_once(int task, const GroupRef& group, int64_t lease_ms, AcquireDone done) {
  start(task, group, 0, lease_ms, true, false, std::move(done));
}

void MultiLockClient::start(int task, const GroupRef& group, int64_t wait_ms, int64_t lease_ms, bool once,
                            bool forever, AcquireDone done) {
  assert(!dead_);
  assert(!group.members.empty());
  assert(lease_ms == -1 || lease_ms > 0);
  auto op = std::make_shared<GroupOp>();
  op->op_id = env_.new_op_id();
  op->task = task;
  op->group = group;
  op->owner = owner(task);
  op->op_name = forever ? locksim::Op::Lock : locksim::Op::TryLock;
  op->wait_ms = forever ? -1 : wait_ms;
  op->lease_ms = lease_ms;
  op->once = once;
  op->forever = forever;
  op->start_ms = env_.now_ms();
  op->done = std::move(done);
  ops_.emplace(op->op_id, op);
  Event e = group_event(EventKind::Invoke, op->op_name, op->op_id, op->owner, group.name);
  e.wait_ms = op->wait_ms;
  e.lease_ms = lease_ms;
  e.once = once;
  env_.emit(std::move(e));
  if (holds_.count(hold_key(op->owner, group.name)) != 0) {
    // No reentry: taking the members again would reset their leases under
    // the first hold. Refused, later (never inside the call).
    op->refusing = true;
    op->refusal_timer = env_.start_timer(0, [this, op] {
      if (dead_ || op->finished) return;
      finish(op, EventKind::Fail, "already held (no group reentry)", AcquireResult::NotAcquired);
    });
    return;
  }
  start_round(op);
}

// Wait left: of the whole budget (tryLock), of this round (lock()).
int64_t MultiLockClient::remaining_ms(const GroupOp& op) const {
  if (op.forever) {
    const int64_t round_ms = kLockRoundWaitMs * static_cast<int64_t>(op.group.members.size());
    return round_ms - (env_.now_ms() - op.round_start_ms);
  }
  return op.wait_ms - (env_.now_ms() - op.start_ms);
}

void MultiLockClient::start_round(const std::shared_ptr<GroupOp>& op) {
  if (++op->rounds > kMaxRounds) {
    finish(op, EventKind::Fail, "wait rounds exhausted", AcquireResult::NotAcquired);
    return;
  }
  op->round_start_ms = env_.now_ms();
  op->next = 0;
  op->failures = 0;
  op->acquired.clear();
  op->touched.clear();
  try_member(op);
}

void MultiLockClient::try_member(const std::shared_ptr<GroupOp>& op) {
  assert(op->next < op->group.members.size());
  const LockSpec& member = op->group.members[op->next];
  const int n = static_cast<int>(op->group.members.size());
  auto cb = [this, op](AcquireResult r) { on_member(op, r); };
  member_env_->attribute_to(op->op_id, op->op_name);
  if (op->once) {
    members_->try_lock_once(op->task, member, op->member_lease_ms(), cb);
  } else {
    const int64_t wait_ms = per_lock_wait_ms(op->group.kind, n, std::max<int64_t>(remaining_ms(*op), 0));
    members_->try_lock(op->task, member, wait_ms, op->member_lease_ms(), cb);
  }
  member_env_->attribute_to_none();
}

void MultiLockClient::on_member(const std::shared_ptr<GroupOp>& op, AcquireResult result) {
  if (dead_ || op->finished) return;
  const size_t index = op->next++;
  if (result == AcquireResult::Acquired) {
    op->acquired.push_back(index);
    op->touched.insert(index);
  } else {
    op->failures++;
    if (result == AcquireResult::Unknown) op->touched.insert(index);  // it may be held on the server
  }
  const int n = static_cast<int>(op->group.members.size());
  if (static_cast<int>(op->acquired.size()) >= needed(op->group.kind, n)) {
    acquired(op);
    return;
  }
  if (op->failures > failure_budget(op->group.kind, n)) {
    round_failed(op, std::to_string(op->failures) + " of " + std::to_string(n) + " members failed");
    return;
  }
  assert(op->next < op->group.members.size());  // within the budget, enough members are left
  if (!op->once && remaining_ms(*op) <= 0) {
    round_failed(op, "wait budget exhausted", /*budget_spent=*/true);
    return;
  }
  try_member(op);
}

// Above the failure budget (or out of wait, or validity gone): release every
// member touched this round, then retry from the first member while wait
// remains, else give up.
void MultiLockClient::round_failed(const std::shared_ptr<GroupOp>& op, const std::string& why, bool budget_spent) {
  op->failed_why = why;
  op->failed_budget_spent = budget_spent;
  release_touched(op);
}

void MultiLockClient::after_release(const std::shared_ptr<GroupOp>& op) {
  if (dead_ || op->finished) return;
  const std::string why = std::move(op->failed_why);
  op->failed_why.clear();
  const bool budget_spent = op->failed_budget_spent;
  op->failed_budget_spent = false;
  if (op->once) {
    finish(op, EventKind::Fail, why, AcquireResult::NotAcquired);
  } else if (op->forever || remaining_ms(*op) > 0) {
    start_round(op);
  } else {
    finish(op, EventKind::Fail, budget_spent ? why : "wait budget exhausted (" + why + ")",
           AcquireResult::NotAcquired);
  }
}

void MultiLockClient::release_touched(const std::shared_ptr<GroupOp>& op) {
  const std::vector<size_t> touched(op->touched.begin(), op->touched.end());
  op->touched.clear();
  op->acquired.clear();
  if (touched.empty()) {
    after_release(op);
    return;
  }
  op->releases_left = touched.size();
  member_env_->attribute_to(op->op_id, op->op_name);
  for (size_t index : touched) {
    members_->unlock(op->task, op->group.members[index], [this, op](UnlockResult) {
      assert(op->releases_left > 0);
      if (--op->releases_left == 0) after_release(op);
    });
  }
  member_env_->attribute_to_none();
}

void MultiLockClient::acquired(const std::shared_ptr<GroupOp>& op) {
  const int64_t lease_ms = op->lease_ms > 0 ? op->lease_ms : config_.watchdog_lease_ms;
  int64_t validity = 0;
  if (options_.validity && op->group.kind == GroupKind::RedLock) {
    validity = validity_ms(lease_ms, env_.now_ms() - op->round_start_ms);
    if (validity <= 0) {
      round_failed(op, "validity " + std::to_string(validity) + " ms <= 0");
      return;
    }
  }
  op->validity_ms = validity;
  // Provisional lease (2 * wait): reset every held member to the real lease.
  if (op->lease_ms > 0 && op->member_lease_ms() != op->lease_ms) {
    op->renews_left = op->acquired.size();
    for (size_t i : op->acquired) {
      const LockSpec& member = op->group.members[i];
      ScriptCall call;
      call.kind = ScriptKind::RlockRenew;
      call.params.lock = member.name;
      call.params.owner = op->owner;
      call.params.token = members_->token_of(op->owner, member.name);
      call.params.lease_ms = op->lease_ms;
      env_.send_script(member.server, call, ScriptTag{op->op_name, op->op_id, ""}, config_.request_timeout_ms,
                       [this, op](const ScriptOutcome&) {
                         assert(op->renews_left > 0);
                         if (--op->renews_left == 0) succeed(op);
                       });
    }
    return;
  }
  succeed(op);
}

void MultiLockClient::succeed(const std::shared_ptr<GroupOp>& op) {
  const int64_t validity = op->validity_ms;
  if (dead_ || op->finished) return;
  auto hold = std::make_shared<Hold>();
  hold->op_id = op->op_id;
  hold->needed = needed(op->group.kind, static_cast<int>(op->group.members.size()));
  for (size_t i : op->acquired) hold->members.push_back(op->group.members[i].name);
  const std::string key = hold_key(op->owner, op->group.name);
  if (auto old = holds_.find(key); old != holds_.end() && old->second->validity_armed)
    env_.cancel_timer(old->second->validity_timer);
  holds_[key] = hold;
  if (validity > 0 && op->lease_ms > 0) {
    hold->validity_armed = true;
    const std::string owner = op->owner, group = op->group.name;
    hold->validity_timer = env_.start_timer(validity, [this, hold, owner, group] {
      if (dead_ || !hold->validity_armed) return;
      hold->validity_armed = false;
      Event e = group_event(EventKind::Info, locksim::Op::ValidityEnd, 0, owner, group);
      e.detail = "validity ended";
      env_.emit(std::move(e));
    });
  }
  finish(op, EventKind::Ok, validity > 0 ? "validity " + std::to_string(validity) + " ms" : "",
         AcquireResult::Acquired);
}

void MultiLockClient::finish(const std::shared_ptr<GroupOp>& op, EventKind kind, const OpEnding& why,
                             AcquireResult result) {
  assert(!op->finished);
  op->finished = true;
  ops_.erase(op->op_id);
  Event e = group_event(kind, op->op_name, op->op_id, op->owner, op->group.name);
  e.wait_ms = op->wait_ms;
  e.lease_ms = op->lease_ms;
  e.value = result == AcquireResult::Acquired ? 1 : 0;
  why.set_on(&e);
  env_.emit(std::move(e));
  AcquireDone done = std::move(op->done);
  if (done) done(result);
}

void MultiLockClient::unlock(int task, const GroupRef& group, UnlockDone done) {
  assert(!dead_);
  const uint64_t op_id = env_.new_op_id();
  const std::string who = owner(task);
  const std::string key = hold_key(who, group.name);
  PendingUnlock& pending = unlocks_[op_id];
  pending.key = key;
  env_.emit(group_event(EventKind::Invoke, locksim::Op::Unlock, op_id, who, group.name));
  if (auto it = holds_.find(key); it != holds_.end()) {
    pending.lost = it->second->group_lost;
    if (it->second->validity_armed) env_.cancel_timer(it->second->validity_timer);
    it->second->validity_armed = false;
    holds_.erase(it);
  }
  pending.members_left = group.members.size();
  pending.done = std::move(done);
  member_env_->attribute_to(op_id, locksim::Op::Unlock);
  for (const LockSpec& member : group.members) {
    members_->unlock(task, member, [this, op_id](UnlockResult) {  // failures ignored
      if (dead_) return;
      auto it = unlocks_.find(op_id);
      assert(it != unlocks_.end() && it->second.members_left > 0);
      if (--it->second.members_left == 0) finish_unlock(op_id);
    });
  }
  member_env_->attribute_to_none();
}

void MultiLockClient::finish_unlock(uint64_t op_id) {
  auto it = unlocks_.find(op_id);
  assert(it != unlocks_.end());
  PendingUnlock pending = std::move(it->second);
  unlocks_.erase(it);
  const auto nl = pending.key.find('\n');
  const std::string who = pending.key.substr(0, nl), name = pending.key.substr(nl + 1);
  Event e = group_event(pending.lost ? EventKind::Fail : EventKind::Ok, locksim::Op::Unlock, op_id, who, name);
  if (pending.lost) {
    e.reason = EndReason::IllegalMonitorState;
    e.detail = "(the group was lost)";
  } else {
    e.value = 1;
  }
  env_.emit(std::move(e));
  if (pending.done) pending.done(!pending.lost);
}

void MultiLockClient::on_member_lost(const std::string& member, const std::string& owner) {
  if (dead_) return;
  for (auto& [key, hold] : holds_) {
    if (key.compare(0, owner.size() + 1, owner + "\n") != 0) continue;
    if (std::find(hold->members.begin(), hold->members.end(), member) == hold->members.end()) continue;
    if (!hold->lost.insert(member).second || hold->group_lost) continue;
    const std::string group = key.substr(owner.size() + 1);
    const int held = static_cast<int>(hold->members.size() - hold->lost.size());
    if (held < hold->needed) {
      hold->group_lost = true;
      if (hold->validity_armed) env_.cancel_timer(hold->validity_timer);
      hold->validity_armed = false;
      Event e = group_event(EventKind::Info, locksim::Op::HoldLost, 0, owner, group);
      e.detail = "member " + member + " lost: " + std::to_string(held) + " members held, " +
                 std::to_string(hold->needed) + " needed";
      env_.emit(std::move(e));
    }
  }
}

void MultiLockClient::on_message(const std::string& channel, const std::string& payload) {
  if (dead_) return;
  members_->on_message(channel, payload);
}

void MultiLockClient::crash() {
  if (dead_) return;
  members_->crash();  // its own events are not recorded
  dead_ = true;
  std::map<uint64_t, Event> notes;
  for (const auto& [id, op] : ops_) {
    Event e = group_event(EventKind::Info, op->op_name, id, op->owner, op->group.name);
    e.wait_ms = op->wait_ms;
    e.lease_ms = op->lease_ms;
    e.reason = EndReason::Crashed;
    notes.emplace(id, std::move(e));
  }
  for (const auto& [id, pending] : unlocks_) {
    const std::string& key = pending.key;
    const auto nl = key.find('\n');
    Event e = group_event(EventKind::Info, locksim::Op::Unlock, id, key.substr(0, nl), key.substr(nl + 1));
    e.reason = EndReason::Crashed;
    notes.emplace(id, std::move(e));
  }
  for (auto& [id, e] : notes) env_.emit(std::move(e));
  ops_.clear();
  unlocks_.clear();
}

void MultiLockClient::digest(const DigestNames& names, StateDigest* out) const {
  out->add(dead_);
  members_->digest(names, out);
  member_env_->digest(names, out);
  out->add(static_cast<uint64_t>(ops_.size()));
  for (const auto& [id, op] : ops_) {  // op ids ascend as their ranks do
    out->add(names.op(id));
    out->add(op->task);
    out->add(std::string_view(op->group.name));
    out->add(static_cast<int>(op->group.kind));
    out->add(static_cast<uint64_t>(op->group.members.size()));
    out->add(static_cast<int>(op->op_name));
    out->add(op->wait_ms);
    out->add(op->lease_ms);
    out->add(op->once);
    out->add(op->forever);
    out->add(op->start_ms - names.now_ms);
    out->add(op->round_start_ms - names.now_ms);
    out->add(op->rounds);
    out->add(static_cast<uint64_t>(op->next));
    out->add(op->failures);
    out->add(static_cast<uint64_t>(op->acquired.size()));
    for (size_t i : op->acquired) out->add(static_cast<uint64_t>(i));
    out->add(static_cast<uint64_t>(op->touched.size()));
    for (size_t i : op->touched) out->add(static_cast<uint64_t>(i));
    out->add(op->refusing);
    if (op->refusing) out->add(names.timer(op->refusal_timer));
    out->add(static_cast<uint64_t>(op->releases_left));
    out->add(std::string_view(op->failed_why));
    out->add(op->failed_budget_spent);
    out->add(static_cast<uint64_t>(op->renews_left));
    out->add(op->validity_ms);
  }
  out->add(static_cast<uint64_t>(unlocks_.size()));
  for (const auto& [id, pending] : unlocks_) {
    out->add(names.op(id));
    out->add(std::string_view(pending.key));
    out->add(pending.lost);
    out->add(static_cast<uint64_t>(pending.members_left));
  }
  out->add(static_cast<uint64_t>(holds_.size()));
  for (const auto& [key, hold] : holds_) {
    out->add(std::string_view(key));
    out->add(static_cast<uint64_t>(hold->members.size()));
    for (const std::string& m : hold->members) out->add(std::string_view(m));
    out->add(static_cast<uint64_t>(hold->lost.size()));
    for (const std::string& m : hold->lost) out->add(std::string_view(m));
    out->add(hold->needed);
    out->add(hold->group_lost);
    out->add(hold->validity_armed);
    if (hold->validity_armed) out->add(names.timer(hold->validity_timer));
  }
}

void MultiLockClient::live_op_ids(std::vector<uint64_t>* out) const {
  members_->live_op_ids(out);
  for (const auto& [id, op] : ops_) out->push_back(id);
  for (const auto& [id, pending] : unlocks_) out->push_back(id);
  std::sort(out->begin(), out->end());
}

}  // namespace locksim
