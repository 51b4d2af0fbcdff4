// DigestScratch: the buffers World::digest (sim/world_digest.cc) fills and
// reuses from one call to the next: the explorer fingerprints every state it
// reaches, and would otherwise allocate and free them each time. The caller
// owns it, outside any snapshot arena (sim/snapshot_arena.h): a world in an
// arena is restored to earlier copies, which must not take the buffers
// along. Nothing in it carries over from one call to the next.
#pragma once

#include <cstdint>
#include <vector>

namespace locksim {

struct DigestScratch {
  // A queued action, by when and by whom it runs, and what it does.
  struct QueuedItem {
    int64_t rel_us = 0;
    int64_t actor = 0;
    uint64_t order = 0;
    uint64_t what = 0;
    bool operator<(const QueuedItem& o) const {
      if (rel_us != o.rel_us) return rel_us < o.rel_us;
      if (actor != o.actor) return actor < o.actor;
      return order < o.order;
    }
  };

  std::vector<uint64_t> subscription_ids;          // ascending
  std::vector<std::vector<uint64_t>> timer_ids;    // per client, its pending timers, ascending
  std::vector<std::vector<uint64_t>> op_ids;       // per client, its live operations, ascending
  std::vector<uint64_t> group_op_ids;              // a multi-lock client's, before they join op_ids
  std::vector<QueuedItem> items;
};

}  // namespace locksim
