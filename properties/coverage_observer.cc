#include "properties/coverage_observer.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <map>
#include <optional>
#include <cassert>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "redis/key_hash.h"
#include "model/script_branches.h"
#include "traces/fault_kind.h"

namespace locksim {

std::vector<ScriptKind> lock_kind_scripts(ScenarioLockKind lock_kind) {
  const std::vector<ScriptKind> rlock = {ScriptKind::RlockAcquire, ScriptKind::RlockRelease, ScriptKind::RlockRenew,
                                         ScriptKind::RlockForceRelease};
  const std::vector<ScriptKind> fair = {ScriptKind::FairAcquire,       ScriptKind::FairTryOnce,
                                        ScriptKind::FairRelease,       ScriptKind::FairAcquireFailed,
                                        ScriptKind::FairForceRelease,  ScriptKind::RlockRenew};
  switch (lock_kind) {
    case ScenarioLockKind::Rlock:
    case ScenarioLockKind::Multi:
    case ScenarioLockKind::RedLock:
      return rlock;
    case ScenarioLockKind::Fair:
      return fair;
    case ScenarioLockKind::Mixed:
      return {ScriptKind::RlockAcquire, ScriptKind::RlockRelease, ScriptKind::RlockRenew,
              ScriptKind::RlockForceRelease, ScriptKind::FairAcquire, ScriptKind::FairTryOnce,
              ScriptKind::FairRelease, ScriptKind::FairAcquireFailed, ScriptKind::FairForceRelease};
    case ScenarioLockKind::Spin:
      return {ScriptKind::RlockAcquire, ScriptKind::SpinRelease, ScriptKind::RlockRenew,
              ScriptKind::SpinForceRelease};
    case ScenarioLockKind::FasterMulti:
      return {ScriptKind::FasterMultiAcquire, ScriptKind::FasterMultiRelease, ScriptKind::FasterMultiRenew,
              ScriptKind::FasterMultiForceRelease};
  }
  return all_script_kinds();
}

namespace {

// ---- item names --------------------------------------------------------

enum class ReplyClass : uint8_t { Nil, Zero, One, Ttl, Negative, Error, Other };
constexpr int kReplyClasses = 7;
constexpr std::array<const char*, kReplyClasses> kReplyClassNames = {"nil", "0", "1", "ttl", "negative", "error",
                                                                     "other"};

// The classes each script's correct replies fall in (the universe).
std::vector<ReplyClass> expected_replies(ScriptKind kind) {
  using R = ReplyClass;
  switch (kind) {
    case ScriptKind::RlockAcquire: return {R::Nil, R::Ttl};
    case ScriptKind::RlockRelease: return {R::Nil, R::Zero, R::One};
    case ScriptKind::RlockRenew: return {R::Zero, R::One};
    case ScriptKind::RlockForceRelease: return {R::Zero, R::One};
    case ScriptKind::FairAcquire: return {R::Nil, R::Zero, R::Ttl};
    case ScriptKind::FairTryOnce: return {R::Nil, R::One};
    case ScriptKind::FairRelease: return {R::Nil, R::Zero, R::One};
    case ScriptKind::FairAcquireFailed: return {R::Nil};
    case ScriptKind::FairForceRelease: return {R::Zero, R::One};
    case ScriptKind::SpinRelease: return {R::Nil, R::Zero, R::One};
    case ScriptKind::SpinForceRelease: return {R::Zero, R::One};
    case ScriptKind::FasterMultiAcquire: return {R::Nil, R::Ttl};
    case ScriptKind::FasterMultiRelease: return {R::Nil, R::Zero, R::One};
    case ScriptKind::FasterMultiRenew: return {R::Zero, R::One};
    case ScriptKind::FasterMultiForceRelease: return {R::Zero, R::One};
  }
  return {};
}

// Fixed items: states and preconditions. `fair`: only with fair locks;
// `violation`: shown only by a violation, left out of the universe.
struct FixedItem {
  const char* name;
  bool fair;
  bool violation;
};
enum class Fixed : uint8_t {
  Holders0, Holders1, Holders2, Depth2, Depth3, Believers2, Waiters1, Waiters2, Waiters3, Line1, Line2, Line3,
  HeadLive, HeadCrashed, HeadPaused, HeadGone, HolderCrashed, HolderPaused, LeaseNear, WakeupWaiter,
  WakeupNoWaiter,
  PreContended, PreExpiredWhileBelieved, PreGrantWithLine, PrePurge, PreCrashedHolder, PreRenewalRefused,
  PreFreeWithWaiters, PreGaveUp, PreNested, PreReleaseByNonOwner, PreErrorReply,
  Count
};
constexpr std::array<FixedItem, static_cast<size_t>(Fixed::Count)> kFixed = {{
    {"state/holders=0", false, false},
    {"state/holders=1", false, false},
    {"state/holders=2+", false, true},
    {"state/depth=2", false, false},
    {"state/depth=3+", false, false},
    {"state/believers=2+", false, true},
    {"state/waiters=1", false, false},
    {"state/waiters=2", false, false},
    {"state/waiters=3+", false, false},
    {"state/line=1", true, false},
    {"state/line=2", true, false},
    {"state/line=3+", true, false},
    {"state/head=live", true, false},
    {"state/head=crashed", true, false},
    {"state/head=paused", true, false},
    {"state/head=gone", true, false},
    {"state/holder=crashed", false, false},
    {"state/holder=paused", false, false},
    {"state/lease=near", false, false},
    {"state/wakeup=waiter", false, false},
    {"state/wakeup=no_waiter", false, false},
    {"pre/mutual_exclusion:contended", false, false},
    {"pre/mutual_exclusion:expired_while_believed", false, false},
    {"pre/fifo_fairness:grant_with_line", true, false},
    {"pre/fifo_fairness:purge", true, false},
    {"pre/watchdog_expiry:crashed_holder", false, false},
    {"pre/watchdog_expiry:renewal_refused", false, false},
    {"pre/liveness:free_with_waiters", false, false},
    {"pre/liveness:acquire_gave_up", false, false},
    {"pre/reentrancy:nested", false, false},
    {"pre/reentrancy:release_by_non_owner", false, false},
    {"pre/script_error:error_reply", false, true},
}};

// The fault kinds coverage counts (traces/fault_kind.h), in the order of
// its items, with their names in items ("fault/<name>:<situation>").
constexpr std::array<FaultKind, 11> kCoveredFaults = {
    FaultKind::Crash,       FaultKind::Pause,         FaultKind::ClientClockJump, FaultKind::Partition,
    FaultKind::LostRequest, FaultKind::LostReply,     FaultKind::LostMessage,     FaultKind::LostSubscribe,
    FaultKind::RedisRestart, FaultKind::ServerClockJump, FaultKind::Failover};
constexpr size_t kCoveredFaultCount = kCoveredFaults.size();
// A covered kind's index in kCoveredFaults; nullopt for the kinds coverage
// does not count (a request timeout is no fault of the plan; clock setups and
// slow links have no event).
std::optional<size_t> covered_index(FaultKind kind) {
  switch (kind) {
    case FaultKind::Crash: return 0;
    case FaultKind::Pause: return 1;
    case FaultKind::ClientClockJump: return 2;
    case FaultKind::Partition: return 3;
    case FaultKind::LostRequest: return 4;
    case FaultKind::LostReply: return 5;
    case FaultKind::LostMessage: return 6;
    case FaultKind::LostSubscribe: return 7;
    case FaultKind::RedisRestart: return 8;
    case FaultKind::ServerClockJump: return 9;
    case FaultKind::Failover: return 10;
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink: return std::nullopt;
  }
  return std::nullopt;
}
constexpr std::array<const char*, kCoveredFaultCount> kFaultNames = {
    "crash",      "pause",         "clock_jump",    "partition",         "lost_request", "lost_reply",
    "lost_wakeup", "lost_subscribe", "redis_restart", "server_clock_jump", "failover"};
constexpr std::array<const char*, kCoveredFaultCount> kFaultWords = {
    "a client crashed",
    "a client paused",
    "a client's clock jumped",
    "a client was partitioned",
    "a client's script request was lost",
    "a script's reply to a client was lost",
    "a wake-up message to a client was lost",
    "a client's subscription (or its acknowledgement) was lost",
    "a server restarted",
    "a server's clock jumped",
    "a server failed over to its replica"};
enum class Situation : uint8_t { HoldingPastLease, Holding, FirstInLine, Waiting, Releasing, Idle, Held, Line, Free, Count };
constexpr std::array<const char*, static_cast<size_t>(Situation::Count)> kSituationNames = {
    "holding_past_lease", "holding", "first_in_line", "waiting", "releasing", "idle", "held", "line", "free"};
constexpr std::array<const char*, static_cast<size_t>(Situation::Count)> kSituationWords = {
    "while it held a lock and for longer than that lock's lease had left",
    "while it held a lock",
    "while it was first in a fair lock's line",
    "while it waited for a lock",
    "while it was releasing a lock",
    "while it held and waited for nothing",
    "while a lock on that server was held",
    "while a fair line on that server had waiters",
    "while no lock on that server was held or waited for"};

// The situations in each fault kind's universe.
std::vector<Situation> fault_universe(FaultKind kind) {
  using S = Situation;
  switch (kind) {
    case FaultKind::Crash: return {S::Holding, S::FirstInLine, S::Waiting, S::Releasing, S::Idle};
    case FaultKind::Pause:
    case FaultKind::Partition:
      return {S::HoldingPastLease, S::Holding, S::FirstInLine, S::Waiting, S::Releasing, S::Idle};
    case FaultKind::ClientClockJump: return {S::Holding, S::FirstInLine, S::Waiting, S::Idle};
    case FaultKind::LostRequest:
    case FaultKind::LostReply: return {S::Holding, S::Waiting, S::Releasing};
    case FaultKind::LostMessage: return {S::FirstInLine, S::Waiting, S::Idle};
    case FaultKind::LostSubscribe: return {S::Waiting};
    case FaultKind::RedisRestart:
    case FaultKind::ServerClockJump:
    case FaultKind::Failover: return {S::Held, S::Line, S::Free};
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink: break;
  }
  return {};
}

constexpr unsigned kTupleBits = 18;  // fair 1, holders 2, depth 2, believers 2, waiters 2, line 2, head 3, holder 2, lease 2
constexpr size_t kReplyItems = static_cast<size_t>(kScriptKindCount) * kReplyClasses;
constexpr size_t kFaultItems = kCoveredFaultCount * static_cast<size_t>(Situation::Count);

// ---- the mirror ----------------------------------------------------------

struct ClientState {
  bool alive = true;
  uint32_t incarnation = 0;   // raised by each crash
  int64_t paused_until_us = 0;
};

struct OwnerState {
  int client = -1;
  uint32_t incarnation = 0;  // the client's when the owner appeared
};

struct PendingOp {
  int owner = -1;
  int lock = -1;  // as the operation names it (a group for multi-locks)
  bool acquire = false;
};

struct LockState {
  std::string name;
  int group = -1;        // a member's group lock ("<group>@<j>"), else itself
  bool fair = false;
  int server = -1;
  std::vector<int> holders;  // owners, server truth after the last script
  std::vector<int> line;     // fair: owners, head first
  uint64_t line_token = 0;   // the Event::line_token `line` was read from (0: none)
  int64_t expiry_server_ms = INT64_MIN;  // INT64_MIN: no lease known
  int64_t lease_ms = 0;
  int64_t last_server_ms = 0;
  int64_t last_true_us = 0;
  // Beliefs and waits on this lock as operations name it.
  std::vector<std::pair<int, int>> depth;  // (owner, believed hold count > 0)
  std::vector<int> waiting;                // owners with a pending acquire
  std::vector<int> releasing;              // owners with a pending unlock
};

int bucket(size_t n, int max) { return static_cast<int>(std::min<size_t>(n, static_cast<size_t>(max))); }

template <typename T>
void erase_one(std::vector<T>& v, const T& x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}
template <typename T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

struct CoverageObserver::State {
  bool with_rlock = false;
  bool with_fair = false;
  std::vector<ScriptKind> scripts;
  std::bitset<static_cast<size_t>(Fixed::Count)> fixed;
  std::bitset<kReplyItems> replies;
  std::bitset<kFaultItems> faults;
  std::bitset<kCoveredFaultCount> fault_kinds;  // by covered_index
  std::vector<uint64_t> tuples = std::vector<uint64_t>((uint64_t{1} << kTupleBits) / 64, 0);  // a bit per tuple

