// KeyHash: the hash of the model's key names and of the simulator's maps
// keyed by them. Key names share long prefixes ("redisson_lock_queue:{...}"),
// so it reads 8 bytes a step (std::hash costs about twice as much) and ends
// with MurmurHash3's finaliser, so every input bit reaches every output bit.
// Deterministic, but nothing may depend on its values beyond bucketing: no
// output iterates a map hashed with it in bucket order.
//
// Not noexcept on purpose: libstdc++ then caches each key's hash in its
// node, so rehashing and bucket walks never hash a key again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace locksim {

struct KeyHash {
  using is_transparent = void;  // finds std::string keys by std::string_view
  size_t operator()(std::string_view key) const {  // NOLINT(performance-noexcept-*): see above
    constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ULL;
    constexpr uint64_t kMul2 = 0xC2B2AE3D27D4EB4FULL;
    const char* p = key.data();
    size_t n = key.size();
    uint64_t h = kMul1 ^ (static_cast<uint64_t>(n) * kMul2);
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t chunk = 0;
      std::memcpy(&chunk, p, 8);
      h ^= chunk * kMul2;
      h = ((h << 31) | (h >> 33)) * kMul1;
    }
    // The last n < 8 bytes by overlapping loads (the length is already mixed in).
    uint64_t tail = 0;
    if (n > 0 && key.size() >= 8) {
      std::memcpy(&tail, key.data() + key.size() - 8, 8);
    } else if (n >= 4) {
      uint32_t head4 = 0;
      uint32_t last4 = 0;
      std::memcpy(&head4, p, 4);
      std::memcpy(&last4, p + n - 4, 4);
      tail = (static_cast<uint64_t>(head4) << 32) | last4;
    } else if (n > 0) {
      const auto byte = [p](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(p[i])); };
      tail = (byte(0) << 16) | (byte(n / 2) << 8) | byte(n - 1);
    }
    h ^= tail * kMul2;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return static_cast<size_t>(h);
  }
};

}  // namespace locksim
