// EventQueue: the simulator's agenda. Actions run in true-time order; actions
// at the same instant run in the order they were scheduled (a sequence
// number is the tie-breaker, never a pointer or a hash). Bounded: pushing
// beyond kMaxItems is an invariant violation (a runaway simulation).
//
// An entry is an Item (the World's: an AgendaEntry, sim/agenda.h; any
// default-constructible, movable value) and a Guard (a client and its
// incarnation) that the World checks before running it; the queue only
// stores them. Items live in a slot table of fixed-size chunks that never
// moves them: pop() takes the earliest entry out of the order and leaves its
// item in its slot, where the caller runs it in place (it may schedule more
// meanwhile) and then release()s the slot. The order is a 4-ary min-heap of
// 16-byte keys (time, then sequence and slot: one 128-bit integer, compared
// inline), so scheduling and popping copy no item and allocate nothing once
// the table has grown.
//
// Lanes: a caller that schedules a series of actions in time order (a fault
// plan laid out at the start, request timeouts of one length) may push them
// into a lane, a FIFO of keys beside the heap. A push joins its lane when it
// is not earlier than the lane's last key, and the heap otherwise, so a lane
// stays sorted whatever the caller does; pop() takes the least key among the
// heap's root and the lanes' heads. The order is the same as with the heap
// alone (keys are unique and compared alike); lanes only keep long-lived
// entries out of the heap, whose every push and pop walks its depth.
//
// pop_due(), restore(), for_each() and remove_if() let a caller choose
// among the entries of one instant, look at the whole queue and drop what
// will never run (the World's schedule mode).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>


namespace locksim {

// The (client, incarnation) an action belongs to; client -1: a world action.
struct QueueGuard {
  int client = -1;
  uint64_t incarnation = 0;
};

template <class Item>
class BasicEventQueue {
 public:
  static constexpr size_t kMaxItems = size_t{1} << 22;
  static constexpr size_t kLanes = 2;
  using Guard = QueueGuard;
  // A lane (see above), 0 .. kLanes-1.
  struct Lane {
    uint8_t index = 0;
  };

  // The earliest entry, out of the order; its item stays in slot `slot`.
  // `order` is its place among the entries of its instant (scheduled first:
  // smaller), the same as long as it is queued (restore() keeps it).
  struct Popped {
    int64_t at_us = 0;
    Guard guard;
    uint32_t slot = 0;
    uint64_t order = 0;
  };

  void push(int64_t at_us, Item&& item, Guard guard = Guard{}) {
    heap_.push_back(store(at_us, std::move(item), guard));
    sift_up(heap_.size() - 1);
  }
  // push(), into `lane` when at_us is not earlier than the lane's last entry.
  void push(Lane lane, int64_t at_us, Item&& item, Guard guard = Guard{}) {
    assert(lane.index < kLanes);
    LaneKeys& l = lanes_[lane.index];
    if (l.head < l.keys.size() && at_us < at_us_of(l.keys.back())) {
      push(at_us, std::move(item), guard);
      return;
    }
    if (l.head == l.keys.size()) {  // empty: start again at the buffer's front
      l.keys.clear();
      l.head = 0;
    }
    l.keys.push_back(store(at_us, std::move(item), guard));
    ++lane_items_;
  }

  // The earliest time of an entry pushed since the last mark_pushes()
  // (restore() is no push; INT64_MAX: none): a caller that took the entries
  // of an instant out can tell whether any joined that instant since.
  void mark_pushes() { earliest_pushed_us_ = INT64_MAX; }
  int64_t earliest_pushed_us() const { return earliest_pushed_us_; }