  std::vector<ClientState> clients;
  std::vector<OwnerState> owners;
  std::unordered_map<std::string, int, KeyHash> owner_ids;
  std::vector<LockState> locks;
  std::unordered_map<std::string, int, KeyHash> lock_ids;
  std::unordered_map<uint64_t, PendingOp> ops;  // never iterated for output
  std::vector<int> line_before;   // on_script's: the line before the script
  std::vector<uint8_t> in_line;   // on_script's: by owner, 1 while in the new line

  // The event being read, for the firsts.
  int64_t now_us = 0;
  int now_client = -1;
  struct First {
    uint8_t kind;    // 0 fixed, 1 reply, 2 fault, 3 abstract state
    uint32_t index;  // in its bitset
    int64_t true_us;
    int client;
  };
  std::vector<First> firsts;

  void hit(Fixed f) {
    const auto i = static_cast<size_t>(f);
    if (!fixed.test(i)) firsts.push_back(First{0, static_cast<uint32_t>(i), now_us, now_client});
    fixed.set(i);
  }

  ClientState& client(int c) {
    assert(c >= 0);
    if (static_cast<size_t>(c) >= clients.size()) clients.resize(static_cast<size_t>(c) + 1);
    return clients[static_cast<size_t>(c)];
  }
  int owner(const std::string& name, int c) {
    auto [it, fresh] = owner_ids.try_emplace(name, static_cast<int>(owners.size()));
    if (fresh) owners.push_back(OwnerState{c, c >= 0 ? client(c).incarnation : 0});
    if (owners[static_cast<size_t>(it->second)].client < 0 && c >= 0) {
      owners[static_cast<size_t>(it->second)] = OwnerState{c, client(c).incarnation};
    }
    return it->second;
  }
  int lock(const LockRef& ref) {
    auto [it, fresh] = lock_ids.try_emplace(ref.name(), static_cast<int>(locks.size()));
    const int id = it->second;  // `it` may not outlive the group's insertion below
    if (fresh) {
      locks.emplace_back();
      locks.back().name = ref.name();
      locks.back().group = id;
      if (ref.is_member()) {
        const int group = lock(LockRef(ref.group()));
        locks[static_cast<size_t>(id)].group = group;
      }
    }
    return id;
  }
  // The owner's client has crashed since the owner appeared.
  bool dead(int o) const {
    const OwnerState& os = owners[static_cast<size_t>(o)];
    if (os.client < 0 || static_cast<size_t>(os.client) >= clients.size()) return false;
    const ClientState& cs = clients[static_cast<size_t>(os.client)];
    return !cs.alive || cs.incarnation != os.incarnation;
  }
  bool paused(int o, int64_t now_us) const {
    const OwnerState& os = owners[static_cast<size_t>(o)];
    if (os.client < 0 || static_cast<size_t>(os.client) >= clients.size()) return false;
    return now_us < clients[static_cast<size_t>(os.client)].paused_until_us;
  }
  int depth_of(const LockState& l, int o) const {
    for (const auto& [who, d] : l.depth)
      if (who == o) return d;
    return 0;
  }
  void set_depth(LockState& l, int o, int d) {
    for (auto it = l.depth.begin(); it != l.depth.end(); ++it) {
      if (it->first != o) continue;
      if (d <= 0) {
        l.depth.erase(it);
      } else {
        it->second = d;
      }
      return;
    }
    if (d > 0) l.depth.emplace_back(o, d);
  }

