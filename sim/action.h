// Action: a move-only `void()` callable for the simulator's agenda. A
// callable of at most kInlineBytes (and alignment <= 16) is stored inside the
// Action itself, so scheduling it allocates nothing; a larger one goes to the
// heap, as std::function would put it. Unlike std::function it never copies
// the callable (move-only captures are fine) and is cheaper to move.
//
// Contract: calling an empty Action is an invariant violation. A moved-from
// Action is empty. Not thread-safe (nothing in the simulator is).
#pragma once

#include <cassert>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace locksim {

class Action {
 public:
  static constexpr size_t kInlineBytes = 88;

  Action() = default;

  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Action> &&
                                              std::is_invocable_r_v<void, std::decay_t<F>&>>>
  Action(F&& f) {  // NOLINT(google-explicit-constructor): lambdas convert, as to std::function
    using Fn = std::decay_t<F>;
    if constexpr (fits_inline<Fn>()) {
      ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
      ops_ = &kInlineOps<Fn>;
    } else {
      *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
      ops_ = &kHeapOps<Fn>;
    }
  }

  Action(Action&& other) noexcept { take(other); }
  Action& operator=(Action&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  Action(const Action&) = delete;
  Action& operator=(const Action&) = delete;
  ~Action() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }

  void operator()() {
    assert(ops_ != nullptr && "calling an empty Action");
    ops_->call(storage_);
  }

  void reset() {
    if (ops_ != nullptr) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    void (*call)(void* storage);
    void (*move)(void* to, void* from);  // constructs in `to`, destroys `from`
    void (*destroy)(void* storage);
  };

  template <class Fn>
  static constexpr bool fits_inline() {
    return sizeof(Fn) <= kInlineBytes && alignof(Fn) <= 16 && std::is_nothrow_move_constructible_v<Fn>;
  }

  template <class Fn>
  static constexpr Ops kInlineOps = {
      [](void* s) { (*std::launder(static_cast<Fn*>(s)))(); },
      [](void* to, void* from) {
        Fn* f = std::launder(static_cast<Fn*>(from));
        ::new (to) Fn(std::move(*f));
        f->~Fn();
      },
      [](void* s) { std::launder(static_cast<Fn*>(s))->~Fn(); },
  };

  template <class Fn>
  static constexpr Ops kHeapOps = {
      [](void* s) { (**static_cast<Fn**>(s))(); },
      [](void* to, void* from) { *static_cast<Fn**>(to) = *static_cast<Fn**>(from); },
      [](void* s) { delete *static_cast<Fn**>(s); },
  };

  void take(Action& other) {
    ops_ = other.ops_;
    if (ops_ != nullptr) {
      ops_->move(storage_, other.storage_);
      other.ops_ = nullptr;
    }
  }

  alignas(16) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace locksim
