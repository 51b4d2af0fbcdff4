// SnapshotArena: memory whose whole content can be copied out (an Image)
// and copied back, so that the objects living in it (a run of the
// simulator: its world, clients, store and checkers) go back to exactly the
// state they had, at the same addresses, pointers and closures included.
// The explorer (search/explore.h) starts its replays from copies (of
// the start, of checkpoints) instead of building a world and replaying
// every path from the start.
//
// How objects get into it: while a Scope is open on a thread, every
// operator new of that thread allocates in the arena (this file's .cc
// replaces the global operator new and delete; outside a Scope they are
// malloc and free). A Pause inside a Scope sends allocations back to
// malloc for a while (the explorer's own data, read out of a run).
//
// Contract, for what lives in an arena:
//  - it is built inside a Scope, after reset(), and never destroyed: reset()
//    and restore() drop it as it is (no destructor runs);
//  - it owns nothing outside the arena (no malloc'd buffer, no file, no
//    thread) and changes nothing outside it that matters to its behaviour;
//    it may point at memory outside that does not change while it lives
//    (a configuration, a plan);
//  - nothing outside holds a pointer into it once it is reset or restored,
//    except the caller's pointers to the objects it built (same addresses
//    in every image taken after they were built).
// A delete of arena memory outside a Scope of its arena is ignored (the
// image will be dropped whole). Allocation is deterministic: the same
// calls from the same image give the same addresses.
//
// The arenas of a process share one reserved address range (kMaxArenas
// slots of kCapacityBytes), reserved on first use: the one piece of
// process-wide state here, which operator delete needs to tell arena
// memory from malloc's. An arena is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace locksim {

class ImageBuffers;

class SnapshotArena {
 public:
  static constexpr size_t kCapacityBytes = size_t{1} << 28;  // virtual; pages are used as touched
  static constexpr size_t kMaxArenas = 64;

  // A copy of an arena's content. Its buffer comes from operator new, or
  // from an ImageBuffers (sim/image_buffers.h) given at construction, which
  // must outlive it.
  class Image {
   public:
    Image() = default;
    explicit Image(ImageBuffers* buffers) : buffers_(buffers) {}
    ~Image() { drop(); }
    Image(Image&& other) noexcept { *this = std::move(other); }
    Image& operator=(Image&& other) noexcept;
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;

    size_t bytes() const { return size_; }
    const void* data() const { return data_; }

   private:
    friend class SnapshotArena;
    void drop() noexcept;               // frees the buffer
    void reserve(size_t bytes);         // a buffer of at least `bytes`
    unsigned char* data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
    ImageBuffers* buffers_ = nullptr;   // null: operator new
  };

  // Opens the arena on this thread (nestable: the previous one, or none,
  // comes back on destruction).
  class Scope {
   public:
    explicit Scope(SnapshotArena& arena);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    SnapshotArena* previous_;
  };
  // Allocations of this thread go to malloc until destruction.
  class Pause {
   public:
    Pause();
    ~Pause();
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    SnapshotArena* previous_;
  };

  // Throws std::bad_alloc when every slot is taken or the range cannot be
  // reserved.
  SnapshotArena();
  ~SnapshotArena();
  SnapshotArena(const SnapshotArena&) = delete;
  SnapshotArena& operator=(const SnapshotArena&) = delete;

  // Empty: everything in it is dropped.
  void reset();
  // A copy of the content (taken outside any scope: the copy is malloc's).
  Image save() const;
  // The same into *into, reusing its buffer when it is large enough.
  void save_into(Image* into) const;
  // Back to `image`, which save() of this arena made.
  void restore(const Image& image);
  // Bytes in use, from the start of the arena (what save() copies).
  size_t used_bytes() const;

  // Used by the replaced operator new and delete.
  void* allocate(size_t bytes, size_t alignment);
  void release(void* p);
  bool contains(const void* p) const { return p >= base_ && p < base_ + kCapacityBytes; }
  static SnapshotArena* current();
  static bool in_some_arena(const void* p);

 private:
  struct Header;
  Header& header() const;
  // A new block of `payload` bytes at the end of the used part.
  void* carve(size_t payload, uint32_t size_class);

  unsigned char* base_ = nullptr;
  size_t slot_ = 0;
};

}  // namespace locksim
