// StateDigest: a running 64-bit fingerprint of a state, for the explorer's
// visited set (search/explore.h): two states with equal digests are
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
  // Values go in two at a time: a pair is one hashing step (a 64x64 to
  // 128-bit multiply, folded), as 16 bytes of a string are. The count of
  // values is part of the fingerprint, so a last value left alone (paired
  // with a constant) is not taken for that constant added.
  void add(uint64_t v) {
    if (pending_full_) {
      h_ = step(h_, pending_, v);
    } else {
      pending_ = v;
    }
    pending_full_ = !pending_full_;
    ++count_;
  }
  void add(int64_t v) { add(static_cast<uint64_t>(v)); }
  void add(int v) { add(static_cast<uint64_t>(static_cast<int64_t>(v))); }
  void add(bool v) { add(static_cast<uint64_t>(v ? 1 : 0)); }
  // A string by its bytes and length: hashed 16 bytes per step (a 64x64 to
  // 128-bit multiply folded), then added as one value.
  void add(std::string_view s) {
    const size_t n = s.size();
    uint64_t h = kStep ^ mix(n + kStep);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) h = step(h, word(s.data() + i, 8), word(s.data() + i + 8, 8));
    if (i < n) {
      const size_t rest = n - i;
      const size_t first = rest < 8 ? rest : 8;
      h = step(h, word(s.data() + i, first), word(s.data() + i + first, rest - first));
    }
    add(h);
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

  uint64_t value() const {
    const uint64_t h = pending_full_ ? step(h_, pending_, kStep) : h_;
    return mix(h ^ mix(count_ + kStep));
  }

 private:
  static constexpr uint64_t kStep = 0x9e3779b97f4a7c15ULL;
  static constexpr uint64_t kLeft = 0xa0761d6478bd642fULL;  // odd, dense bit patterns
  static constexpr uint64_t kRight = 0xe7037ed1a0b428dbULL;
  // `bytes` (at most 8) bytes from p, zero-extended.
  static uint64_t word(const char* p, size_t bytes) {
    uint64_t w = 0;
    std::memcpy(&w, p, bytes);
    return w;
  }
  // The string hash after two more words: the two halves of a 128-bit
  // product, xored; both factors depend on h, so neither is zero but by a
  // 2^-64 chance.
  static uint64_t step(uint64_t h, uint64_t w0, uint64_t w1) {
    const uint64_t a = w0 ^ kLeft ^ h;
    const uint64_t b = w1 ^ kRight ^ ((h << 29) | (h >> 35));
    const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
  }
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
  uint64_t pending_ = 0;       // the first value of a pair, when pending_full_
  bool pending_full_ = false;
  uint64_t count_ = 0;         // values added
  uint64_t unordered_ = 0;
};

}  // namespace locksim
