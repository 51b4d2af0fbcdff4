// LockClient: the Redisson-style lock client of lock-semantics.md sections 2-3
// (reentrant and fair lock), event-driven over a ClientEnv. One LockClient is
// one client process (one uuid); `task` numbers its threads, so an owner id is
// "<uuid>:<task>". Every operation completes through its callback, later,
// never inside the call; it records Invoke and exactly one of Ok / Fail /
// Info in the history (or Info "crashed" via crash()).
//
//  lock(lease_ms = -1)             wait without budget
//  try_lock(wait_ms, lease_ms=-1)  wait at most wait_ms (budget accounting on
//                                  the local wall clock, as Redisson does)
//  try_lock_once(lease_ms = -1)    exactly one attempt (fair: try_once script)
//  unlock()                        release with a fresh request id; retried
//                                  on timeout with the same id
//  force_unlock()                  force_release, not retried
// lease_ms = -1: default lease + watchdog; else an explicit lease, no watchdog.
// A spin lock (LockKind::Spin) is the reentrant lock without pub/sub: its
// refused waiter sleeps its back-off and tries again; its release and force
// release are the spin scripts, which publish nothing.
// A faster multi-lock (LockKind::FasterMulti) takes, renews and gives back
// the values of LockSpec::values together, by its own scripts on the group's
// hash, and waits as the reentrant lock's waiters do (on the group's
// channel). Each operation is recorded once per value, as the lock
// "<group>@<value>" with an op id of its own (the first value's is the
// operation's), so that the checkers judge every value as a lock.
// The acquire script is never retried (a lost reply would count twice).
// A fair waiter leaves the line with acquire_failed whenever it stops waiting
// without the lock: budget exhausted, subscribe timeout, acquire timeout.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "impl/client_config.h"
#include "impl/client_env.h"
#include "impl/digest_names.h"
#include "redis/state_digest.h"
#include "impl/watchdog.h"

namespace locksim {

enum class AcquireResult { Acquired, NotAcquired, Unknown };
// Released: reply 1; StillHeld: reply 0; NotHeld: nil (illegal monitor
// state); Unknown: timed out after every retry, an error, or a crash.
enum class UnlockResult { Released, StillHeld, NotHeld, Unknown };

// How an operation ended, as its completion event says: a typed reason
// (timeout, crashed, illegal monitor state) and a note for people ("wait
// budget exhausted", "error: ..."), either or both empty.
struct OpEnding {
  EndReason reason = EndReason::None;
  std::string note;
  OpEnding() = default;
  OpEnding(EndReason r) : reason(r) {}                      // NOLINT(google-explicit-constructor)
  OpEnding(std::string n) : note(std::move(n)) {}           // NOLINT(google-explicit-constructor)
  OpEnding(const char* n) : note(n) {}                      // NOLINT(google-explicit-constructor)
  OpEnding(EndReason r, std::string n) : reason(r), note(std::move(n)) {}
  bool empty() const { return reason == EndReason::None && note.empty(); }
  // The ending of a completion event.
  static OpEnding of(const Event& e) { return OpEnding(e.reason, e.detail); }
  // Sets e's reason and note.
  void set_on(Event* e) const {
    e->reason = reason;
    e->detail = note;
  }
};

class LockClient {
 public:
  using AcquireDone = std::function<void(AcquireResult)>;
  using UnlockDone = std::function<void(UnlockResult)>;

  LockClient(ClientEnv& env, ClientConfig config);
  ~LockClient();
  LockClient(const LockClient&) = delete;
  LockClient& operator=(const LockClient&) = delete;

  void lock(int task, const LockSpec& lock, int64_t lease_ms, AcquireDone done);
  void try_lock(int task, const LockSpec& lock, int64_t wait_ms, int64_t lease_ms, AcquireDone done);
  void try_lock_once(int task, const LockSpec& lock, int64_t lease_ms, AcquireDone done);
  void unlock(int task, const LockSpec& lock, UnlockDone done);
  void force_unlock(int task, const LockSpec& lock, std::function<void(bool released)> done);

  // A pub/sub message reached this client: wakes every waiter of `channel`.
  void on_message(const std::string& channel, const std::string& payload);
  // The process dies: every pending operation gets Info "crashed" (in op_id
  // order); no callback is called afterwards.
  void crash();

  std::string owner(int task) const { return config_.client_uuid + ":" + std::to_string(task); }
  // The token of owner's current hold of `lock` (the owner id for a per-owner
  // design), or a token no acquire used when it holds none.
  std::string token_of(const std::string& owner, const std::string& lock) const;
  const ClientConfig& config() const { return config_; }
  const Watchdog& watchdog() const { return watchdog_; }
  size_t pending_operations() const { return acquires_.size() + others_.size(); }

