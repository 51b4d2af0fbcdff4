#include "traces/op.h"

#include <array>
#include <cassert>

namespace locksim {

namespace {

// Indexed by Op: the names a trace writes.
constexpr std::array<std::string_view, kOpCount> kOpNames = {
    "",         "lock",    "try_lock", "unlock",     "force_unlock", "renew",     "acquire_failed",
    "hold_lost", "watchdog_stop", "validity_end", "crash", "restart",   "pause",     "resume",
    "clock_jump", "partition", "heal",  "redis_restart", "failover", "lost",     "delayed",
};

}  // namespace

std::string_view op_name(Op op) {
  const auto i = static_cast<size_t>(op);
  assert(i < kOpNames.size());
  return kOpNames[i];
}

std::optional<Op> op_from_name(std::string_view name) {
  // Most events name a client operation: those are first in the table.
  for (size_t i = 0; i < kOpNames.size(); ++i) {
    const std::string_view known = kOpNames[i];
    if (known.size() == name.size() && known == name) return static_cast<Op>(i);
  }
  return std::nullopt;
}

}  // namespace locksim
