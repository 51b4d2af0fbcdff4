// EventQueue: the simulator's agenda. Actions run in true-time order; actions
// at the same instant run in the order they were scheduled (a sequence
// number is the tie-breaker, never a pointer or a hash). Bounded: pushing
// beyond kMaxItems is an invariant violation (a runaway simulation).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <vector>

namespace locksim {

class EventQueue {
 public:
  static constexpr size_t kMaxItems = size_t{1} << 22;

  struct Item {
    int64_t at_us = 0;
    uint64_t seq = 0;
    std::function<void()> action;
  };

  void push(int64_t at_us, std::function<void()> action) {
    assert(items_.size() < kMaxItems && "event queue bound exceeded");
    items_.push_back(Item{at_us, next_seq_++, std::move(action)});
    std::push_heap(items_.begin(), items_.end(), later);
  }

  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  int64_t next_at_us() const {
    assert(!items_.empty());
    return items_.front().at_us;
  }

  Item pop() {
    assert(!items_.empty());
    std::pop_heap(items_.begin(), items_.end(), later);
    Item item = std::move(items_.back());
    items_.pop_back();
    return item;
  }

 private:
  static bool later(const Item& a, const Item& b) {
    if (a.at_us != b.at_us) return a.at_us > b.at_us;
    return a.seq > b.seq;
  }
  std::vector<Item> items_;
  uint64_t next_seq_ = 0;
};

}  // namespace locksim
