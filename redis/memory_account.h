// MemoryAccount: one limit on the memory a run holds, shared by whatever
// holds it (the lua backend's Lua heaps and its key stores: every server of
// one run charges the same account).
//
// Contract:
//  - try_charge(n) adds n bytes and returns true when used + n stays within
//    the limit; otherwise it charges nothing, records that the limit was
//    reached (reached() stays true until clear_reached()) and returns false.
//  - release(n) gives back bytes charged before (never more than used).
//  - kUnlimited: no limit (the model backend's stores have no account at
//    all; an account without a limit only counts).
// Not thread-safe: one run, one thread. Holds no pointer: it may live in a
// copyable arena (sim/snapshot_arena.h) with the backend that owns it.
#pragma once

#include <cassert>
#include <cstddef>
#include <limits>

namespace locksim {

class MemoryAccount {
 public:
  static constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();

  explicit MemoryAccount(size_t limit_bytes = kUnlimited) : limit_bytes_(limit_bytes) {}

  bool try_charge(size_t bytes) {
    if (used_bytes_ > limit_bytes_ || bytes > limit_bytes_ - used_bytes_) {
      reached_ = true;
      return false;
    }
    used_bytes_ += bytes;
    return true;
  }
  // Charges past the limit too (housekeeping that must not fail); later
  // try_charge calls then refuse until enough is released.
  void charge_anyway(size_t bytes) { used_bytes_ += bytes; }
  void release(size_t bytes) {
    assert(bytes <= used_bytes_);
    used_bytes_ -= bytes;
  }

  size_t used_bytes() const { return used_bytes_; }
  size_t limit_bytes() const { return limit_bytes_; }
  bool reached() const { return reached_; }
  void clear_reached() { reached_ = false; }

 private:
  size_t limit_bytes_;
  size_t used_bytes_ = 0;
  bool reached_ = false;
};

}  // namespace locksim
