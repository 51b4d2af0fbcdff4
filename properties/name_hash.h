// NamePairHash: hashes the checkers' keys made of a lock name and an owner
// id, for unordered maps that are only
// looked up and pruned, never iterated for output (bucket order is not an
// order any report may show). Ordered maps of such pairs compared two long
// strings per tree level; a lookup here hashes each name once (KeyHash).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "redis/key_hash.h"

namespace locksim {

// Transparent, with NamePairEq: a lookup may name its key by views
// (NamePairView) instead of building a pair of strings, which copied the
// owner id (a heap allocation) on every event. (Server and lock pairs are
// integer keys: server_lock_key in properties/lock_table.h.)
using NamePairView = std::pair<std::string_view, std::string_view>;

struct NamePairHash {
  using is_transparent = void;
  size_t operator()(const NamePairView& key) const {  // NOLINT(performance-noexcept-*): see KeyHash
    return mix(KeyHash{}(key.first), KeyHash{}(key.second));
  }
  size_t operator()(const std::pair<std::string, std::string>& key) const {  // NOLINT(performance-noexcept-*)
    return (*this)(NamePairView(key.first, key.second));
  }

 private:
  static size_t mix(size_t a, size_t b) { return a ^ (b + 0x9E3779B97F4A7C15ULL + (a << 6) + (a >> 2)); }
};

// Compares a stored pair with a pair or a view of one, member by member.
struct NamePairEq {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return a.first == b.first && a.second == b.second;
  }
};

// map[key] and map.erase(key) for a map with NamePairHash and NamePairEq,
// named by a view (heterogeneous operator[] and erase are C++26 and C++23):
// the key's strings are copied only when an entry is added.
template <typename Map, typename View>
typename Map::mapped_type& slot_of(Map& map, const View& key) {
  auto it = map.find(key);
  if (it == map.end()) {
    it = map.emplace(typename Map::key_type(key.first, key.second), typename Map::mapped_type{}).first;
  }
  return it->second;
}
template <typename Map, typename View>
size_t erase_key(Map& map, const View& key) {
  auto it = map.find(key);
  if (it == map.end()) return 0;
  map.erase(it);
  return 1;
}

}  // namespace locksim
