// Saturating arithmetic on times and durations read from a trace. A trace
// may carry any int64 in its time fields (t, lms, sms, lease, wait, dur):
// what the readings and the drawings compute from them is clamped to
// [INT64_MIN, INT64_MAX] instead of overflowing (undefined behaviour).
// Within a real run's range (times under centuries) the results are exact.
#pragma once

#include <cstdint>
#include <limits>

namespace locksim {

inline int64_t sat_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t sat_sub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (!__builtin_sub_overflow(a, b, &out)) return out;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t sat_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return (a < 0) == (b < 0) ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// Milliseconds as microseconds.
inline int64_t ms_to_us(int64_t ms) { return sat_mul(ms, 1000); }

// |v|, INT64_MIN giving INT64_MAX.
inline int64_t sat_abs(int64_t v) {
  return v >= 0 ? v : v == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -v;
}

}  // namespace locksim
