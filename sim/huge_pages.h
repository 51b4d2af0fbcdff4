// Memory mapped for transparent huge pages: zero-filled anonymous memory
// at an address aligned to kHugePageBytes, advised MADV_HUGEPAGE, for
// large buffers made and dropped often (the explorer's checkpoint slabs,
// its fingerprint tables). A 4 KB page costs a fault on its first write;
// a huge page one fault for 2 MB (on a virtual machine a fault can cost as
// much as 10 µs). The advice is a hint: where the kernel does not follow
// it (THP disabled), the memory is ordinary pages and works the same.
#pragma once

#include <cstddef>

namespace locksim {

constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` of fresh anonymous memory (zero-filled, read-write), at any
// page boundary. Throws std::bad_alloc when it cannot be mapped.
unsigned char* map_anonymous(size_t bytes);
// `bytes` (a positive multiple of kHugePageBytes), zero-filled. Throws
// std::bad_alloc when it cannot be mapped.
unsigned char* map_huge_aligned(size_t bytes);
// Unmaps what map_huge_aligned(bytes) gave.
void unmap_huge_aligned(unsigned char* p, size_t bytes);

}  // namespace locksim
