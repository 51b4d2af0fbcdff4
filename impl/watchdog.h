// Watchdog: keeps a client's default-lease holds alive (lock-semantics.md
// section 2). One entry per (client, lock), shared by reentrant holds of that
// client's owners: the entry counts holds per owner; every lease/3 ms
// (ClientMutant::WatchdogPeriodLease: every lease) it runs `renew` for the
// first owner. renew 1 -> schedule the next; 0 -> stop, hold_lost for every
// owner of the entry; timeout (after the client's retries) or error -> stop,
// watchdog_stop. The entry is cancelled when its hold count reaches 0 and
// when an owner's release answers nil. Replies to a renewal sent before the
// entry was cancelled are ignored.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "impl/client_config.h"
#include "impl/client_env.h"

namespace locksim {

class Watchdog {
 public:
  Watchdog(ClientEnv& env, const ClientConfig& config) : env_(env), config_(config) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // A hold without explicit lease succeeded: count it; start renewing if new.
  void arm(const LockRef& lock, const std::string& owner);
  // One unlock of `owner` completed: one hold fewer (entry cancelled at 0).
  void release_one(const std::string& lock, const std::string& owner);
  // `owner` holds `lock` no more (release answered 1 or nil).
  void drop_owner(const std::string& lock, const std::string& owner);

  // Stops the entry of `lock` whoever holds it (force_unlock).
  void cancel(const std::string& lock) {
    if (entries_.count(lock) != 0) stop(lock);
  }

  bool running(const std::string& lock) const { return entries_.count(lock) != 0; }
  int64_t hold_count(const std::string& lock, const std::string& owner) const;
  int64_t period_ms() const;

 private:
  struct Entry {
    LockRef lock;
    std::map<std::string, int64_t> holds;  // owner -> count, ordered
    ClientEnv::TimerId timer = 0;
    uint64_t generation = 0;
  };
  void schedule(Entry& entry);
  void renew(const std::string& lock, uint64_t generation, uint64_t op_id, int attempt);
  void stop(const std::string& lock);
  void emit_notice(const Entry& entry, const std::string& op, const std::string& owner,
                   const std::string& detail);

  ClientEnv& env_;
  const ClientConfig& config_;
  std::map<std::string, Entry> entries_;
  uint64_t next_generation_ = 1;
};

}  // namespace locksim
