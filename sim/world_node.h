// World internals shared by sim/world.cc and sim/world_digest.cc (not part
// of the World's interface): a client node, and the set of its pending timers.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "impl/client.h"
#include "impl/multi_lock.h"
#include "sim/node_clock.h"
#include "sim/rng.h"
#include "sim/world.h"

namespace locksim {

// The set of a node's pending timers. Timer ids are handed out in increasing
// order (insert() checks it), so the set is a window of flags from the
// oldest pending id on: insert, erase and clear are O(1) amortised and
// allocate only when the window grows. The window is flags_[head_..]; the
// flags before head_ are dropped in one go once they are the larger half.
class LiveTimers {
 public:
  void insert(uint64_t id) {
    if (head_ == flags_.size()) {  // empty: the window starts at id
      flags_.clear();
      head_ = 0;
      base_ = id;
    }
    assert(id == base_ + (flags_.size() - head_) && "timer ids must be consecutive");
    flags_.push_back(1);
  }
  // True if `id` was pending (and now is not).
  bool erase(uint64_t id) {
    if (id < base_ || id >= base_ + (flags_.size() - head_)) return false;
    uint8_t& flag = flags_[head_ + (id - base_)];
    const bool was = flag != 0;
    flag = 0;
    while (head_ < flags_.size() && flags_[head_] == 0) {
      ++head_;
      ++base_;
    }
    if (head_ >= kCompactAfter && head_ * 2 >= flags_.size()) {
      flags_.erase(flags_.begin(), flags_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return was;
  }
  void clear() {
    base_ += flags_.size() - head_;
    flags_.clear();
    head_ = 0;
  }
  bool contains(uint64_t id) const {
    return id >= base_ && id < base_ + (flags_.size() - head_) && flags_[head_ + (id - base_)] != 0;
  }
  // fn(id) for every pending id, ascending.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (size_t i = head_; i < flags_.size(); ++i) {
      if (flags_[i] != 0) fn(base_ + (i - head_));
    }
  }

 private:
  static constexpr size_t kCompactAfter = 64;
  uint64_t base_ = 0;            // id of flags_[head_]
  size_t head_ = 0;
  std::vector<uint8_t> flags_;   // 1: pending
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
  std::vector<RecordPool<ScriptRequest>::Ref> unfinished;
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
