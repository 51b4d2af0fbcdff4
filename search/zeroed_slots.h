// ZeroedSlots<T>: the slot array of the explorer's open-addressing tables
// (search/visited_set.h, search/chain_marks.h): a fixed number of T, all
// zero bytes at first (a zero slot is an empty one). An array of
// kHugePageBytes or more is mapped for huge pages (sim/huge_pages.h): the
// kernel hands it out zero-filled (no clearing pass) and faults it in 2 MB
// at a time (the tables double while the search runs, and each doubling
// is fresh memory); a smaller one is calloc's. Move-only; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "sim/huge_pages.h"

namespace locksim {

// Where the tables' probing for a 64-bit fingerprint starts (masked to
// their power-of-two size): the digests are already mixed; folding the
// high bits in spreads digests that differ only there.
inline size_t first_slot_hash(uint64_t digest) { return static_cast<size_t>(digest ^ (digest >> 29)); }

template <class T>
class ZeroedSlots {
  static_assert(std::is_trivially_copyable_v<T>, "slots are cleared and copied as bytes");

 public:
  ZeroedSlots() = default;
  explicit ZeroedSlots(size_t count) : count_(count) {
    const size_t bytes = count * sizeof(T);
    if (bytes >= kHugePageBytes && bytes % kHugePageBytes == 0) {
      data_ = reinterpret_cast<T*>(map_huge_aligned(bytes));
      mapped_ = true;
    } else {
      data_ = static_cast<T*>(std::calloc(count, sizeof(T)));
      if (data_ == nullptr && count > 0) throw std::bad_alloc();
    }
  }
  ~ZeroedSlots() { drop(); }
  ZeroedSlots(ZeroedSlots&& other) noexcept { swap(other); }
  ZeroedSlots& operator=(ZeroedSlots&& other) noexcept {
    ZeroedSlots gone(std::move(other));
    swap(gone);
    return *this;
  }
  ZeroedSlots(const ZeroedSlots&) = delete;
  ZeroedSlots& operator=(const ZeroedSlots&) = delete;

  void swap(ZeroedSlots& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    std::swap(mapped_, other.mapped_);
  }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + count_; }
  // Every slot back to zero bytes.
  void clear() {
    if (count_ > 0) std::memset(static_cast<void*>(data_), 0, bytes());
  }

 private:
  void drop() noexcept {
    if (mapped_) {
      unmap_huge_aligned(reinterpret_cast<unsigned char*>(data_), bytes());
    } else {
      std::free(data_);
    }
    data_ = nullptr;
    count_ = 0;
    mapped_ = false;
  }

  T* data_ = nullptr;
  size_t count_ = 0;
  bool mapped_ = false;
};

}  // namespace locksim
