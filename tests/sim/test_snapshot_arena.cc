// SnapshotArena (sim/snapshot_arena.h): objects built in an arena come back
// exactly, at the same addresses, after a restore; allocation from one
// image is deterministic; memory outside a scope is malloc's.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "sim/snapshot_arena.h"

namespace locksim {
namespace {

// Something like a run: containers, strings and a closure that points into
// the same arena.
struct Thing {
  std::map<int, std::string> names;
  std::vector<uint64_t> numbers;
  int calls = 0;
  std::function<void()> bump;
};

TEST(SnapshotArena, RestoreBringsBackEveryObjectAtItsAddress) {
  SnapshotArena arena;
  Thing* thing = nullptr;
  {
    SnapshotArena::Scope scope(arena);
    thing = new Thing();
    thing->names[1] = "a name longer than the small-string buffer";
    thing->numbers.assign(100, 7);
    thing->bump = [thing] { thing->calls++; };
  }
  EXPECT_TRUE(arena.contains(thing));
  const SnapshotArena::Image image = arena.save();
  EXPECT_EQ(image.bytes(), arena.used_bytes());
  {
    SnapshotArena::Scope scope(arena);
    thing->names[2] = "another name, also longer than the small-string buffer";
    thing->numbers.resize(5000, 9);
    thing->bump();
    thing->names.erase(1);
  }
  EXPECT_EQ(thing->calls, 1);
  arena.restore(image);
  EXPECT_EQ(thing->calls, 0);
  ASSERT_EQ(thing->names.size(), 1u);
  EXPECT_EQ(thing->names.at(1), "a name longer than the small-string buffer");
  EXPECT_EQ(thing->numbers, std::vector<uint64_t>(100, 7));
  {
    SnapshotArena::Scope scope(arena);
    thing->bump();  // the closure's pointer is still right
    thing->names[3] = "works after a restore too, and allocates again";
  }
  EXPECT_EQ(thing->calls, 1);
  EXPECT_EQ(thing->names.size(), 2u);
}

// An image saved into again takes the arena's content of then (its buffer
// reused or grown), never the arena's memory itself.
TEST(SnapshotArena, SaveIntoAnImageAgain) {
  SnapshotArena arena;
  std::vector<int>* v = nullptr;
  {
    SnapshotArena::Scope scope(arena);
    v = new std::vector<int>(10, 1);
  }
  SnapshotArena::Image image;
  arena.save_into(&image);
  const size_t small = image.bytes();
  {
    SnapshotArena::Scope scope(arena);
    v->assign(5000, 2);
    arena.save_into(&image);  // inside a scope: the copy is still malloc's
  }
  EXPECT_GT(image.bytes(), small);
  EXPECT_FALSE(SnapshotArena::in_some_arena(image.data()));
  {
    SnapshotArena::Scope scope(arena);
    v->assign(3, 3);
  }
  arena.restore(image);
  EXPECT_EQ(*v, std::vector<int>(5000, 2));
  arena.save_into(&image);
  arena.restore(image);
  EXPECT_EQ(*v, std::vector<int>(5000, 2));
}

TEST(SnapshotArena, SameCallsFromOneImageGiveTheSameAddresses) {
  SnapshotArena arena;
  std::vector<int>* v = nullptr;
  {
    SnapshotArena::Scope scope(arena);
    v = new std::vector<int>(10, 1);
  }
  const SnapshotArena::Image image = arena.save();
  auto grow = [&] {
    SnapshotArena::Scope scope(arena);
    v->resize(1000);
    auto* s = new std::string(300, 'x');
    delete s;  // back to a free list, taken again below
    return std::make_pair(static_cast<const void*>(v->data()), static_cast<const void*>(new std::string(300, 'y')));
  };
  const auto first = grow();
  arena.restore(image);
  const auto second = grow();
  EXPECT_EQ(first, second);
  arena.restore(image);
  EXPECT_EQ(v->size(), 10u);
}

// (Assertions stay outside the scopes: a failure's message must not live
// in the arena.)
TEST(SnapshotArena, FreedBlocksAreReusedSmallAndLarge) {
  SnapshotArena arena;
  void* small = nullptr;
  void* small_again = nullptr;
  void* large = nullptr;
  void* large_again = nullptr;
  void* bigger = nullptr;
  size_t used = 0;
  {
    SnapshotArena::Scope scope(arena);
    small = ::operator new(40);
    ::operator delete(small);
    small_again = ::operator new(33);  // same 48-byte class
    large = ::operator new(10'000);
    ::operator delete(large);
    large_again = ::operator new(9'000);  // first fit within twice the size
    used = arena.used_bytes();
    bigger = ::operator new(30'000);  // too large for the freed block: new memory
  }
  EXPECT_EQ(small_again, small);
  EXPECT_EQ(large_again, large);
  EXPECT_NE(bigger, large);
  EXPECT_GE(arena.used_bytes(), used + 30'000);
}

TEST(SnapshotArena, OverAlignedAllocationsAreAligned) {
  struct alignas(64) Wide {
    char bytes[64];
  };
  SnapshotArena arena;
  uintptr_t first = 0;
  bool first_inside = false;
  Wide* again = nullptr;
  {
    SnapshotArena::Scope scope(arena);
    auto* w = new Wide();
    first = reinterpret_cast<uintptr_t>(w);
    first_inside = arena.contains(w);
    delete w;
    again = new Wide();
  }
  EXPECT_TRUE(first_inside);
  EXPECT_EQ(first % 64, 0u);
  EXPECT_TRUE(arena.contains(again));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(again) % 64, 0u);
}

TEST(SnapshotArena, OutsideAScopeOrInAPauseMemoryIsMalloc) {
  SnapshotArena arena;
  auto* outside = new int(1);
  EXPECT_FALSE(SnapshotArena::in_some_arena(outside));
  delete outside;
  std::string* inside = nullptr;
  const void* paused_string = nullptr;
  const void* paused_chars = nullptr;
  const SnapshotArena* current_in_scope = nullptr;
  const SnapshotArena* current_in_pause = &arena;
  {
    SnapshotArena::Scope scope(arena);
    current_in_scope = SnapshotArena::current();
    inside = new std::string(100, 'z');
    {
      SnapshotArena::Pause pause;
      current_in_pause = SnapshotArena::current();
      auto* paused = new std::string(100, 'p');
      paused_string = paused;
      paused_chars = paused->data();
      EXPECT_FALSE(SnapshotArena::in_some_arena(paused_string));  // malloc memory: safe to report
      EXPECT_FALSE(SnapshotArena::in_some_arena(paused_chars));
      delete paused;
    }
  }
  EXPECT_EQ(current_in_scope, &arena);
  EXPECT_EQ(current_in_pause, nullptr);
  EXPECT_EQ(SnapshotArena::current(), nullptr);
  EXPECT_TRUE(SnapshotArena::in_some_arena(inside));
  EXPECT_TRUE(SnapshotArena::in_some_arena(inside->data()));
  const uintptr_t where = reinterpret_cast<uintptr_t>(inside);
  const size_t used = arena.used_bytes();
  delete inside;  // outside its scope: ignored (not put back on a free list)
  EXPECT_EQ(arena.used_bytes(), used);
  uintptr_t next = 0;
  {
    SnapshotArena::Scope scope(arena);
    next = reinterpret_cast<uintptr_t>(new std::string());
  }
  EXPECT_NE(next, where);
}

TEST(SnapshotArena, TwoArenasAreApartAndResetEmpties) {
  SnapshotArena one;
  SnapshotArena two;
  int* a = nullptr;
  int* b = nullptr;
  {
    SnapshotArena::Scope scope(one);
    a = new int(1);
  }
  {
    SnapshotArena::Scope scope(two);
    b = new int(2);
  }
  EXPECT_TRUE(one.contains(a));
  EXPECT_FALSE(one.contains(b));
  EXPECT_TRUE(two.contains(b));
  const size_t empty_before = one.used_bytes();
  one.reset();
  EXPECT_LT(one.used_bytes(), empty_before);
  int* first_again = nullptr;
  {
    SnapshotArena::Scope scope(one);
    first_again = new int(3);
  }
  EXPECT_EQ(first_again, a);  // the first block again
}

}  // namespace
}  // namespace locksim
