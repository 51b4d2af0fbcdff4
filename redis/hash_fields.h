// HashFields: the fields of one Redis hash, in insertion order (the order a
// small Redis hash, a listpack, keeps, and the order every trace and test
// of a lock hash shows), at a constant cost per operation however many
// fields it holds.
//
// Contract:
//  - find / set / add / erase cost amortised O(1): a hash of up to
//    kScanFields fields is scanned (a lock has one or two), a larger one
//    also keeps an index (open addressing over positions, by the field's
//    hash). An erased field leaves a hole that iteration skips; the holes
//    are squeezed out once they outnumber the fields (order kept).
//  - Iteration (begin/end, for (const Entry& e : hash)) visits the live
//    fields in insertion order; a field set again keeps its place.
//  - Pointers to entries (find) stay valid until the next add or erase.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

class HashFields {
 public:
  struct Entry {
    std::string field;
    std::string value;
    bool live = true;
  };
  static constexpr size_t kScanFields = 16;

  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  Entry* find(std::string_view field);
  const Entry* find(std::string_view field) const;
  // A new field (the caller checked it is absent): its entry, value empty.
  Entry& add(std::string_view field);
  // Removes a field; false if absent.
  bool erase(std::string_view field);
  void clear();

  class const_iterator {
   public:
    const_iterator(const Entry* at, const Entry* end) : at_(at), end_(end) { skip(); }
    const Entry& operator*() const { return *at_; }
    const Entry* operator->() const { return at_; }
    const_iterator& operator++() {
      ++at_;
      skip();
      return *this;
    }
    bool operator==(const const_iterator& o) const { return at_ == o.at_; }
    bool operator!=(const const_iterator& o) const { return at_ != o.at_; }

   private:
    void skip() {
      while (at_ != end_ && !at_->live) ++at_;
    }
    const Entry* at_;
    const Entry* end_;
  };
  const_iterator begin() const { return {entries_.data(), entries_.data() + entries_.size()}; }
  const_iterator end() const { return {entries_.data() + entries_.size(), entries_.data() + entries_.size()}; }

 private:
  static constexpr uint32_t kEmptySlot = 0xFFFFFFFFu;
  static constexpr uint32_t kErasedSlot = 0xFFFFFFFEu;
  // The slot holding position `pos`'s field, or where `field` would go;
  // -1 when the index is off.
  size_t slot_of(std::string_view field) const;
  void rebuild_index();  // after compaction or growth
  void compact();        // squeezes the holes out, order kept

  std::vector<Entry> entries_;  // insertion order, holes included
  size_t live_ = 0;
  std::vector<uint32_t> slots_;  // empty: no index (a small hash)
  size_t slots_used_ = 0;        // slots not kEmptySlot (erased ones included)
};

}  // namespace locksim
