// Server-side fault settings (lock-semantics.md section 4's hard cases):
// what a Redis restart keeps, how long a restarted server stays down, and
// the replication of each server to one asynchronous replica. Plain data
// (Persistence, with its names for the CLI and the trace header, is the
// history's type too: traces/persistence.h.)
// A request that reaches a server while it is down is answered at once with
// an error (connection refused), and nothing runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "traces/persistence.h"

namespace locksim {

// What a failover did: promoted is false when there was no replica left to
// promote; lost_writes counts the scripts the replica had not received.
struct FailoverResult {
  bool promoted = false;
  int64_t lag_ms = 0;
  int lost_writes = 0;
};

struct ServerFaultConfig {
  Persistence persistence = Persistence::None;
  int64_t restart_delay_ms = 0;          // down time of every restart
  std::vector<int64_t> replica_lag_ms;   // per server; empty: no replicas
};

}  // namespace locksim
