// LockTable: a small dense id (0, 1, 2, ...) for each lock name a history
// names, in order of first appearance. The fair-line mirror interns each
// event's lock once (HistoryContext::lock_id()), so the checkers keep their
// per-lock state in vectors indexed by id instead of hashing the name again
// in every map on every event. Ids are never reused or forgotten; memory:
// one entry per distinct lock name.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "redis/key_hash.h"

namespace locksim {

using LockId = uint32_t;
inline constexpr LockId kNoLock = UINT32_MAX;  // a name never seen

class LockTable {
 public:
  // The id of `name`, given a new one at its first appearance (an event
  // without a lock has the id of "").
  LockId intern(const std::string& name) {
    // Histories name a few locks: comparing with each beats hashing.
    if (names_.size() <= kScanned) {
      // Names of one history differ mostly in their last bytes ("lsim:L0",
      // "lsim:L1"): the last byte rules most of them out before a memcmp.
      for (size_t id = 0; id < names_.size(); ++id) {
        const std::string& known = *names_[id];
        if (known.size() == name.size() && (name.empty() || known.back() == name.back()) && known == name)
          return static_cast<LockId>(id);
      }
    }
    auto [it, added] = ids_.try_emplace(name, static_cast<LockId>(names_.size()));
    if (added) names_.push_back(&it->first);
    return it->second;
  }
  // The id of `name` if it appeared, else kNoLock.
  LockId find(const std::string& name) const {
    auto it = ids_.find(name);
    return it == ids_.end() ? kNoLock : it->second;
  }
  const std::string& name(LockId id) const {
    assert(id < names_.size());
    return *names_[id];
  }
  size_t size() const { return names_.size(); }

 private:
  static constexpr size_t kScanned = 8;
  std::unordered_map<std::string, LockId, KeyHash> ids_;
  std::vector<const std::string*> names_;  // id -> its key in ids_ (nodes stay put)
};

// A (server, lock) pair as one integer key, for per-server per-lock maps.
inline uint64_t server_lock_key(int server, LockId lock) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(server)) << 32) | lock;
}
inline int server_of_key(uint64_t key) { return static_cast<int32_t>(static_cast<uint32_t>(key >> 32)); }

// Per-lock state indexed by LockId, created on first use. Each entry is
// held by pointer, so references to it stay valid as the table grows.
template <typename T>
class PerLockId {
 public:
  T& operator[](LockId id) {
    assert(id != kNoLock);
    if (id >= slots_.size()) slots_.resize(id + 1);
    if (!slots_[id]) slots_[id] = std::make_unique<T>();
    return *slots_[id];
  }
  // nullptr when nothing was stored for `id`.
  const T* find(LockId id) const { return id < slots_.size() ? slots_[id].get() : nullptr; }
  T* find(LockId id) { return id < slots_.size() ? slots_[id].get() : nullptr; }
  template <typename F>
  void for_each(F&& f) {
    for (auto& slot : slots_)
      if (slot) f(*slot);
  }
  void clear() { slots_.clear(); }

 private:
  std::vector<std::unique_ptr<T>> slots_;
};

}  // namespace locksim
