// ImageBuffers: memory for SnapshotArena images (sim/snapshot_arena.h)
// that many copies of one arena share, taken from slabs of kSlabBytes
// advised for transparent huge pages. The explorer keeps thousands of
// checkpoint images alive at once (tens of MB made in well under a
// second); from malloc, each of their 4 KB pages is faulted in on its
// first write, and on a virtual machine those faults cost as much as the
// search's own work. A huge page is faulted in once for 2 MB.
//
// Contract:
//  - take() gives a buffer of at least `bytes` (its capacity: `bytes`
//    rounded up to whole pages), give() takes it back with that capacity;
//    a buffer given back is handed out again for the same page count;
//  - a buffer larger than kLargeBytes has a mapping of its own, unmapped
//    when it is given back;
//  - the slabs are unmapped on destruction: every buffer must be given
//    back (or no longer used) by then;
//  - the huge-page advice is a hint: where the kernel does not follow it
//    (THP disabled), the slabs are ordinary pages and everything works the
//    same, only slower;
//  - thread-safe (one mutex); its own bookkeeping is malloc's, never an
//    arena's, whatever scope is open.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "sim/huge_pages.h"

namespace locksim {

class ImageBuffers {
 public:
  static constexpr size_t kPageBytes = 4096;
  static constexpr size_t kSlabBytes = kHugePageBytes;  // one huge page (sim/huge_pages.h)
  static constexpr size_t kLargeBytes = kSlabBytes / 4;

  ImageBuffers() = default;
  ~ImageBuffers();
  ImageBuffers(const ImageBuffers&) = delete;
  ImageBuffers& operator=(const ImageBuffers&) = delete;

  // A buffer of *capacity >= bytes bytes (bytes > 0). Throws
  // std::bad_alloc when no memory can be mapped.
  unsigned char* take(size_t bytes, size_t* capacity);
  // Back: `p` from take(), with the capacity it gave.
  void give(unsigned char* p, size_t capacity);
  // Memory mapped for buffers: the slabs and the large buffers' mappings.
  size_t mapped_bytes() const;

  static size_t capacity_for(size_t bytes) { return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes; }

 private:
  mutable std::mutex mu_;
  std::vector<unsigned char*> slabs_;
  unsigned char* next_ = nullptr;  // free space of the newest slab, up to end_
  unsigned char* end_ = nullptr;
  std::vector<std::vector<unsigned char*>> free_;  // per page count: buffers given back
  size_t large_bytes_ = 0;  // mapped by large buffers alive
};

}  // namespace locksim