  void fault_item(size_t kind, Situation s) {
    const size_t i = kind * static_cast<size_t>(Situation::Count) + static_cast<size_t>(s);
    if (!faults.test(i)) firsts.push_back(First{2, static_cast<uint32_t>(i), now_us, now_client});
    faults.set(i);
  }

  // A client fault: every situation of client c, `duration_ms` (pause,
  // partition) long.
  void client_fault(FaultKind fault, int c, int64_t duration_ms, int64_t now_us) {
    const std::optional<size_t> index = covered_index(fault);
    assert(index);
    const size_t kind = *index;
    fault_kinds.set(kind);
    if (c < 0) return;
    bool any = false;
    for (LockState& l : locks) {
      for (const auto& [o, d] : l.depth) {
        if (owners[static_cast<size_t>(o)].client != c || dead(o)) continue;
        any = true;
        fault_item(kind, Situation::Holding);
        if (duration_ms > 0 && l.expiry_server_ms != INT64_MIN) {
          const int64_t server_now_ms = l.last_server_ms + (now_us - l.last_true_us) / 1000;
          if (duration_ms > l.expiry_server_ms - server_now_ms) fault_item(kind, Situation::HoldingPastLease);
        }
      }
      for (int o : l.waiting) {
        if (owners[static_cast<size_t>(o)].client != c || dead(o)) continue;
        any = true;
        fault_item(kind, Situation::Waiting);
        // The head of the line of the lock (a fair lock is never a group).
        if (!l.line.empty() && l.line.front() == o) fault_item(kind, Situation::FirstInLine);
      }
      for (int o : l.releasing) {
        if (owners[static_cast<size_t>(o)].client != c || dead(o)) continue;
        any = true;
        fault_item(kind, Situation::Releasing);
      }
    }
    if (!any) fault_item(kind, Situation::Idle);
  }

