#include "sim/snapshot_arena.h"

#include <sys/mman.h>

#include <atomic>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "sim/image_buffers.h"

namespace locksim {

namespace {

// Blocks of up to kSmallBytes come in size classes of 16-byte steps, each
// with a free list; larger ones have their exact size (16-byte multiple)
// and share one free list, taken first fit within twice the size asked.
constexpr size_t kSmallBytes = 512;
constexpr size_t kSmallClasses = kSmallBytes / 16;
constexpr size_t kPrefixBytes = 16;
constexpr uint32_t kLargeMark = 0xfffffffeu;
constexpr uint32_t kAlignedMark = 0xffffffffu;
constexpr uint64_t kMagic = 0x6c6f636b73696d41ull;  // "locksimA"

// Before every block's payload.
struct Prefix {
  uint32_t size_class;  // kLargeMark: a large block of `size` bytes;
                        // kAlignedMark: an aligned payload, `size` bytes after its block's
  uint32_t size;
  uint64_t magic;
};
static_assert(sizeof(Prefix) == kPrefixBytes);

Prefix* prefix_of(void* payload) { return reinterpret_cast<Prefix*>(static_cast<unsigned char*>(payload) - kPrefixBytes); }

// The process-wide reserved range and its slots (constant-initialized:
// operator delete reads the base before any arena exists).
struct Region {
  std::mutex mu;
  std::atomic<unsigned char*> base{nullptr};
  bool taken[SnapshotArena::kMaxArenas] = {};
};
constinit Region g_region;
constexpr size_t kRegionBytes = SnapshotArena::kMaxArenas * SnapshotArena::kCapacityBytes;

thread_local SnapshotArena* t_current = nullptr;

}  // namespace

struct SnapshotArena::Header {
  size_t used = 0;  // bytes from the arena's start, this header included
  void* free_small[kSmallClasses] = {};  // payloads; each holds the next
  void* free_large = nullptr;
};

SnapshotArena::SnapshotArena() {
  Region& r = g_region;
  std::lock_guard<std::mutex> lock(r.mu);
  unsigned char* base = r.base.load();
  if (base == nullptr) {
    void* p = mmap(nullptr, kRegionBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base = static_cast<unsigned char*>(p);
    r.base.store(base);
  }
  size_t slot = 0;
  while (slot < kMaxArenas && r.taken[slot]) ++slot;
  if (slot == kMaxArenas) throw std::bad_alloc();
  unsigned char* mine = base + slot * kCapacityBytes;
  if (mprotect(mine, kCapacityBytes, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
  r.taken[slot] = true;
  slot_ = slot;
  base_ = mine;
  reset();
}

SnapshotArena::~SnapshotArena() {
  assert(t_current != this && "an arena destroyed inside its own scope");
  madvise(base_, kCapacityBytes, MADV_DONTNEED);
  mprotect(base_, kCapacityBytes, PROT_NONE);
  Region& r = g_region;
  std::lock_guard<std::mutex> lock(r.mu);
  r.taken[slot_] = false;
}

SnapshotArena::Header& SnapshotArena::header() const { return *reinterpret_cast<Header*>(base_); }

void SnapshotArena::reset() {
  new (base_) Header();
  header().used = (sizeof(Header) + kPrefixBytes - 1) / kPrefixBytes * kPrefixBytes;
}

size_t SnapshotArena::used_bytes() const { return header().used; }

SnapshotArena::Image SnapshotArena::save() const {
  Image image;
  save_into(&image);
  return image;
}

SnapshotArena::Image& SnapshotArena::Image::operator=(Image&& other) noexcept {
  if (this != &other) {
    drop();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    buffers_ = other.buffers_;
  }
  return *this;
}

void SnapshotArena::Image::drop() noexcept {
  if (data_ == nullptr) return;
  if (buffers_ != nullptr) {
    buffers_->give(data_, capacity_);
  } else {
    delete[] data_;
  }
  data_ = nullptr;
  size_ = 0;
  capacity_ = 0;
}

void SnapshotArena::Image::reserve(size_t bytes) {
  if (capacity_ >= bytes) return;
  drop();
  const Pause outside;  // the copy's buffer is never the arena's
  if (buffers_ != nullptr) {
    // A quarter more room: an image in a pool is saved into again and
    // again, and the states of a search grow as it goes deeper (the rlock
    // exploration's from 12 to 36 KB). A buffer fitted to a shallower one
    // would be given back and never fit again: the pool mapped twice the
    // images' peak.
    data_ = buffers_->take(bytes + bytes / 4, &capacity_);
  } else {
    data_ = new unsigned char[bytes];
    capacity_ = bytes;
  }
}

void SnapshotArena::save_into(Image* into) const {
  const size_t used = used_bytes();
  into->reserve(used);
  into->size_ = used;
  std::memcpy(into->data_, base_, used);
}

void SnapshotArena::restore(const Image& image) {
  assert(image.size_ >= sizeof(Header) && image.size_ <= kCapacityBytes);
  std::memcpy(base_, image.data_, image.size_);
}

void* SnapshotArena::allocate(size_t bytes, size_t alignment) {
  if (alignment > kPrefixBytes) {
    // Room for the payload at any alignment, and a second prefix before it.
    auto* raw = static_cast<unsigned char*>(allocate(bytes + alignment + kPrefixBytes, kPrefixBytes));
    const auto at = reinterpret_cast<uintptr_t>(raw + kPrefixBytes);
    auto* p = reinterpret_cast<unsigned char*>((at + alignment - 1) / alignment * alignment);
    *prefix_of(p) = Prefix{kAlignedMark, static_cast<uint32_t>(p - raw), kMagic};
    return p;
  }
  Header& h = header();
  const size_t payload = bytes == 0 ? 16 : (bytes + 15) / 16 * 16;
  if (payload <= kSmallBytes) {
    const size_t c = payload / 16 - 1;
    if (void* head = h.free_small[c]) {
      std::memcpy(&h.free_small[c], head, sizeof(void*));
      return head;
    }
    return carve(payload, static_cast<uint32_t>(c));
  }
  void** link = &h.free_large;
  while (*link != nullptr) {
    void* block = *link;
    const size_t size = prefix_of(block)->size;
    if (size >= payload && size <= 2 * payload) {
      std::memcpy(link, block, sizeof(void*));
      return block;
    }
    link = static_cast<void**>(block);
  }
  return carve(payload, kLargeMark);
}

void* SnapshotArena::carve(size_t payload, uint32_t size_class) {
  Header& h = header();
  if (payload > kCapacityBytes || kPrefixBytes + payload > kCapacityBytes - h.used) throw std::bad_alloc();
  unsigned char* block = base_ + h.used;
  h.used += kPrefixBytes + payload;
  *reinterpret_cast<Prefix*>(block) = Prefix{size_class, static_cast<uint32_t>(payload), kMagic};
  return block + kPrefixBytes;
}

void SnapshotArena::release(void* p) {
  auto* payload = static_cast<unsigned char*>(p);
  const Prefix* prefix = prefix_of(payload);
  assert(prefix->magic == kMagic && "freeing arena memory that is no block");
  if (prefix->size_class == kAlignedMark) {
    payload -= prefix->size;
    prefix = prefix_of(payload);
    assert(prefix->magic == kMagic && prefix->size_class != kAlignedMark);
  }
  Header& h = header();
  void** head = prefix->size_class == kLargeMark ? &h.free_large : &h.free_small[prefix->size_class];
  assert(prefix->size_class == kLargeMark || prefix->size_class < kSmallClasses);
  std::memcpy(payload, head, sizeof(void*));
  *head = payload;
}

SnapshotArena* SnapshotArena::current() { return t_current; }

bool SnapshotArena::in_some_arena(const void* p) {
  const unsigned char* base = g_region.base.load(std::memory_order_relaxed);
  return base != nullptr && p >= base && p < base + kRegionBytes;
}

SnapshotArena::Scope::Scope(SnapshotArena& arena) : previous_(t_current) { t_current = &arena; }
SnapshotArena::Scope::~Scope() { t_current = previous_; }
SnapshotArena::Pause::Pause() : previous_(t_current) { t_current = nullptr; }
SnapshotArena::Pause::~Pause() { t_current = previous_; }

}  // namespace locksim

// The replaced global allocation functions (see the header): the current
// arena of the thread, else malloc.
namespace {

void* allocate_or_throw(size_t bytes, size_t alignment) {
  if (locksim::SnapshotArena* arena = locksim::t_current) return arena->allocate(bytes, alignment);
  if (bytes == 0) bytes = 1;
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(bytes);
  } else {
    p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  }
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* allocate_or_null(size_t bytes, size_t alignment) noexcept {
  try {
    return allocate_or_throw(bytes, alignment);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

// jemalloc's sized free, when the program is linked with it: faster than
// free(), which must look the size up.
extern "C" void sdallocx(void* p, size_t size, int flags) __attribute__((weak));

// Frees p (of `size` bytes when known, else 0).
void deallocate(void* p, size_t size = 0) noexcept {
  if (p == nullptr) return;
  locksim::SnapshotArena* current = locksim::t_current;
  if (current != nullptr && current->contains(p)) {  // the common case inside a scope
    current->release(p);
    return;
  }
  if (locksim::SnapshotArena::in_some_arena(p)) return;  // outside its arena's scope: dropped with the arena's image
  if (size != 0 && sdallocx != nullptr) {
    sdallocx(p, size, 0);
    return;
  }
  std::free(p);
}

constexpr size_t kPlain = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

}  // namespace

void* operator new(size_t n) { return allocate_or_throw(n, kPlain); }
void* operator new[](size_t n) { return allocate_or_throw(n, kPlain); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return allocate_or_null(n, kPlain); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return allocate_or_null(n, kPlain); }
void* operator new(size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<size_t>(a)); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, static_cast<size_t>(a));
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, static_cast<size_t>(a));
}
void operator delete(void* p) noexcept { deallocate(p); }
void operator delete[](void* p) noexcept { deallocate(p); }
void operator delete(void* p, size_t n) noexcept { deallocate(p, n); }
void operator delete[](void* p, size_t n) noexcept { deallocate(p, n); }
void operator delete(void* p, const std::nothrow_t&) noexcept { deallocate(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { deallocate(p); }
void operator delete(void* p, std::align_val_t) noexcept { deallocate(p); }
void operator delete[](void* p, std::align_val_t) noexcept { deallocate(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { deallocate(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { deallocate(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { deallocate(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { deallocate(p); }
