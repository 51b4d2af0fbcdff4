// Backoff: how a spin lock's refused waiter sleeps before it tries again
// (lock-semantics.md section 4b). Nobody publishes a spin lock's release, so
// the back-off alone decides how soon a waiter sees a free lock and how hard
// it polls.
//
//   exponential (the default)  the first sleep is 1 ms; each next one is
//                              min(128, previous * 2 + r), r drawn in
//                              [0, sleeps so far); once at 128 ms it stays.
//   constant                   64 ms + r, r drawn in [0, 8), every time.
//
// The draws are the caller's (a 64-bit value derived deterministically, e.g.
// from the client, the operation and the round); next_backoff_ms only maps
// them. Plain data and pure functions; read from its name once at the edge.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace locksim {

enum class BackoffKind { Exponential, Constant };

inline constexpr int64_t kBackoffFirstMs = 1;
inline constexpr int64_t kBackoffMultiplier = 2;
inline constexpr int64_t kBackoffMaxMs = 128;
inline constexpr int64_t kBackoffConstantMs = 64;
inline constexpr int64_t kBackoffConstantJitterMs = 8;  // r in [0, 8)

// "exponential", "constant".
std::string_view backoff_name(BackoffKind kind);
std::optional<BackoffKind> backoff_from_name(std::string_view name);

// One waiter's back-off so far: the last sleep and how many sleeps it took.
struct BackoffState {
  int64_t last_ms = 0;  // 0: no sleep yet
  int64_t sleeps = 0;
  // Whether the sequence no longer depends on `sleeps` (exponential at its
  // cap; constant always): two states that are both saturated and have
  // the same last_ms sleep alike from now on.
  bool saturated(BackoffKind kind) const {
    return kind == BackoffKind::Constant || last_ms >= kBackoffMaxMs;
  }
  bool operator==(const BackoffState&) const = default;
};

// The next sleep, advancing *state. Always >= 1 and <= backoff_max_sleep_ms.
int64_t next_backoff_ms(BackoffKind kind, BackoffState* state, uint64_t draw);
// The longest sleep the back-off can draw.
int64_t backoff_max_sleep_ms(BackoffKind kind);
// The most attempts a waiter can make in any 1 000 ms (each attempt at
// least one smallest sleep after the last; the sleeps never shrink, so the
// first second is the densest): the busy_poll bound of a spin waiter.
int backoff_max_polls_per_second(BackoffKind kind);
// The least time a waiter's back-off puts between its first attempt and
// its attempt number `attempt` (1: the first, 0 ms): the sum of the
// smallest sleeps before it (every draw 0).
int64_t backoff_min_elapsed_ms(BackoffKind kind, int64_t attempt);

}  // namespace locksim