  void server_fault(FaultKind fault, int s) {
    const std::optional<size_t> index = covered_index(fault);
    assert(index);
    const size_t kind = *index;
    fault_kinds.set(kind);
    bool any = false;
    for (const LockState& l : locks) {
      if (l.server != s) continue;
      if (!l.holders.empty()) {
        fault_item(kind, Situation::Held);
        any = true;
      }
      if (!l.line.empty()) {
        fault_item(kind, Situation::Line);
        any = true;
      }
    }
    if (!any) fault_item(kind, Situation::Free);
  }

  void crash(int c) {
    ClientState& cs = client(c);
    cs.alive = false;
    cs.incarnation++;
    for (LockState& l : locks) {
      auto gone = [&](int o) { return owners[static_cast<size_t>(o)].client == c; };
      l.depth.erase(std::remove_if(l.depth.begin(), l.depth.end(), [&](const auto& p) { return gone(p.first); }),
                    l.depth.end());
      l.waiting.erase(std::remove_if(l.waiting.begin(), l.waiting.end(), gone), l.waiting.end());
      l.releasing.erase(std::remove_if(l.releasing.begin(), l.releasing.end(), gone), l.releasing.end());
    }
    for (auto it = ops.begin(); it != ops.end();) {
      if (owners[static_cast<size_t>(it->second.owner)].client == c) {
        it = ops.erase(it);
      } else {
        ++it;
      }
    }
  }

  bool holding(int c) const {
    for (const LockState& l : locks)
      for (const auto& [o, d] : l.depth)
        if (owners[static_cast<size_t>(o)].client == c && !dead(o)) return true;
    return false;
  }

