// World internals shared by sim/world.cc and sim/world_digest.cc (not part
// of the World's interface): a client node, and the table of its pending
// timers.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "impl/client.h"
#include "impl/multi_lock.h"
#include "sim/node_clock.h"
#include "sim/rng.h"
#include "sim/world.h"

namespace locksim {

// A node's pending timers, with the callback of each that has one (a
// client's own timer, ClientEnv::start_timer; the World's request and
// subscribe timeouts have none: their agenda entries say what to do).
// Timer ids are handed out in increasing order (insert() checks it), so the
// table is a window from the oldest pending id on: insert, erase and clear
// are O(1) amortised and allocate only when the window grows. The window is
// slots_[head_..]; the slots before head_ are dropped in one go once they
// are the larger half.
class LiveTimers {
 public:
  void insert(uint64_t id, std::function<void()> fire = nullptr) {
    if (head_ == slots_.size()) {  // empty: the window starts at id
      slots_.clear();
      head_ = 0;
      base_ = id;
    }
    assert(id == base_ + (slots_.size() - head_) && "timer ids must be consecutive");
    slots_.push_back(Slot{true, std::move(fire)});
  }
  // True if `id` was pending (and now is not); its callback, if any, is
  // moved to *fire (when fire is not null) or destroyed.
  bool erase(uint64_t id, std::function<void()>* fire = nullptr) {
    if (id < base_ || id >= base_ + (slots_.size() - head_)) return false;
    Slot& slot = slots_[head_ + (id - base_)];
    const bool was = slot.pending;
    slot.pending = false;
    if (fire != nullptr) *fire = std::move(slot.fire);
    slot.fire = nullptr;
    while (head_ < slots_.size() && !slots_[head_].pending) {
      ++head_;
      ++base_;
    }
    if (head_ >= kCompactAfter && head_ * 2 >= slots_.size()) {
      slots_.erase(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return was;
  }
  void clear() {
    base_ += slots_.size() - head_;
    slots_.clear();
    head_ = 0;
  }
  bool contains(uint64_t id) const {
    return id >= base_ && id < base_ + (slots_.size() - head_) && slots_[head_ + (id - base_)].pending;
  }
  // fn(id) for every pending id, ascending.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (size_t i = head_; i < slots_.size(); ++i) {
      if (slots_[i].pending) fn(base_ + (i - head_));
    }
  }

 private:
  struct Slot {
    bool pending = false;
    std::function<void()> fire;  // null: a timer of the World's own
  };
  static constexpr size_t kCompactAfter = 64;
  uint64_t base_ = 0;  // id of slots_[head_]
  size_t head_ = 0;
  std::vector<Slot> slots_;
};

struct World::Node {
  int index = -1;
  uint64_t incarnation = 0;
  bool alive = false;
  int64_t paused_until_us = 0;
  NodeClock clock;
  Rng net_rng{0};
  Rng spare_rng{0};  // delays of spared losses (World::random_loss)
  std::string uuid;
  std::unique_ptr<NodeEnv> env;
  std::unique_ptr<LockClient> client;
  std::unique_ptr<MultiLockClient> group;  // WorldConfig::groups
  LiveTimers live_timers;
  // Its script requests that are not finished (no reply taken, no timeout
  // fired): they hold their records for the request timeout, whose action
  // holds none, so a finished request's record goes back to the pool at
  // once instead of when its dead timeout is popped. Cleared by a crash.
  std::vector<ScriptRequestRef> unfinished;
  uint64_t next_timer = 1;
  uint64_t messages = 0;  // sent on its link (schedule mode: MessageInfo::index)
};

inline World::Node& World::node(int c) {
  assert(c >= 0 && c < static_cast<int>(nodes_.size()));
  return *nodes_[c];
}

inline const World::Node& World::node(int c) const {
  assert(c >= 0 && c < static_cast<int>(nodes_.size()));
  return *nodes_[c];
}

}  // namespace locksim
