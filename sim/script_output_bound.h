// ScriptOutputBudget: what a script pack may hand back, bounded. A lock
// script answers a few bytes; a hostile pack can answer megabytes per call
// (a 70 MB reply once made a 294 MB trace from a 0.3 s run, which replay
// then refused, and a two-seed campaign ran past 100 s). A backend that
// runs a pack's own code (live, lua) charges every execution here:
//  - one execution's reply, published messages, holders and line together
//    at most kMaxScriptOutputBytes;
//  - one run's executions together at most kMaxRunOutputBytes, the fair
//    line aside (a long contended fair run reads a long line after every
//    poll; the trace writes it only when it changed) (reset() starts a run).
// Past either bound charge() throws ScriptOutputTooLarge naming the script
// and the sizes: the run stops (exit 2), nothing of it is recorded, and the
// same holds on every backend. The model's own scripts never come near.
#pragma once

#include <cstdint>
#include <string_view>

#include "impl/redis_conn.h"  // RedisError
#include "redis/exec_result.h"

namespace locksim {

inline constexpr uint64_t kMaxScriptOutputBytes = 1ull << 20;   // 1 MiB
inline constexpr uint64_t kMaxRunOutputBytes = 64ull << 20;     // 64 MiB

// A run cut short by a pack that answers too much (a RedisError: the run
// could not complete, as with a script that never answers).
struct ScriptOutputTooLarge : RedisError {
  using RedisError::RedisError;
};

// The bytes an execution hands back: every string of the reply, published
// messages and holders, plus 8 per element; with `line`, the line too.
uint64_t script_output_bytes(const ExecResult& result, bool line);

class ScriptOutputBudget {
 public:
  void reset() { used_bytes_ = 0; }
  void charge(const ExecResult& result, std::string_view script);
  uint64_t used_bytes() const { return used_bytes_; }

 private:
  uint64_t used_bytes_ = 0;
};

}  // namespace locksim