  void on_fault(const Event& e) {
    if (e.op == Op::Restart) {
      if (e.client >= 0) client(e.client).alive = true;
      return;
    }
    const std::optional<FaultKind> kind = fault_kind_of(e);
    if (!kind) return;
    switch (*kind) {
      case FaultKind::Crash:
        if (e.client >= 0 && holding(e.client)) hit(Fixed::PreCrashedHolder);
        client_fault(FaultKind::Crash, e.client, 0, e.true_us);
        if (e.client >= 0) crash(e.client);
        break;
      case FaultKind::Pause:
        client_fault(FaultKind::Pause, e.client, e.duration_ms, e.true_us);
        if (e.client >= 0) {
          ClientState& cs = client(e.client);
          cs.paused_until_us = std::max(cs.paused_until_us, e.true_us + e.duration_ms * 1000);
        }
        break;
      case FaultKind::ClientClockJump: client_fault(FaultKind::ClientClockJump, e.client, 0, e.true_us); break;
      case FaultKind::ServerClockJump: server_fault(FaultKind::ServerClockJump, e.server); break;
      case FaultKind::Partition: client_fault(FaultKind::Partition, e.client, e.duration_ms, e.true_us); break;
      case FaultKind::LostRequest:
      case FaultKind::LostReply:
      case FaultKind::LostMessage:
      case FaultKind::LostSubscribe: client_fault(*kind, e.client >= 0 ? e.client : e.target, 0, e.true_us); break;
      case FaultKind::RedisRestart:
        server_fault(FaultKind::RedisRestart, e.server);
        if (e.persistence != Persistence::Always) {
          for (LockState& l : locks) {
            if (l.server != e.server) continue;
            l.holders.clear();
            l.line.clear();
            l.line_token = 0;
            l.expiry_server_ms = INT64_MIN;
          }
        }
        break;
      case FaultKind::Failover: server_fault(FaultKind::Failover, e.server); break;
      case FaultKind::RequestTimeout:
      case FaultKind::ClientClockSkew:
      case FaultKind::ServerClockDrift:
      case FaultKind::SlowLink: break;  // no Fault event's kind
    }
  }

  void on_invoke(const Event& e) {
    if (e.client < 0 || e.op_id == 0) return;
    const bool acquire = e.op == Op::Lock || e.op == Op::TryLock;
    const bool release = e.op == Op::Unlock || e.op == Op::ForceUnlock;
    if (!acquire && !release) return;
    const int o = owner(e.owner.str(), e.client);
    const int l = lock(e.lock);
    ops[e.op_id] = PendingOp{o, l, acquire};
    LockState& ls = locks[static_cast<size_t>(l)];
    if (acquire) {
      if (!contains(ls.waiting, o)) ls.waiting.push_back(o);
    } else {
      if (!contains(ls.releasing, o)) ls.releasing.push_back(o);
      if (e.op == Op::Unlock) set_depth(ls, o, depth_of(ls, o) - 1);
    }
  }

  void on_completion(const Event& e) {
    if (e.kind == EventKind::Info && e.op == Op::HoldLost) {
      const auto o = owner_ids.find(e.owner.str());
      const auto l = lock_ids.find(e.lock.name());
      if (o != owner_ids.end() && l != lock_ids.end()) set_depth(locks[static_cast<size_t>(l->second)], o->second, 0);
      return;
    }
    auto it = ops.find(e.op_id);
    if (e.op_id == 0 || it == ops.end() || e.op == Op::AcquireFailed || e.op == Op::WatchdogStop) return;
    const PendingOp op = it->second;
    ops.erase(it);
    LockState& ls = locks[static_cast<size_t>(op.lock)];
    if (op.acquire) {
      erase_one(ls.waiting, op.owner);
      if (e.kind == EventKind::Ok && e.value == 1) {
        const int d = depth_of(ls, op.owner) + 1;
        set_depth(ls, op.owner, d);
        if (d == 2) hit(Fixed::Depth2);
        if (d >= 3) hit(Fixed::Depth3);
        if (d >= 2) hit(Fixed::PreNested);
      } else if (e.kind == EventKind::Fail) {
        hit(Fixed::PreGaveUp);
      }
    } else {
      erase_one(ls.releasing, op.owner);
    }
  }

  void on_deliver(const Event& e) {
    if (e.client < 0) return;
    for (const LockState& l : locks) {
      for (int o : l.waiting) {
        if (owners[static_cast<size_t>(o)].client == e.client && !dead(o)) {
          hit(Fixed::WakeupWaiter);
          return;
        }
      }
    }
    hit(Fixed::WakeupNoWaiter);
  }

  static ReplyClass reply_class(const EventReply& reply, bool acquire) {
    switch (reply.kind) {
      case EventReply::Kind::Nil: return ReplyClass::Nil;
      case EventReply::Kind::Error: return ReplyClass::Error;
      case EventReply::Kind::None:
      case EventReply::Kind::Other: return ReplyClass::Other;
      case EventReply::Kind::Integer:
        if (reply.integer == 0) return ReplyClass::Zero;
        if (reply.integer < 0) return ReplyClass::Negative;
        if (acquire) return ReplyClass::Ttl;
        return reply.integer == 1 ? ReplyClass::One : ReplyClass::Ttl;
    }
    return ReplyClass::Other;
  }