  // Takes every entry of the earliest instant out of the order, in order,
  // appending them to *out. Each is then either released or restore()d.
  void pop_due(std::vector<Popped>* out) {
    assert(!empty());
    const int64_t at_us = next_at_us();
    while (!empty() && next_at_us() == at_us) out->push_back(pop());
  }
  // Puts a popped, not released entry back in the order, where it was.
  void restore(const Popped& entry) {
    assert(size() < kMaxItems);
    heap_.push_back(make_key(entry.at_us, entry.order));
    sift_up(heap_.size() - 1);
  }
  // Calls fn(at_us, order, guard, item) for every queued entry, in no
  // particular order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    auto visit = [&](Key key) {
      const auto order = static_cast<uint64_t>(key);
      const Slot& s = slot_at(static_cast<uint32_t>(order & kSlotMask));
      fn(at_us_of(key), order, s.guard, s.item);
    };
    for (const Key key : heap_) visit(key);
    for (const LaneKeys& l : lanes_) {
      for (size_t i = l.head; i < l.keys.size(); ++i) visit(l.keys[i]);
    }
  }

  // Drops every queued entry for which dead(at_us, order, guard, item) is
  // true (destroying its item, freeing its slot); the others keep their
  // order. Returns how many it dropped.
  template <class Pred>
  size_t remove_if(Pred&& dead) {
    size_t dropped = 0;
    auto drop = [&](Key key) {
      const auto order = static_cast<uint64_t>(key);
      const auto slot = static_cast<uint32_t>(order & kSlotMask);
      const Slot& s = slot_at(slot);
      if (!dead(at_us_of(key), order, s.guard, s.item)) return false;
      release(slot);
      ++dropped;
      return true;
    };
    heap_.erase(std::remove_if(heap_.begin(), heap_.end(), drop), heap_.end());
    std::sort(heap_.begin(), heap_.end());  // ascending: a heap
    for (LaneKeys& l : lanes_) {
      l.keys.erase(l.keys.begin(), l.keys.begin() + static_cast<std::ptrdiff_t>(l.head));
      l.head = 0;
      const size_t before = l.keys.size();
      l.keys.erase(std::remove_if(l.keys.begin(), l.keys.end(), drop), l.keys.end());
      lane_items_ -= before - l.keys.size();
    }
    return dropped;
  }

  bool empty() const { return heap_.empty() && lane_items_ == 0; }
  size_t size() const { return heap_.size() + lane_items_; }
  int64_t next_at_us() const {
    assert(!empty());
    return at_us_of(least().key);
  }

  // Takes the earliest entry out of the order. Its item stays in place
  // (item(slot)) until release(slot); the slot is not reused before.
  Popped pop() {
    assert(!empty());
    const Least top = least();
    if (top.lane < 0) {
      const Key last = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) sift_down(last);
    } else {
      LaneKeys& l = lanes_[static_cast<size_t>(top.lane)];
      ++l.head;
      --lane_items_;
      if (l.head >= kLaneCompactAfter && l.head * 2 >= l.keys.size()) {  // drop the popped half
        l.keys.erase(l.keys.begin(), l.keys.begin() + static_cast<std::ptrdiff_t>(l.head));
        l.head = 0;
      }
    }
    const auto order = static_cast<uint64_t>(top.key);
    const auto slot = static_cast<uint32_t>(order & kSlotMask);
    const Slot& s = slot_at(slot);
    return Popped{at_us_of(top.key), s.guard, slot, order};
  }

  // The item of a popped, not yet released slot.
  Item& item(uint32_t slot) { return slot_at(slot).item; }
  const Item& item(uint32_t slot) const { return slot_at(slot).item; }

  // Destroys the slot's item (if still there: it may have been moved out)
  // and frees the slot.
  void release(uint32_t slot) {
    slot_at(slot).item = Item{};
    free_slots_.push_back(slot);
    assert(free_slots_.size() <= slot_count_);
  }

 private:
  static constexpr int kSlotBits = 22;  // kMaxItems slots
  static constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;
  // A power of two; small, so that a queue holds little memory it does not
  // use (the explorer copies a run's memory whole: search/explore.h).
  static constexpr uint32_t kChunkSlots = 8;
  static constexpr size_t kArity = 4;
  // A lane drops its popped keys once there are this many and they are at
  // least half of it (amortized: each key is moved at most once per drop).
  static constexpr size_t kLaneCompactAfter = 64;

  // at_us << 64 | sequence << kSlotBits | slot: unique, and smaller means
  // earlier (at_us >= 0), then scheduled first.
  using Key = unsigned __int128;
  struct Slot {
    Item item;  // Item{} while the slot is free
    Guard guard;
  };

  struct LaneKeys {
    std::vector<Key> keys;  // sorted; keys[head..] are queued
    size_t head = 0;
  };
  // The least queued key, and where it is (lane -1: the heap's root).
  struct Least {
    Key key = 0;
    int lane = -1;
  };
  Least least() const {
    Least best;
    bool found = !heap_.empty();
    if (found) best.key = heap_.front();
    for (size_t i = 0; i < kLanes; ++i) {
      const LaneKeys& l = lanes_[i];
      if (l.head == l.keys.size()) continue;
      if (!found || l.keys[l.head] < best.key) {
        best = Least{l.keys[l.head], static_cast<int>(i)};
        found = true;
      }
    }
    assert(found);
    return best;
  }

  // Puts the item in a free slot; returns its key.
  Key store(int64_t at_us, Item&& item, Guard guard) {
    assert(size() < kMaxItems && "event queue bound exceeded");
    assert(at_us >= 0);
    assert(next_seq_ < (uint64_t{1} << (64 - kSlotBits)) && "sequence numbers exhausted");
    uint32_t slot = 0;
    if (free_slots_.empty()) {
      slot = slot_count_++;
      if ((slot & (kChunkSlots - 1)) == 0) chunks_.push_back(std::make_unique<Slot[]>(kChunkSlots));
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    if (at_us < earliest_pushed_us_) earliest_pushed_us_ = at_us;
    Slot& s = slot_at(slot);
    s.item = std::move(item);
    s.guard = guard;
    return make_key(at_us, (next_seq_++ << kSlotBits) | slot);
  }

  static Key make_key(int64_t at_us, uint64_t order) {
    return (static_cast<Key>(static_cast<uint64_t>(at_us)) << 64) | order;
  }
  static int64_t at_us_of(Key key) { return static_cast<int64_t>(static_cast<uint64_t>(key >> 64)); }

  Slot& slot_at(uint32_t slot) {
    assert(slot < slot_count_);
    return chunks_[slot / kChunkSlots][slot & (kChunkSlots - 1)];
  }
  const Slot& slot_at(uint32_t slot) const {
    assert(slot < slot_count_);
    return chunks_[slot / kChunkSlots][slot & (kChunkSlots - 1)];
  }

  void sift_up(size_t i) {
    const Key moving = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!(moving < heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = moving;
  }

  // Places `moving` into the hole at the root, moving smaller children up.
  void sift_down(const Key moving) {
    static_assert(kArity == 4, "the full-node case below compares four children");
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = i * kArity + 1;
      size_t best = first;
      if (first + kArity <= n) {  // all four children: a two-round tournament
        const size_t left = heap_[first + 1] < heap_[first] ? first + 1 : first;
        const size_t right = heap_[first + 3] < heap_[first + 2] ? first + 3 : first + 2;
        best = heap_[right] < heap_[left] ? right : left;
      } else if (first < n) {
        for (size_t k = first + 1; k < n; ++k) {
          if (heap_[k] < heap_[best]) best = k;
        }
      } else {
        break;
      }
      if (!(heap_[best] < moving)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = moving;
  }

  std::vector<Key> heap_;
  LaneKeys lanes_[kLanes];
  size_t lane_items_ = 0;
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  uint32_t slot_count_ = 0;
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
  int64_t earliest_pushed_us_ = INT64_MAX;  // since mark_pushes()
};

}  // namespace locksim
