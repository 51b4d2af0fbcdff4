#include "properties/violation.h"

#include <cstdio>

namespace locksim {

std::string format_ms(int64_t ms) {
  const bool negative = ms < 0;
  uint64_t magnitude = negative ? static_cast<uint64_t>(-(ms + 1)) + 1 : static_cast<uint64_t>(ms);
  std::string digits = std::to_string(magnitude);
  std::string grouped;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) grouped += ' ';
    grouped += digits[i];
  }
  return (negative ? "-" : "") + grouped + " ms";
}

std::string Violation::to_string() const {
  std::string out = property;
  if (!lock.empty()) out += " [" + lock + "]";
  out += ": " + message;
  if (!event_ids.empty()) {
    out += " (events";
    for (size_t i = 0; i < event_ids.size(); ++i) {
      out += (i == 0 ? " #" : ", #") + std::to_string(event_ids[i]);
      if (i < true_us.size()) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " @%.3fs", static_cast<double>(true_us[i]) / 1e6);
        out += buf;
      }
    }
    out += ")";
  }
  if (!blamed_fault.empty()) out += "; cause: " + blamed_fault;
  return out;
}

}  // namespace locksim
