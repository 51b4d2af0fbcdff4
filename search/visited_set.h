// VisitedSet: the explorer's set of state fingerprints (64-bit digests,
// redis/state_digest.h): open addressing with linear probing, 8 bytes a
// slot (search/zeroed_slots.h), kept at most half full (doubled when it
// would not be). A digest of 0 is stored as 1 (0 marks an empty slot).
// One thread changes it; others may call contains() and prefetch() at the
// same time as long as no insert() grows it (insert_grows()): a slot is
// read and written whole (relaxed atomics), so they see each digest either
// in or not yet.
#pragma once

#include <cstddef>
#include <cstdint>

#include "search/zeroed_slots.h"

namespace locksim {

class VisitedSet {
 public:
  VisitedSet() : slots_(kInitialSlots) {}

  // True if `digest` was not in the set (and now is).
  bool insert(uint64_t digest) {
    if (digest == 0) digest = 1;
    if (insert_grows()) grow();
    return place(slots_, digest);
  }
  bool contains(uint64_t digest) const {
    if (digest == 0) digest = 1;
    const size_t mask = slots_.size() - 1;
    for (size_t i = first_slot_hash(digest) & mask;; i = (i + 1) & mask) {
      const uint64_t slot = __atomic_load_n(&slots_[i], __ATOMIC_RELAXED);
      if (slot == digest) return true;
      if (slot == 0) return false;
    }
  }
  // Whether the next insert() of a new digest would grow the set.
  bool insert_grows() const { return (size_ + 1) * 2 > slots_.size(); }
  // Starts loading the slot where `digest` would be found (a cache miss,
  // for a set much larger than the cache) while the caller does other work.
  void prefetch(uint64_t digest) const {
    if (digest == 0) digest = 1;
    __builtin_prefetch(&slots_[first_slot_hash(digest) & (slots_.size() - 1)]);
  }
  size_t size() const { return size_; }
  size_t bytes() const { return slots_.size() * sizeof(uint64_t); }
  // What the set will take after its next growth (for memory limits).
  size_t bytes_after_growth() const { return (size_ + 1) * 2 > slots_.size() ? bytes() * 2 : bytes(); }

 private:
  static constexpr size_t kInitialSlots = 1024;  // a power of two

  bool place(ZeroedSlots<uint64_t>& slots, uint64_t digest) {
    const size_t mask = slots.size() - 1;
    for (size_t i = first_slot_hash(digest) & mask;; i = (i + 1) & mask) {
      if (slots[i] == digest) return false;
      if (slots[i] == 0) {
        __atomic_store_n(&slots[i], digest, __ATOMIC_RELAXED);
        if (&slots == &slots_) ++size_;
        return true;
      }
    }
  }
  void grow() {
    ZeroedSlots<uint64_t> bigger(slots_.size() * 2);
    for (const uint64_t d : slots_) {
      if (d != 0) place(bigger, d);
    }
    slots_.swap(bigger);
  }

  ZeroedSlots<uint64_t> slots_;
  size_t size_ = 0;
};

}  // namespace locksim
