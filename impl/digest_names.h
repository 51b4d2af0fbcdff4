// DigestNames: how a client names what the world owns when its state is
// fingerprinted (redis/state_digest.h, for the explorer of
// search/explore.h): a timer by its rank among its node's pending
// timers and a subscription by its rank among the world's subscriptions
// (-1 once the timer has fired or been cancelled, or the subscription is
// gone), and an operation id by its rank among the ids the client's own
// pending callbacks name. Ranks, not ids: ids count everything that ever
// happened, ranks only what is pending, so two runs that reach the same
// state by different ways name it alike. now_ms is the node's local clock,
// to which every time the client keeps is taken relative.
#pragma once

#include <cstdint>

namespace locksim {

class DigestNames {
 public:
  virtual ~DigestNames() = default;
  virtual int64_t timer(uint64_t id) const = 0;
  virtual int64_t subscription(uint64_t id) const = 0;
  virtual int64_t op(uint64_t op_id) const = 0;
  int64_t now_ms = 0;
};

}  // namespace locksim
