#include "redis/sha1.h"

#include <array>
#include <cstdint>

namespace locksim {

namespace {

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

void block(std::array<uint32_t, 5>& h, const unsigned char* p) {
  uint32_t w[80];
  for (int i = 0; i < 16; ++i) {
    w[i] = (uint32_t{p[4 * i]} << 24) | (uint32_t{p[4 * i + 1]} << 16) | (uint32_t{p[4 * i + 2]} << 8) |
           uint32_t{p[4 * i + 3]};
  }
  for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int i = 0; i < 80; ++i) {
    uint32_t f = 0, k = 0;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const uint32_t t = rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

}  // namespace

std::string sha1_hex(std::string_view data) {
  std::array<uint32_t, 5> h = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) block(h, bytes + i);
  // The tail, 0x80, zeros, and the length in bits (big-endian) in one or two blocks.
  unsigned char last[128] = {};
  const size_t rest = n - i;
  for (size_t j = 0; j < rest; ++j) last[j] = bytes[i + j];
  last[rest] = 0x80;
  const size_t blocks = rest + 1 + 8 <= 64 ? 1 : 2;
  const uint64_t bits = static_cast<uint64_t>(n) * 8;
  for (int j = 0; j < 8; ++j) last[blocks * 64 - 1 - j] = static_cast<unsigned char>(bits >> (8 * j));
  for (size_t b = 0; b < blocks; ++b) block(h, last + 64 * b);
  static const char* const kHex = "0123456789abcdef";
  std::string out(40, '0');
  for (int j = 0; j < 5; ++j) {
    for (int k = 0; k < 8; ++k) out[8 * j + k] = kHex[(h[j] >> (28 - 4 * k)) & 0xF];
  }
  return out;
}

}  // namespace locksim