  void on_script(const Event& e) {
    const std::optional<ScriptKind> kind = script_from_name(e.script);
    if (!kind) return;
    const bool acquire = *kind == ScriptKind::RlockAcquire || *kind == ScriptKind::FairAcquire;
    const ReplyClass rc = reply_class(e.reply, acquire);
    const size_t reply_item = static_cast<size_t>(*kind) * kReplyClasses + static_cast<size_t>(rc);
    if (!replies.test(reply_item)) firsts.push_back(First{1, static_cast<uint32_t>(reply_item), now_us, now_client});
    replies.set(reply_item);
    if (rc == ReplyClass::Error) hit(Fixed::PreErrorReply);
    const bool fair = e.script.rfind("fair_", 0) == 0;
    const int l = lock(e.lock);
    LockState& ls = locks[static_cast<size_t>(l)];
    LockState& group = locks[static_cast<size_t>(ls.group)];
    ls.fair = ls.fair || fair;
    ls.server = e.server;
    const int me = e.owner.empty() ? -1 : owner(e.owner.str(), e.client);
    ls.holders.clear();
    for (const std::string& h : e.holders_after) ls.holders.push_back(owner(h, -1));
    // The fair line, read again only when its content changed (a script
    // event names its line's content by a token: sim/world.h, traces/event.h);
    // a waiter dropped that was neither the caller nor granted was purged.
    if (fair && e.line_known && (e.line_token.value == 0 || e.line_token.value != ls.line_token)) {
      ls.line_token = e.line_token.value;
      line_before.swap(ls.line);
      ls.line.clear();
      for (const LineEntry& w : e.line_after.entries()) ls.line.push_back(owner(w.owner, -1));
      in_line.resize(owners.size(), 0);
      for (int o : ls.line) in_line[static_cast<size_t>(o)] = 1;
      for (int o : line_before)
        if (o != me && in_line[static_cast<size_t>(o)] == 0) hit(Fixed::PrePurge);
      for (int o : ls.line) in_line[static_cast<size_t>(o)] = 0;
    }
    const bool release = *kind == ScriptKind::RlockRelease || *kind == ScriptKind::FairRelease ||
                         *kind == ScriptKind::SpinRelease || *kind == ScriptKind::FasterMultiRelease;
    const bool renew = *kind == ScriptKind::RlockRenew || *kind == ScriptKind::FasterMultiRenew;
    const bool granted_or_kept = (e.reply.is_nil() && (acquire || *kind == ScriptKind::FairTryOnce)) ||
                                 (renew && e.reply.is(1)) || (release && e.reply.is(0));
    if (ls.holders.empty()) {
      ls.expiry_server_ms = INT64_MIN;
    } else if (granted_or_kept && e.lease_ms > 0) {
      ls.expiry_server_ms = e.server_ms + e.lease_ms;
      ls.lease_ms = e.lease_ms;
    }
    ls.last_server_ms = e.server_ms;
    ls.last_true_us = e.true_us;
    // Preconditions.
    if (release && e.reply.is_nil()) hit(Fixed::PreReleaseByNonOwner);
    if (renew && e.reply.is(0)) hit(Fixed::PreRenewalRefused);
    size_t waiters = 0;
    for (int o : group.waiting)
      if (!contains(ls.holders, o) && !dead(o)) ++waiters;
    if (!ls.holders.empty() && waiters > 0) hit(Fixed::PreContended);
    if (ls.holders.empty() && waiters > 0) hit(Fixed::PreFreeWithWaiters);
    size_t believers = 0;
    int max_depth = 0;
    for (const auto& [o, d] : group.depth) {
      if (dead(o)) continue;
      ++believers;
      max_depth = std::max(max_depth, d);
      if (ls.group == l && !contains(ls.holders, o)) hit(Fixed::PreExpiredWhileBelieved);
    }
    // A grant leaves the grantee out of the line: anyone still in it waits.
    if (fair && e.line_known && e.reply.is_nil() && (acquire || *kind == ScriptKind::FairTryOnce)) {
      for (int o : ls.line)
        if (o != me) hit(Fixed::PreGrantWithLine);
    }
    // Components.
    const size_t holders = ls.holders.size();
    if (holders == 0) hit(Fixed::Holders0);
    if (holders == 1) hit(Fixed::Holders1);
    if (holders >= 2) hit(Fixed::Holders2);
    if (believers >= 2) hit(Fixed::Believers2);
    if (waiters == 1) hit(Fixed::Waiters1);
    if (waiters == 2) hit(Fixed::Waiters2);
    if (waiters >= 3) hit(Fixed::Waiters3);
    int head = 0;  // none, live, crashed, paused, gone
    if (ls.fair) {
      const size_t q = ls.line.size();
      if (q == 1) hit(Fixed::Line1);
      if (q == 2) hit(Fixed::Line2);
      if (q >= 3) hit(Fixed::Line3);
      if (q > 0) {
        const int h = ls.line.front();
        if (dead(h)) {
          head = 2;
          hit(Fixed::HeadCrashed);
        } else if (paused(h, e.true_us)) {
          head = 3;
          hit(Fixed::HeadPaused);
        } else if (!contains(group.waiting, h)) {
          head = 4;
          hit(Fixed::HeadGone);
        } else {
          head = 1;
          hit(Fixed::HeadLive);
        }
      }
    }
    int holder = 0;  // none, live, crashed, paused
    int lease = 0;   // none, fresh, mid, near
    if (holders > 0) {
      const int h = ls.holders.front();
      holder = dead(h) ? 2 : paused(h, e.true_us) ? 3 : 1;
      if (holder == 2) hit(Fixed::HolderCrashed);
      if (holder == 3) hit(Fixed::HolderPaused);
      if (ls.expiry_server_ms != INT64_MIN && ls.lease_ms > 0) {
        const int64_t left = ls.expiry_server_ms - e.server_ms;
        lease = 3 * left > 2 * ls.lease_ms ? 1 : 3 * left > ls.lease_ms ? 2 : 3;
        if (lease == 3) hit(Fixed::LeaseNear);
      }
    }
    uint32_t t = ls.fair ? 1u : 0u;
    t = t << 2 | static_cast<uint32_t>(bucket(holders, 2));
    t = t << 2 | static_cast<uint32_t>(std::min(max_depth, 3));
    t = t << 2 | static_cast<uint32_t>(bucket(believers, 2));
    t = t << 2 | static_cast<uint32_t>(bucket(waiters, 3));
    t = t << 2 | static_cast<uint32_t>(ls.fair ? bucket(ls.line.size(), 3) : 0);
    t = t << 3 | static_cast<uint32_t>(head);
    t = t << 2 | static_cast<uint32_t>(holder);
    t = t << 2 | static_cast<uint32_t>(lease);
    assert(t < (uint32_t{1} << kTupleBits));
    if ((tuples[t / 64] >> (t % 64) & 1) == 0) firsts.push_back(First{3, t, now_us, now_client});
    tuples[t / 64] |= uint64_t{1} << (t % 64);
  }

