// StateDigest: a running 64-bit fingerprint of a state, for the explorer's
// visited set (properties/explore.h): two states with equal digests are
// taken to be the same state. Values go in with add(); their order matters.
// A part whose items have no order (the keys of a store) is fingerprinted
// item by item and combined with add_unordered(), which is order-blind.
// Deterministic: no addresses, no seeds; the same values give the same
// fingerprint on every build and platform.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace locksim {

class StateDigest {
 public:
  void add(uint64_t v) { h_ = mix(h_ ^ mix(v + kStep)); }
  void add(int64_t v) { add(static_cast<uint64_t>(v)); }
  void add(int v) { add(static_cast<uint64_t>(static_cast<int64_t>(v))); }
  void add(bool v) { add(static_cast<uint64_t>(v ? 1 : 0)); }
  void add(std::string_view s) {
    add(static_cast<uint64_t>(s.size()));
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t word = 0;
      std::memcpy(&word, s.data() + i, 8);
      add(word);
    }
    if (i < s.size()) {
      uint64_t word = 0;
      std::memcpy(&word, s.data() + i, s.size() - i);
      add(word);
    }
  }
  void add(const char* s) { add(std::string_view(s)); }
  // A double by value (-0.0 as 0.0, so equal numbers give equal digests).
  void add_double(double d) {
    if (d == 0) d = 0;
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    add(bits);
  }
  // Combines the fingerprint of one item of an unordered part: the sum of
  // the items' fingerprints, added once by end_unordered().
  void add_unordered(uint64_t item) { unordered_ += mix(item); }
  void end_unordered() {
    add(unordered_);
    unordered_ = 0;
  }

  uint64_t value() const { return mix(h_ ^ kStep); }

 private:
  static constexpr uint64_t kStep = 0x9e3779b97f4a7c15ULL;
  // MurmurHash3's 64-bit finaliser: every input bit affects every output bit.
  static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
  }
  uint64_t h_ = 0x6a09e667f3bcc908ULL;
  uint64_t unordered_ = 0;
};

}  // namespace locksim
