// EventQueue: the simulator's agenda. Actions run in true-time order; actions
// at the same instant run in the order they were scheduled (a sequence
// number is the tie-breaker, never a pointer or a hash). Bounded: pushing
// beyond kMaxItems is an invariant violation (a runaway simulation).
//
// Each action may carry a Guard (a client and its incarnation) that the
// World checks before running it; the queue only stores it. Actions live in
// a slot table that never moves them while queued; the binary heap orders
// small (time, sequence, slot) entries, so scheduling and popping copy no
// callable and allocate nothing once the table has grown.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/action.h"

namespace locksim {

// The (client, incarnation) an action belongs to; client -1: a world action.
struct QueueGuard {
  int client = -1;
  uint64_t incarnation = 0;
};

class EventQueue {
 public:
  static constexpr size_t kMaxItems = size_t{1} << 22;
  using Guard = QueueGuard;

  struct Item {
    int64_t at_us = 0;
    uint64_t seq = 0;
    Guard guard;
    Action action;
  };

  void push(int64_t at_us, Action action, Guard guard = Guard{}) {
    assert(heap_.size() < kMaxItems && "event queue bound exceeded");
    assert(action && "scheduling an empty action");
    uint32_t slot = 0;
    if (free_slots_.empty()) {
      slot = static_cast<uint32_t>(slots_.size());
      slots_.push_back(Slot{std::move(action), guard});
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
      slots_[slot].action = std::move(action);
      slots_[slot].guard = guard;
    }
    heap_.push_back(Entry{at_us, next_seq_++, slot});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  int64_t next_at_us() const {
    assert(!heap_.empty());
    return heap_.front().at_us;
  }

  Item pop() {
    assert(!heap_.empty());
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Entry top = heap_.back();
    heap_.pop_back();
    Slot& slot = slots_[top.slot];
    Item item{top.at_us, top.seq, slot.guard, std::move(slot.action)};
    free_slots_.push_back(top.slot);
    assert(free_slots_.size() + heap_.size() == slots_.size());
    return item;
  }

 private:
  struct Entry {
    int64_t at_us = 0;
    uint64_t seq = 0;
    uint32_t slot = 0;
  };
  struct Slot {
    Action action;  // empty while the slot is free
    Guard guard;
  };
  static bool later(const Entry& a, const Entry& b) {
    if (a.at_us != b.at_us) return a.at_us > b.at_us;
    return a.seq > b.seq;
  }
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
};

}  // namespace locksim
