// QueueCensus: what a fingerprint of a world in schedule mode walked
// (World::digest, sim/world_digest.cc): the queued actions it took in
// (live) and the dead ones it walked past (a crashed incarnation's, a
// cancelled timer's). Enough dead ones are worth dropping
// (World::purge_dead()): a busy-polling waiter leaves a cancelled request
// timeout behind every poll, and every later fingerprint would walk them.
#pragma once

#include <cstddef>

namespace locksim {

struct QueueCensus {
  static constexpr size_t kPurgeDeadAfter = 32;

  size_t live = 0;
  size_t dead = 0;

  bool worth_purging() const { return dead >= kPurgeDeadAfter && dead > live; }
};

}  // namespace locksim