  // The explorer's view (impl/digest_names.h): adds the fingerprint of this
  // client's state to *out: every pending operation in op_id order (what it
  // is, its budget's start relative to names.now_ms, its subscription and
  // wait timer by rank, an unlock's retry count), the leases it remembers,
  // its request counter and its watchdog. Poll rounds are left out (their
  // bound, max_wait_rounds, is far beyond any explored depth).
  void digest(const DigestNames& names, StateDigest* out) const;
  // Appends the op ids that its pending callbacks name (pending operations,
  // renewals in flight), ascending, after clearing *out.
  void live_op_ids(std::vector<uint64_t>* out) const;

 private:
  struct AcquireOp;
  struct OtherOp {  // unlock / force_unlock in flight
    Op op = Op::None;
    std::string owner, lock;
    std::string request_id;  // unlock: the latch's request id
    int attempt = 0;         // unlock: retries sent so far
    std::vector<int> values;              // faster multi-lock: the values it gives back
    std::vector<uint64_t> value_op_ids;   // ... and their op ids (value_op_ids())
  };

  void start_acquire(int task, const LockSpec& lock, int64_t wait_ms, int64_t lease_ms, bool once,
                     AcquireDone done);
  void attempt(const std::shared_ptr<AcquireOp>& op);
  void on_acquire_reply(const std::shared_ptr<AcquireOp>& op, const ScriptOutcome& out);
  void wait_for_wake(const std::shared_ptr<AcquireOp>& op, int64_t ttl_ms);
  void wake(const std::shared_ptr<AcquireOp>& op);
  void wake_by_id(uint64_t op_id);
  // The pending (not finished) acquire op_id; null when finished or crashed.
  std::shared_ptr<AcquireOp> pending_acquire(uint64_t op_id) const;
  bool spend_budget(const std::shared_ptr<AcquireOp>& op);  // false: exhausted
  void give_up(const std::shared_ptr<AcquireOp>& op, const OpEnding& why);
  // Ends a give-up (or an acquire whose reply timed out) as `kind`: a fair
  // lock's waiter (not tryLock()) first leaves the line, sending
  // acquire_failed (and its notice), and ends when that answers or times
  // out; any other ends at once.
  void leave(const std::shared_ptr<AcquireOp>& op, EventKind kind, const OpEnding& why, AcquireResult result);
  void finish(const std::shared_ptr<AcquireOp>& op, EventKind kind, int64_t value,
              const OpEnding& why, AcquireResult result);
  void send_release(uint64_t op_id, int task, const LockSpec& lock, const std::string& request_id,
                    int attempt, UnlockDone done);
  std::string channel_of(const LockSpec& lock, const std::string& owner) const;
  // The token an acquire of `lock` by `owner` sends: the owner id, or its
  // hold's token on a re-entry (reentrant design), else a fresh one.
  std::string acquire_token(const std::string& owner, const std::string& lock);
  // Polling design: the sleep before op's next attempt (interval + jitter,
  // the jitter drawn from the client's uuid, the operation and its round).
  int64_t poll_sleep(const AcquireOp& op) const;
  // Spin lock: the sleep before op's next attempt, advancing its back-off
  // (impl/backoff.h; the draws from the client's uuid, the task and the
  // sleeps so far, so that equal fingerprints draw alike).
  int64_t backoff_sleep(AcquireOp& op) const;
  // The two waiters' draws above: FNV-1a over the uuid, then a and b.
  uint64_t waiter_draw(uint64_t a, uint64_t b) const;
  // The fair-lock slot length (wait_ms parameter) of an acquire with this wait.
  int64_t fair_slot_ms(int64_t wait_ms) const;
  Event op_event(EventKind kind, Op op, uint64_t op_id, const std::string& owner,
                 const std::string& lock) const;
  // The op ids an operation of `lock` is recorded under: {op_id} for a
  // lock, one per value (op_id first, then fresh ones) for a faster multi-lock.
  std::vector<uint64_t> value_op_ids(const LockSpec& lock, uint64_t op_id);
  // Emits `e` (an op_event of lock.name): as it is, or for a faster
  // multi-lock once per value, as "<group>@<value>" under its op id.
  void emit_op(const Event& e, const std::vector<int>& values, const std::vector<uint64_t>& ids);

  ClientEnv& env_;
  ClientConfig config_;
  Watchdog watchdog_;
  std::map<uint64_t, std::shared_ptr<AcquireOp>> acquires_;  // by op_id
  std::map<uint64_t, OtherOp> others_;                       // by op_id
  std::map<std::string, int64_t> last_lease_;  // "<owner>\n<lock>" -> lease of its last acquire
  std::map<std::string, std::string> hold_tokens_;  // "<owner>\n<lock>" -> token of its hold (fresh tokens)
  uint64_t next_request_ = 1;
  uint64_t next_token_ = 1;
  bool dead_ = false;
};

}  // namespace locksim
