// LinkProfile: how a client<->server link behaves. One-way latency is
// uniform in [latency_min_us, latency_max_us], plus with probability tail_prob
// an exponential tail of mean tail_mean_us (so messages reorder); each message
// is lost with probability loss_prob. Partitions are faults (sim/world.h).
// draw_delay_us / draw_lost consume the link's own Rng stream.
#pragma once

#include <cassert>
#include <cstdint>

#include "sim/rng.h"

namespace locksim {

struct LinkProfile {
  int64_t latency_min_us = 100;
  int64_t latency_max_us = 1'000;
  double tail_prob = 0.0;
  int64_t tail_mean_us = 0;
  double loss_prob = 0.0;
};

inline int64_t draw_delay_us(const LinkProfile& link, Rng& rng) {
  assert(link.latency_min_us > 0 && link.latency_min_us <= link.latency_max_us);
  int64_t delay_us = rng.uniform(link.latency_min_us, link.latency_max_us);
  if (link.tail_prob > 0 && rng.chance(link.tail_prob)) {
    delay_us += rng.exponential(static_cast<double>(link.tail_mean_us));
  }
  return delay_us;
}

inline bool draw_lost(const LinkProfile& link, Rng& rng) {
  return link.loss_prob > 0 && rng.chance(link.loss_prob);
}

}  // namespace locksim
