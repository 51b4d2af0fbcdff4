// ClientConfig::fair_slot_fixed_ms: the fair-lock slot is that long whatever
// the caller's wait (older versions: 5 s); 0 keeps the caller's wait.
#include <gtest/gtest.h>

#include <string>

#include "sim/model_backend.h"
#include "sim/world.h"
#include "tests/sim/sim_harness.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

constexpr int64_t kMs = 1000;  // µs per ms

// A holds the fair lock; B waits with tryLock(60 s). Returns B's deadline score.
double waiter_deadline(int64_t fair_slot_fixed_ms) {
  ModelBackend backend{1};
  VectorSink sink;
  WorldConfig wc;
  wc.seed = 7;
  wc.clients = 2;
  wc.link = LinkProfile{1000, 1000, 0.0, 0, 0.0};
  wc.client.fair_slot_fixed_ms = fair_slot_fixed_ms;
  World w(wc, backend, sink);
  testing::Steps steps;
  steps.attach(w);
  const LockSpec lock{"lsim:F", LockKind::Fair, 0, {}};
  steps.at(0, [&] { w.client(0).lock(1, lock, -1, nullptr); });
  steps.at(100 * kMs, [&] { w.client(1).try_lock(1, lock, 60'000, -1, nullptr); });
  w.run_until(200 * kMs);
  for (const KeyState& k : backend.snapshot(0, w.server_now_us(0))) {
    if (k.key != LockKeys::deadlines("lsim:F")) continue;
    const size_t colon = k.value.rfind(':');
    return std::stod(k.value.substr(colon + 1));
  }
  ADD_FAILURE() << "no deadlines key";
  return 0;
}

TEST(ClientFixedSlot, SlotIsFixedWhateverTheWait) {
  const double by_wait = waiter_deadline(0);
  const double fixed = waiter_deadline(5'000);
  EXPECT_EQ(by_wait - fixed, 60'000.0 - 5'000.0);
}

}  // namespace
}  // namespace locksim
