// NamePairHash: hashes the checkers' keys made of a lock name and an owner
// id, or of a server index and a lock name, for unordered maps that are only
// looked up and pruned, never iterated for output (bucket order is not an
// order any report may show). Ordered maps of such pairs compared two long
// strings per tree level; a lookup here hashes each name once (KeyHash).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "model/key_hash.h"

namespace locksim {

struct NamePairHash {
  size_t operator()(const std::pair<std::string, std::string>& key) const {  // NOLINT(performance-noexcept-*): see KeyHash
    return mix(KeyHash{}(key.first), KeyHash{}(key.second));
  }
  size_t operator()(const std::pair<int, std::string>& key) const {  // NOLINT(performance-noexcept-*): see KeyHash
    return mix(static_cast<size_t>(static_cast<unsigned>(key.first)), KeyHash{}(key.second));
  }

 private:
  static size_t mix(size_t a, size_t b) { return a ^ (b + 0x9E3779B97F4A7C15ULL + (a << 6) + (a >> 2)); }
};

}  // namespace locksim
