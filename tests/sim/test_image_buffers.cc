// ImageBuffers (sim/image_buffers.h): page-rounded buffers from aligned
// slabs, reused by page count; large ones mapped on their own; images of a
// SnapshotArena kept in them save and restore as with operator new.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "sim/image_buffers.h"
#include "sim/snapshot_arena.h"

namespace locksim {
namespace {

constexpr size_t kPage = ImageBuffers::kPageBytes;

TEST(ImageBuffers, BuffersArePageRoundedDisjointAndFromAlignedSlabs) {
  ImageBuffers buffers;
  size_t cap = 0;
  unsigned char* first = buffers.take(1, &cap);
  EXPECT_EQ(cap, kPage);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % ImageBuffers::kSlabBytes, 0u) << "a slab starts a huge page";
  unsigned char* second = buffers.take(kPage + 1, &cap);
  EXPECT_EQ(cap, 2 * kPage);
  EXPECT_EQ(second, first + kPage);
  std::memset(first, 0x11, kPage);
  std::memset(second, 0x22, 2 * kPage);
  EXPECT_EQ(first[kPage - 1], 0x11);
  EXPECT_EQ(second[0], 0x22);
  EXPECT_EQ(buffers.mapped_bytes(), ImageBuffers::kSlabBytes);
}

TEST(ImageBuffers, ABufferGivenBackServesTheSamePageCountAgain) {
  ImageBuffers buffers;
  size_t cap = 0;
  unsigned char* a = buffers.take(3 * kPage, &cap);
  buffers.give(a, cap);
  size_t other = 0;
  unsigned char* b = buffers.take(2 * kPage, &other);  // another page count: new space
  EXPECT_NE(b, a);
  unsigned char* c = buffers.take(3 * kPage - 100, &other);
  EXPECT_EQ(c, a);
  EXPECT_EQ(other, 3 * kPage);
}

TEST(ImageBuffers, AFullSlabLeavesItsRestForABufferOfThatSize) {
  ImageBuffers buffers;
  const size_t big = ImageBuffers::kLargeBytes;  // the largest a slab serves
  size_t cap = 0;
  std::set<unsigned char*> seen;
  for (int i = 0; i < 3; ++i) seen.insert(buffers.take(big, &cap));
  unsigned char* small = buffers.take(3 * kPage, &cap);  // the slab's last quarter
  seen.insert(small);
  EXPECT_EQ(buffers.mapped_bytes(), ImageBuffers::kSlabBytes);
  // The rest (a quarter less three pages) cannot take another big one: a
  // second slab, and the rest is kept for its page count.
  unsigned char* next = buffers.take(big, &cap);
  EXPECT_EQ(buffers.mapped_bytes(), 2 * ImageBuffers::kSlabBytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(next) % ImageBuffers::kSlabBytes, 0u);
  unsigned char* rest = buffers.take(big - 3 * kPage, &cap);
  EXPECT_EQ(rest, small + 3 * kPage);
  EXPECT_EQ(buffers.mapped_bytes(), 2 * ImageBuffers::kSlabBytes);
  seen.insert(next);
  seen.insert(rest);
  EXPECT_EQ(seen.size(), 6u);
}

TEST(ImageBuffers, ALargeBufferHasItsOwnMappingUntilGivenBack) {
  ImageBuffers buffers;
  size_t cap = 0;
  unsigned char* p = buffers.take(ImageBuffers::kLargeBytes + 1, &cap);
  EXPECT_EQ(cap, ImageBuffers::kLargeBytes + kPage);
  EXPECT_EQ(buffers.mapped_bytes(), cap);
  std::memset(p, 0x5a, cap);
  buffers.give(p, cap);
  EXPECT_EQ(buffers.mapped_bytes(), 0u);
}

TEST(ImageBuffers, ArenaImagesInThemSaveAndRestoreAndGiveTheirBufferBack) {
  ImageBuffers buffers;
  SnapshotArena arena;
  std::vector<std::string>* names = nullptr;
  {
    SnapshotArena::Scope scope(arena);
    names = new std::vector<std::string>{"a string longer than the small-string buffer"};
  }
  // (Out of line: the pointer escapes, so the compiler must read the
  // vector again after a restore.)
  ASSERT_TRUE(SnapshotArena::in_some_arena(names));
  const unsigned char* held = nullptr;
  {
    SnapshotArena::Image image(&buffers);
    arena.save_into(&image);
    EXPECT_EQ(image.bytes(), arena.used_bytes());
    held = static_cast<const unsigned char*>(image.data());
    {
      SnapshotArena::Scope scope(arena);
      names->push_back("another string longer than the small-string buffer");
    }
    SnapshotArena::Image moved = std::move(image);
    EXPECT_EQ(image.bytes(), 0u);  // NOLINT(bugprone-use-after-move): moved from is empty
    arena.restore(moved);
    ASSERT_EQ(names->size(), 1u);
    EXPECT_EQ(names->front(), "a string longer than the small-string buffer");
  }
  // Both images are gone: the buffer is handed out again.
  size_t cap = 0;
  EXPECT_EQ(buffers.take(arena.used_bytes(), &cap), held);
}

}  // namespace
}  // namespace locksim
