// LeaseBook: the server's truth about each lock key's expiry, read once from
// a history for every consumer: the watchdog-expiry checker judges leases by
// it and the timelines (properties/history_recording.h) draw them from it.
//
// Per (server, lock) it keeps the key's expected expiry, in server ms: the
// last successful acquire (a granting script answered nil with the owner
// among the holders after it), renewal (rlock_renew answered 1) or partial
// release (a release answered 0 on its first execution: a retry with the
// same request id is answered by the release latch and changes nothing) sets
// it to server_ms + lease_ms. A script that leaves the key without holders
// deletes the entry; a server restart or failover forgets that server's
// entries (the key may be gone or older).
// Per script, after on_event(), in the order the checks need them:
//  - expired(): the entry the script found past its expiry (server_ms >
//    expire_at_ms): the key should have been gone. The entry is dropped then,
//    unless the script grants the lock anew.
//  - pttl_contradicted(): a refused rlock_acquire answered a remaining time
//    (PTTL) shorter than the entry's: the entry as it was; the server's answer
//    then becomes the expiry (one such report per refresh).
//  - refreshed(): the entry the script set, if it set one.
// Memory: one entry per (server, lock) key held; the release request ids of
// the last 4 default leases of true time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "redis/key_hash.h"
#include "properties/event_facts.h"
#include "properties/group_hash_expiry.h"
#include "properties/lock_table.h"
#include "traces/event.h"

namespace locksim {

class LeaseBook {
 public:
  struct KeyLease {
    int64_t expire_at_ms = 0;  // server ms after which the key must be gone
    uint64_t refresh_event = 0;
    int64_t refresh_us = 0;
    std::string refreshed_by;
    int64_t refresh_server_ms = 0;  // the server clock at that refresh
    int64_t lease_ms = 0;           // the lease it set
  };

  // default_lease_ms: how long release request ids are remembered (4 leases).
  explicit LeaseBook(int64_t default_lease_ms) : horizon_us_(4 * default_lease_ms * 1000) {}

  // `lock` is the event's lock as an id of the caller's LockTable.
  void on_event(const Event& e, const EventFacts& facts, LockId lock);

  const std::optional<KeyLease>& expired() const { return expired_; }
  const std::optional<KeyLease>& pttl_contradicted() const { return pttl_contradicted_; }
  // The entry the script set (a grant, a renewal or a partial release), or null.
  const KeyLease* refreshed() const { return refreshed_; }
  // Whether the script deleted the entry (no holders after it).
  bool deleted() const { return deleted_; }
  // Whether the script was a release retried with a request id seen before.
  bool latch_replay() const { return latch_replay_; }
  // A release answered 0 (still held) on its first execution.
  bool partial_release() const { return partial_release_; }
  // rlock_renew answered 1.
  bool renewed() const { return renewed_; }
  // A granting script answered nil with its owner among the holders.
  bool granted() const { return granted_; }
  // After a restart or failover: the server whose entries were forgotten, else -1.
  int reset_server() const { return reset_server_; }
  const KeyLease* find(int server, LockId lock) const {
    auto it = keys_.find(server_lock_key(server, lock));
    return it == keys_.end() ? nullptr : &it->second;
  }

 private:
  void on_script(const Event& e, const EventFacts& facts, LockId lock);
  void prune(int64_t now_us);

  int64_t horizon_us_;
  // Looked up and pruned, never iterated for a report: unordered.
  std::unordered_map<uint64_t, KeyLease> keys_;                     // server_lock_key(server, lock)
  GroupHashExpiry group_expiry_;  // a faster multi-lock's values: their hash's expiry
  std::unordered_map<std::string, int64_t, KeyHash> release_ids_;  // release request id -> first seen (true us)
  int64_t last_prune_us_ = 0;
  std::optional<KeyLease> expired_;
  std::optional<KeyLease> pttl_contradicted_;
  const KeyLease* refreshed_ = nullptr;
  bool deleted_ = false;
  bool latch_replay_ = false;
  bool partial_release_ = false;
  bool renewed_ = false;
  bool granted_ = false;
  int reset_server_ = -1;
};

}  // namespace locksim
