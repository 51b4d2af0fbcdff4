// Watchdog: keeps a client's default-lease holds alive (lock-semantics.md
// section 2). One entry per (lock, owner), shared by that owner's reentrant
// holds: it counts the owner's holds and every lease/3 ms
// (ClientMutant::WatchdogPeriodLease: every lease) runs `renew` with the
// owner's own id. renew 1 -> schedule the next; 0 -> stop, hold_lost for the
// owner; timeout (after the client's retries) or error -> stop,
// watchdog_stop. Each entry is cancelled on its own: when its hold count
// reaches 0, when the owner's release answers nil, and (all entries of the
// lock) on force_unlock. Replies to a renewal sent before the entry was
// cancelled are ignored.
//
// ClientMutant::WatchdogFirstThreadEntry keeps the older design: ONE entry
// per (client, lock), shared by all owners (tasks) of the client, renewed
// with the id of the first owner that armed it among those still in it
// (insertion order). When that renewal is refused (0) the whole entry stops:
// hold_lost is emitted for the refused owner only (its hold really is gone),
// and every other owner of the entry gets a watchdog_stop notice naming the
// lock ("renewal by <first> answered 0; <lock> no longer renewed") — the
// client does not tell those owners they lost anything, since they may well
// hold the lock; it just stops renewing it, so their lock expires a lease
// later. Timeout or error: watchdog_stop for every owner of the entry.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "impl/client_config.h"
#include "impl/client_env.h"
#include "impl/digest_names.h"
#include "redis/state_digest.h"

namespace locksim {

class Watchdog {
 public:
  Watchdog(ClientEnv& env, const ClientConfig& config) : env_(env), config_(config) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // A hold without explicit lease succeeded: count it; start renewing if new.
  // `token` marks the hold on the server (ScriptParams::token): renewals
  // send the token of the owner they renew for.
  void arm(const LockSpec& lock, const std::string& owner, const std::string& token);
  // One unlock of `owner` completed: one hold fewer (entry cancelled at 0).
  void release_one(const std::string& lock, const std::string& owner);
  // `owner` holds `lock` no more (release answered 1 or nil).
  void drop_owner(const std::string& lock, const std::string& owner);
  // Stops every entry of `lock`, whoever holds it (force_unlock).
  void cancel(const std::string& lock);

  // Some entry renews `lock` / renews it for `owner`.
  bool running(const std::string& lock) const;
  bool running(const std::string& lock, const std::string& owner) const;
  int64_t hold_count(const std::string& lock, const std::string& owner) const;
  // The owner id the next renewal of (lock, owner)'s entry is sent with, or
  // "" when no entry renews it.
  std::string renewing_owner(const std::string& lock, const std::string& owner) const;
  int64_t period_ms() const;

  // The explorer's view (impl/digest_names.h): every entry, its holds, its
  // timer by rank and the renewal in flight (by op rank, with its retry count).
  void digest(const DigestNames& names, StateDigest* out) const;
  // Appends the op ids of the renewals in flight (unordered).
  void renewals_in_flight(std::vector<uint64_t>* out) const;

 private:
  // (lock, owner); the shared entry of the first-thread mutant has owner "".
  using Key = std::pair<std::string, std::string>;
  struct Entry {
    LockSpec lock;
    std::vector<std::pair<std::string, int64_t>> holds;  // owner -> count, insertion order
    std::map<std::string, std::string> tokens;           // owner -> its hold's token
    ClientEnv::TimerId timer = 0;
    uint64_t generation = 0;
    uint64_t renew_op_id = 0;  // the renewal in flight (0: none)
    int renew_attempt = 0;     // its retries sent so far
    std::vector<uint64_t> renew_value_op_ids;  // a faster multi-lock's: one op id per value
  };
  bool shared_entries() const;
  Key key_of(const std::string& lock, const std::string& owner) const;
  const Entry* find(const std::string& lock, const std::string& owner) const;
  void forget(const Key& key, const std::string& owner, bool all_holds);
  void schedule(const Key& key, Entry& entry);
  void renew(const Key& key, uint64_t generation, uint64_t op_id, int attempt);
  void stop(const Key& key);
  void emit_notice(const Entry& entry, Op op, const std::string& owner,
                   const std::string& detail);

  ClientEnv& env_;
  const ClientConfig& config_;
  std::map<Key, Entry> entries_;
  uint64_t next_generation_ = 1;
};

}  // namespace locksim