  static std::string tuple_name(uint32_t t) {
    static const char* kHead[] = {"none", "live", "crashed", "paused", "gone"};
    static const char* kHolder[] = {"none", "live", "crashed", "paused"};
    static const char* kLease[] = {"none", "fresh", "mid", "near"};
    static const char* kCount[] = {"0", "1", "2", "3+"};
    static const char* kCount2[] = {"0", "1", "2+"};
    const uint32_t lease = t & 3, holder = t >> 2 & 3, head = t >> 4 & 7, line = t >> 7 & 3, waiters = t >> 9 & 3,
                   believers = t >> 11 & 3, depth = t >> 13 & 3, holders = t >> 15 & 3, fair = t >> 17 & 1;
    std::string s = fair != 0 ? "fair" : "rlock";
    s += std::string(" holders=") + kCount2[holders] + " depth=" + kCount[depth] + " believers=" + kCount2[believers] +
         " waiters=" + kCount[waiters];
    if (fair != 0) s += std::string(" line=") + kCount[line] + " head=" + kHead[head];
    s += std::string(" holder=") + kHolder[holder] + " lease=" + kLease[lease];
    return s;
  }
};

namespace {

// The words for a fault kind or situation named `name` in `names`.
template <size_t N>
const char* words_of(const std::string& name, const std::array<const char*, N>& names,
                     const std::array<const char*, N>& words) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return words[i];
  return nullptr;
}

}  // namespace

std::string describe_coverage_item(const std::string& item) {
  static const std::map<std::string, std::string> kFixedWords = {
      {"state/holders=0", "a script left the lock free"},
      {"state/holders=1", "a script left the lock held"},
      {"state/holders=2+", "the lock hash had two owners (a violation)"},
      {"state/depth=2", "an owner held a lock twice (reentrant)"},
      {"state/depth=3+", "an owner held a lock three times or more"},
      {"state/believers=2+", "two clients believed they held one lock"},
      {"state/waiters=1", "one client waited for a lock"},
      {"state/waiters=2", "two clients waited for one lock"},
      {"state/waiters=3+", "three or more clients waited for one lock"},
      {"state/line=1", "a fair line of one waiter"},
      {"state/line=2", "a fair line of two waiters"},
      {"state/line=3+", "a fair line of three or more waiters"},
      {"state/head=live", "a fair line headed by a live waiter"},
      {"state/head=crashed", "a fair line headed by a waiter whose client crashed"},
      {"state/head=paused", "a fair line headed by a paused waiter"},
      {"state/head=gone", "a fair line headed by an owner that no longer waits"},
      {"state/holder=crashed", "a lock still held by a crashed client"},
      {"state/holder=paused", "a lock held by a paused client"},
      {"state/lease=near", "a script ran on a lock with under a third of its lease left"},
      {"state/wakeup=waiter", "a wake-up message reached a waiting client"},
      {"state/wakeup=no_waiter", "a wake-up message reached a client that waited for nothing"},
      {"pre/mutual_exclusion:contended", "a lock was held while others waited for it"},
      {"pre/mutual_exclusion:expired_while_believed",
       "the server's holders left out a client that still believed it held the lock"},
      {"pre/fifo_fairness:grant_with_line", "a fair lock was granted while others stood in its line"},
      {"pre/fifo_fairness:purge", "a fair script dropped a waiter from the line (stale)"},
      {"pre/watchdog_expiry:crashed_holder", "a client crashed while it held a lock"},
      {"pre/watchdog_expiry:renewal_refused", "a watchdog renewal was refused"},
      {"pre/liveness:free_with_waiters", "a script left a lock free while clients waited for it"},
      {"pre/liveness:acquire_gave_up", "an acquire gave up"},
      {"pre/reentrancy:nested", "a nested acquire succeeded"},
      {"pre/reentrancy:release_by_non_owner", "a release by a non-owner was refused"},
      {"pre/script_error:error_reply", "a script answered an error"},
  };
  if (auto it = kFixedWords.find(item); it != kFixedWords.end()) return it->second;
  const std::string_view category = coverage_category(item);
  const std::string rest = item.substr(std::min(item.size(), category.size() + 1));
  if (category == "fault") {
    const size_t colon = rest.find(':');
    if (colon == std::string::npos) return "";
    const char* f = words_of(rest.substr(0, colon), kFaultNames, kFaultWords);
    const char* w = words_of(rest.substr(colon + 1), kSituationNames, kSituationWords);
    return f != nullptr && w != nullptr ? std::string(f) + " " + w : "";
  }
  if (category == "reply") {
    const size_t eq = rest.find('=');
    if (eq == std::string::npos) return "";
    return rest.substr(0, eq) + " answered " + (rest.substr(eq + 1) == "ttl" ? "a wait (ttl)" : rest.substr(eq + 1));
  }
  if (category == "script") {
    const size_t colon = rest.find(':');
    if (colon == std::string::npos) return "";
    const std::string script = rest.substr(0, colon);
    if (script.size() > 4 && script.substr(script.size() - 4) == ".lua") return "line " + rest.substr(colon + 1) + " of " + script;
    if (const std::optional<ScriptBranch> b = script_branch_from_name(rest)) return script_branch_words(*b);
    return "";
  }
  return "";
}

CoverageObserver::CoverageObserver(ScenarioLockKind lock_kind) : state_(std::make_unique<State>()) {
  state_->scripts = lock_kind_scripts(lock_kind);
  state_->with_fair = has_fair_locks(lock_kind);
  state_->with_rlock = has_reentrant_locks(lock_kind);
}

CoverageObserver::~CoverageObserver() = default;

void CoverageObserver::on_event(const Event& e) {
  State& s = *state_;
  s.now_us = e.true_us;
  s.now_client = e.client >= 0 ? e.client : (e.kind == EventKind::Fault && e.server < 0 ? e.target : -1);
  switch (e.kind) {
    case EventKind::Invoke: s.on_invoke(e); break;
    case EventKind::Ok:
    case EventKind::Fail:
    case EventKind::Info: s.on_completion(e); break;
    case EventKind::Script: s.on_script(e); break;
    case EventKind::Deliver: s.on_deliver(e); break;
    case EventKind::Fault: s.on_fault(e); break;
    case EventKind::Verdict: break;
  }
}

namespace {

std::string reply_item_name(size_t i) {
  return "reply/" + std::string(script_name(static_cast<ScriptKind>(i / kReplyClasses))) + "=" +
         kReplyClassNames[i % kReplyClasses];
}

std::string fault_item_name(size_t i) {
  const size_t n = static_cast<size_t>(Situation::Count);
  return std::string("fault/") + kFaultNames[i / n] + ":" + kSituationNames[i % n];
}

}  // namespace

RunCoverage CoverageObserver::result() const {
  const State& s = *state_;
  RunCoverage r;
  for (size_t i = 0; i < kFixed.size(); ++i) {
    const FixedItem& f = kFixed[i];
    if (s.fixed.test(i)) r.items.emplace_back(f.name);
    if (!f.violation && (!f.fair || s.with_fair)) r.universe.emplace_back(f.name);
  }
  for (size_t i = 0; i < kReplyItems; ++i)
    if (s.replies.test(i)) r.items.push_back(reply_item_name(i));
  for (ScriptKind kind : s.scripts) {
    for (ReplyClass c : expected_replies(kind)) {
      r.universe.push_back(reply_item_name(static_cast<size_t>(kind) * kReplyClasses + static_cast<size_t>(c)));
    }
  }
  for (size_t k = 0; k < kCoveredFaultCount; ++k) {
    const std::string prefix = std::string("fault/") + kFaultNames[k] + ":";
    for (size_t sit = 0; sit < static_cast<size_t>(Situation::Count); ++sit) {
      if (s.faults.test(k * static_cast<size_t>(Situation::Count) + sit)) {
        r.items.push_back(fault_item_name(k * static_cast<size_t>(Situation::Count) + sit));
      }
    }
    if (!s.fault_kinds.test(k)) continue;
    for (Situation sit : fault_universe(kCoveredFaults[k])) {
      if ((sit == Situation::FirstInLine || sit == Situation::Line) && !s.with_fair) continue;
      r.universe.push_back(prefix + kSituationNames[static_cast<size_t>(sit)]);
    }
  }
  for (size_t w = 0; w < s.tuples.size(); ++w) {
    for (uint64_t bits = s.tuples[w]; bits != 0; bits &= bits - 1) {
      r.states.push_back(State::tuple_name(static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)))));
    }
  }
  for (const State::First& f : s.firsts) {
    std::string name;
    switch (f.kind) {
      case 0: name = kFixed[f.index].name; break;
      case 1: name = reply_item_name(f.index); break;
      case 2: name = fault_item_name(f.index); break;
      default: name = State::tuple_name(f.index); break;
    }
    r.firsts.push_back(CoverageFirst{std::move(name), f.true_us, f.client});
  }
  r.normalise();
  return r;
}

}  // namespace locksim
