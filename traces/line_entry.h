// LineEntry: one waiter of a fair lock's line as the server holds it: its
// owner id and the score of its deadline (client clock, ms; none when the
// sorted set has no entry for it, a historical bug). Scores are doubles in
// Redis.
#pragma once

#include <optional>
#include <string>

namespace locksim {

struct LineEntry {
  std::string owner;
  std::optional<double> deadline_ms;
  bool operator==(const LineEntry&) const = default;
};

}  // namespace locksim
