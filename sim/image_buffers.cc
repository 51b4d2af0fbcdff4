#include "sim/image_buffers.h"

#include <sys/mman.h>

#include <cassert>

#include "sim/huge_pages.h"
#include "sim/snapshot_arena.h"

namespace locksim {

ImageBuffers::~ImageBuffers() {
  for (unsigned char* slab : slabs_) unmap_huge_aligned(slab, kSlabBytes);
}

unsigned char* ImageBuffers::take(size_t bytes, size_t* capacity) {
  assert(bytes > 0);
  const SnapshotArena::Pause outside;  // the bookkeeping is never an arena's
  const size_t cap = capacity_for(bytes);
  *capacity = cap;
  std::lock_guard<std::mutex> lock(mu_);
  if (cap > kLargeBytes) {
    unsigned char* p = map_anonymous(cap);
    large_bytes_ += cap;
    return p;
  }
  const size_t pages = cap / kPageBytes;
  if (pages < free_.size() && !free_[pages].empty()) {
    unsigned char* p = free_[pages].back();
    free_[pages].pop_back();
    return p;
  }
  if (static_cast<size_t>(end_ - next_) < cap) {
    if (free_.size() <= kLargeBytes / kPageBytes) free_.resize(kLargeBytes / kPageBytes + 1);
    slabs_.reserve(slabs_.size() + 1);  // before mapping: nothing to undo if it throws
    unsigned char* slab = map_huge_aligned(kSlabBytes);
    slabs_.push_back(slab);
    // The old slab's rest serves a later buffer of its size.
    const size_t rest_pages = static_cast<size_t>(end_ - next_) / kPageBytes;
    if (rest_pages > 0) free_[rest_pages].push_back(next_);
    next_ = slab;
    end_ = slab + kSlabBytes;
  }
  unsigned char* p = next_;
  next_ += cap;
  return p;
}

void ImageBuffers::give(unsigned char* p, size_t capacity) {
  if (p == nullptr) return;
  assert(capacity > 0 && capacity % kPageBytes == 0);
  const SnapshotArena::Pause outside;
  std::lock_guard<std::mutex> lock(mu_);
  if (capacity > kLargeBytes) {
    munmap(p, capacity);
    large_bytes_ -= capacity;
    return;
  }
  free_[capacity / kPageBytes].push_back(p);
}

size_t ImageBuffers::mapped_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return slabs_.size() * kSlabBytes + large_bytes_;
}

}  // namespace locksim
