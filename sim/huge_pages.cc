#include "sim/huge_pages.h"

#include <sys/mman.h>

#include <cassert>
#include <cstdint>
#include <new>

namespace locksim {

unsigned char* map_anonymous(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<unsigned char*>(p);
}

unsigned char* map_huge_aligned(size_t bytes) {
  assert(bytes > 0 && bytes % kHugePageBytes == 0);
  // One huge page more than asked, trimmed to an aligned range: a huge
  // page must start on a multiple of its size.
  const size_t raw_bytes = bytes + kHugePageBytes;
  unsigned char* raw = map_anonymous(raw_bytes);
  const auto at = reinterpret_cast<uintptr_t>(raw);
  unsigned char* aligned = raw + (kHugePageBytes - at % kHugePageBytes) % kHugePageBytes;
  if (aligned > raw) munmap(raw, static_cast<size_t>(aligned - raw));
  unsigned char* tail = aligned + bytes;
  if (tail < raw + raw_bytes) munmap(tail, static_cast<size_t>(raw + raw_bytes - tail));
  madvise(aligned, bytes, MADV_HUGEPAGE);  // a hint (see the header)
  return aligned;
}

void unmap_huge_aligned(unsigned char* p, size_t bytes) {
  if (p != nullptr) munmap(p, bytes);
}

}  // namespace locksim
