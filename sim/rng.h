// Rng: the simulator's only source of randomness. A xoshiro256** generator
// seeded through splitmix64, with split() deriving an independent child stream
// from a name or an index, so that every component (network of client 3, the
// workload of task 1, the fault plan, ...) has its own stream and adding a
// client does not shift the draws of any other. All draws are implemented
// here by hand (no <random> distributions: their output is not portable).
#pragma once

#include <cassert>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace locksim {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t sm = seed;
    for (auto& word : s_) word = splitmix64(&sm);
  }

  // A child stream named `name`: deterministic in (this stream's seed state, name);
  // does not advance this stream.
  Rng split(std::string_view name) const {
    uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
    for (char c : name) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001b3ULL;
    }
    return Rng(mix(h));
  }
  Rng split(uint64_t index) const { return Rng(mix(index * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL)); }

  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, bound), bound > 0 (Lemire's multiply-shift, with rejection).
  uint64_t below(uint64_t bound) {
    assert(bound > 0);
    const uint64_t threshold = (0 - bound) % bound;
    for (int i = 0; i < 1000; ++i) {
      const unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * bound;
      if (static_cast<uint64_t>(m) >= threshold) return static_cast<uint64_t>(m >> 64);
    }
    assert(false && "rng rejection loop bound");
    return 0;
  }

  // Uniform integer in [lo, hi] (inclusive), lo <= hi.
  int64_t uniform(int64_t lo, int64_t hi) {
    assert(lo <= hi);
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (span == 0) return static_cast<int64_t>(next_u64());  // full range
    return lo + static_cast<int64_t>(below(span));
  }

  // Uniform double in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  bool chance(double p) { return unit() < p; }

  // Exponential with the given mean (inverse CDF), rounded down to an integer.
  int64_t exponential(double mean) {
    assert(mean >= 0);
    const double u = unit();  // in [0, 1)
    return static_cast<int64_t>(-std::log1p(-u) * mean);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t mix(uint64_t salt) const {
    uint64_t sm = s_[0] ^ rotl(s_[1], 13) ^ rotl(s_[2], 29) ^ rotl(s_[3], 43) ^ salt;
    return splitmix64(&sm);
  }
  uint64_t s_[4];
};

}  // namespace locksim
