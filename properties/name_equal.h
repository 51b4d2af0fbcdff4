// same_name: equality of two owner ids or lock names, for the checkers'
// scans of fair lines. Owner ids ("<uuid>:<task>") have one length and
// differ in their first bytes, so std::string's == (length, then a call to
// memcmp) spends most of a scan in memcmp calls that a first 8-byte word
// settles inline. Same result as a == b.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace locksim {

inline bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.size() >= sizeof(uint64_t)) {
    uint64_t head_a = 0;
    uint64_t head_b = 0;
    std::memcpy(&head_a, a.data(), sizeof head_a);
    std::memcpy(&head_b, b.data(), sizeof head_b);
    if (head_a != head_b) return false;
  }
  return std::memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace locksim
