// ChainMarks: the states a worker's run-ons passed (the continuations of
// search/explore.cc: a replay runs on past the state it was for, through
// transitions that meet no choice), each with the depth it was passed at
// and the depth of the frontier node that holds the run-on. A run-on that
// reaches a state another one passed stops there when the other's state
// will be merged first: the other passed it at a lower depth, or at the
// same depth from a node at least as deep (breadth first, the frontier
// keeps each level's order, and a deeper node's first children are merged
// before those of the nodes merged after it). Its work past that state
// would be thrown away. Costs only: the states, counts and
// counterexamples the search finds do not depend on these marks. Depth
// first, the marks are those of the chunk being expanded only (clear()).
//
// Open addressing with linear probing, 16 bytes a slot, at most half full
// (depths below 2^32: the explorer's depth bound is an int;
// search/zeroed_slots.h).
// Marks at the depth of the chunk being expanded or above are stale (their
// states are merged by now, or never will be from that run-on): they count
// as absent and are dropped when the table is rebuilt. Not thread-safe:
// each worker has its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "search/zeroed_slots.h"

namespace locksim {

class ChainMarks {
 public:
  ChainMarks() : slots_(kInitialSlots) {}

  // Memory held (the explorer counts it with the visited set's).
  size_t bytes() const { return slots_.bytes(); }
  // A new chunk of a breadth-first search, whose shallowest node is at
  // `depth`.
  void new_chunk(uint64_t depth) { stale_through_ = depth; }
  // Every mark dropped (depth first, where a state's first merge is not
  // foreseen across chunks: a run-on stops only at the states the others
  // of its chunk passed).
  void clear() {
    if (used_ == 0) return;
    slots_.clear();
    used_ = 0;
  }

  // Starts loading the slot where `digest` would be (a cache miss, for a
  // table much larger than the cache) while the caller does other work.
  void prefetch(uint64_t digest) const {
    if (digest == 0) digest = 1;
    __builtin_prefetch(&slots_[first_slot_hash(digest) & (slots_.size() - 1)]);
  }

  // A run-on held by a frontier node at `holder_depth` reached the state
  // `digest` at `depth`: true when it should stop there (another run-on's
  // state is merged first); otherwise the state is marked as this one's.
  bool stop_at(uint64_t digest, uint64_t depth, uint64_t holder_depth) {
    if (digest == 0) digest = 1;
    Slot* slot = find(digest);
    if (slot->digest == digest && slot->depth > stale_through_) {
      if (slot->depth < depth || (slot->depth == depth && slot->holder_depth >= holder_depth)) return true;
    } else if (slot->digest != digest) {
      if ((used_ + 1) * 2 > slots_.size()) {
        rebuild();
        slot = find(digest);
      }
      ++used_;
    }
    *slot = Slot{digest, static_cast<uint32_t>(depth), static_cast<uint32_t>(holder_depth)};
    return false;
  }

 private:
  static constexpr size_t kInitialSlots = 1024;  // a power of two
  struct Slot {
    uint64_t digest = 0;  // 0: empty
    uint32_t depth = 0;
    uint32_t holder_depth = 0;
  };

  // The slot holding `digest`, or the empty one where it would go.
  Slot* find(uint64_t digest) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = first_slot_hash(digest) & mask;; i = (i + 1) & mask) {
      if (slots_[i].digest == digest || slots_[i].digest == 0) return &slots_[i];
    }
  }
  // Drops the stale marks; doubles the table if the live ones fill a
  // quarter. A table that keeps its size is cleared in place: a new one
  // would be fresh pages, each faulted in (a fifth of the rlock search's
  // page faults were these tables' copies).
  void rebuild() {
    size_t live = 0;
    for (const Slot& s : slots_) live += s.digest != 0 && s.depth > stale_through_ ? 1 : 0;
    std::vector<Slot> kept;
    kept.reserve(live);
    for (const Slot& s : slots_) {
      if (s.digest != 0 && s.depth > stale_through_) kept.push_back(s);
    }
    if (live * 4 > slots_.size()) {
      slots_ = ZeroedSlots<Slot>(slots_.size() * 2);
    } else {
      slots_.clear();
    }
    used_ = 0;
    for (const Slot& s : kept) {
      *find(s.digest) = s;
      ++used_;
    }
  }

  ZeroedSlots<Slot> slots_;
  size_t used_ = 0;             // slots taken, stale ones included
  uint64_t stale_through_ = 0;  // marks at this depth or above are stale
};

}  // namespace locksim
