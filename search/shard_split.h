// Shard split: how a campaign's seed indexes [0, seeds) are dealt to N
// shards (shard I runs indexes I, I + N, I + 2N, ...). Header only, so that
// what reads a shard's summary (reports/summary_check.h) needs nothing of
// the campaign itself.
#pragma once

#include <cassert>

namespace locksim {

// How many of the seed indexes [0, seeds) shard I of N runs.
inline int shard_seed_count(int seeds, int shard_index, int shard_count) {
  assert(shard_count >= 1 && shard_index >= 0 && shard_index < shard_count);
  if (seeds <= shard_index) return 0;
  return (seeds - shard_index + shard_count - 1) / shard_count;
}

}  // namespace locksim
