#include "impl/backoff.h"

#include <algorithm>
#include <cassert>

namespace locksim {

namespace {

// splitmix64's finaliser, so that neighbouring draws spread out.
uint64_t mix(uint64_t draw) {
  uint64_t z = draw + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// r in [0, bound); 0 when bound <= 0.
int64_t below(int64_t bound, uint64_t draw) {
  if (bound <= 0) return 0;
  return static_cast<int64_t>(mix(draw) % static_cast<uint64_t>(bound));
}

}  // namespace

std::string_view backoff_name(BackoffKind kind) {
  return kind == BackoffKind::Exponential ? "exponential" : "constant";
}

std::optional<BackoffKind> backoff_from_name(std::string_view name) {
  if (name == "exponential") return BackoffKind::Exponential;
  if (name == "constant") return BackoffKind::Constant;
  return std::nullopt;
}

int64_t next_backoff_ms(BackoffKind kind, BackoffState* state, uint64_t draw) {
  assert(state->sleeps >= 0 && state->last_ms >= 0);
  int64_t sleep_ms = 0;
  if (kind == BackoffKind::Constant) {
    sleep_ms = kBackoffConstantMs + below(kBackoffConstantJitterMs, draw);
  } else if (state->sleeps == 0) {
    sleep_ms = kBackoffFirstMs;
  } else if (state->last_ms >= kBackoffMaxMs) {
    sleep_ms = kBackoffMaxMs;  // once at its cap it stays there
  } else {
    sleep_ms = std::min(kBackoffMaxMs, state->last_ms * kBackoffMultiplier + below(state->sleeps, draw));
  }
  state->last_ms = sleep_ms;
  ++state->sleeps;
  assert(sleep_ms >= 1 && sleep_ms <= backoff_max_sleep_ms(kind));
  return sleep_ms;
}

int64_t backoff_max_sleep_ms(BackoffKind kind) {
  return kind == BackoffKind::Constant ? kBackoffConstantMs + kBackoffConstantJitterMs - 1 : kBackoffMaxMs;
}

int64_t backoff_min_elapsed_ms(BackoffKind kind, int64_t attempt) {
  assert(attempt >= 1);
  const int64_t sleeps = attempt - 1;
  if (kind == BackoffKind::Constant) return kBackoffConstantMs * sleeps;
  // 1, 2, 4, ..., 64, then 128 every time: 2^n - 1 for the first n <= 8.
  constexpr int64_t kDoublings = 8;  // 1 .. 128
  if (sleeps <= kDoublings) return (int64_t{1} << sleeps) - 1;
  return ((int64_t{1} << kDoublings) - 1) + (sleeps - kDoublings) * kBackoffMaxMs;
}

int backoff_max_polls_per_second(BackoffKind kind) {
  // Every attempt whose smallest elapsed time from the first fits in 1 000 ms.
  int attempts = 1;  // the first, at 0
  while (backoff_min_elapsed_ms(kind, attempts + 1) <= 1000) ++attempts;
  return attempts;
}

}  // namespace locksim
