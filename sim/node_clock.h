// NodeClock: one node's clock (a client process or a Redis server) as a
// function of true virtual time. Wall clock:
//   local_us = kEpochUs + true_us + offset_us + jumps_us + true_us * drift_ppm / 1e6
// Timers use the node's monotonic clock (drift applies, jumps do not), as
// Java's scheduled executors do: true_delay_us() converts a local delay into
// true time. Integer arithmetic only (64-bit where the products fit, which
// gives the same quotients as 128-bit).
#pragma once

#include <cassert>
#include <cstdint>

namespace locksim {

// Virtual time 0 is this wall-clock instant (~2001-09-09), the same as
// RedisServerOptions::initial_clock_us.
constexpr int64_t kEpochUs = 1'000'000'000'000'000;

struct ClockSetup {
  int64_t offset_us = 0;
  int64_t drift_ppm = 0;  // |drift| < 1e6
};

class NodeClock {
 public:
  NodeClock() = default;
  explicit NodeClock(ClockSetup setup) : setup_(setup) {
    assert(setup.drift_ppm > -1'000'000 && setup.drift_ppm < 1'000'000);
  }

  int64_t local_us(int64_t true_us) const {
    if (setup_.drift_ppm == 0) return kEpochUs + true_us + setup_.offset_us + jumps_us_;  // no 128-bit division
    int64_t drift = 0;
    if (true_us > -kFits64 && true_us < kFits64) {  // |true_us * drift_ppm| < 2^63
      drift = true_us * setup_.drift_ppm / 1'000'000;
    } else {
      drift = static_cast<int64_t>(static_cast<__int128>(true_us) * setup_.drift_ppm / 1'000'000);
    }
    return kEpochUs + true_us + setup_.offset_us + jumps_us_ + drift;
  }
  int64_t local_ms(int64_t true_us) const { return floor_div(local_us(true_us), 1000); }

  // True time that passes while this node's monotonic clock advances delay_us.
  int64_t true_delay_us(int64_t delay_us) const {
    assert(delay_us >= 0);
    if (setup_.drift_ppm == 0) return delay_us;  // what the formula gives without drift
    if (delay_us < kFits64) {  // delay_us * 1e6 + den < 2^63
      const int64_t den = 1'000'000 + setup_.drift_ppm;
      return (delay_us * 1'000'000 + den - 1) / den;
    }
    const __int128 num = static_cast<__int128>(delay_us) * 1'000'000;
    const __int128 den = 1'000'000 + setup_.drift_ppm;
    return static_cast<int64_t>((num + den - 1) / den);
  }

  void jump(int64_t delta_us) { jumps_us_ += delta_us; }
  const ClockSetup& setup() const { return setup_; }

 private:
  // |x| < kFits64 and |factor| < 2^21 (drift_ppm, or 1e6 plus a small
  // addend) keep x * factor within int64: 2^42 * 2^21 = 2^63.
  static constexpr int64_t kFits64 = int64_t{1} << 42;

  static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  ClockSetup setup_;
  int64_t jumps_us_ = 0;
};

}  // namespace locksim
