// RecentIds<Value>: the latest `capacity` distinct ids (release request ids),
// each with a value, forgotten oldest first. Checkers look up every release's
// request id among the last few hundred: a hash lookup, where a scan of the
// window compared every id. Memory: `capacity` ids and values, and a ring
// of their keys that grows to `capacity` as ids come (none before the
// first: the explorer copies checkers' memory whole, search/explore.h).
#pragma once

#include <cassert>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace locksim {

template <typename Value = std::monostate>
class RecentIds {
 public:
  explicit RecentIds(size_t capacity) : capacity_(capacity) { assert(capacity > 0); }

  // The value remembered with `id`, or null.
  const Value* find(std::string_view id) const {
    auto it = values_.find(id);
    return it == values_.end() ? nullptr : &it->second;
  }
  // Remembers a new id (not remembered yet) with its value, forgetting the
  // oldest id beyond the capacity.
  void add(std::string_view id, Value value = {}) {
    auto [it, inserted] = values_.emplace(std::string(id), std::move(value));
    assert(inserted && "RecentIds::add of an id already remembered");
    (void)inserted;
    // Node keys stay put across rehashing.
    if (order_.size() < capacity_) {
      order_.push_back(&it->first);
    } else {
      values_.erase(values_.find(*order_[oldest_]));
      order_[oldest_] = &it->first;
      oldest_ = (oldest_ + 1) % capacity_;
    }
    assert(order_.size() == values_.size());
  }
  // Whether `id` is remembered; remembers it if not.
  bool seen_before(std::string_view id) {
    if (find(id) != nullptr) return true;
    add(id);
    return false;
  }
  size_t size() const { return values_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  size_t capacity_;
  std::unordered_map<std::string, Value, Hash, std::equal_to<>> values_;
  // Keys of values_: oldest first from order_[oldest_], round the ring.
  std::vector<const std::string*> order_;
  size_t oldest_ = 0;
};

}  // namespace locksim
