#include "sim/bench_scenarios.h"

#include <cassert>
#include <charconv>

#include "model/variant.h"
#include "sim/model_backend.h"
#include "sim/simulator.h"

namespace locksim {

Scenario bench_contention_scenario(uint64_t seed, int clients, const Profile& profile,
                                   ScenarioLockKind lock_kind, int64_t duration_ms) {
  Scenario s;
  s.seed = seed;
  s.clients = clients;
  s.locks = 4;
  s.lock_kind = lock_kind;
  s.profile = profile;
  s.duration_ms = duration_ms;
  return s;
}

Scenario contention64_scenario(uint64_t seed, int64_t duration_ms) {
  return bench_contention_scenario(seed, 64, Profile::named("hostile"), ScenarioLockKind::Mixed, duration_ms);
}

Scenario checker_history_scenario(uint64_t seed) {
  return bench_contention_scenario(seed, 64, Profile(), ScenarioLockKind::Mixed, kMaxDurationMs);
}

ScriptCall bench_rlock_call(ScriptKind kind, const std::string& owner, const std::string& request_id) {
  ScriptCall c;
  c.kind = kind;
  c.params.lock = lock_name(0);
  c.params.owner = owner;
  c.params.channel = LockKeys::channel(c.params.lock);
  c.params.latch = LockKeys::latch(c.params.lock, request_id);
  c.params.lease_ms = 30'000;
  c.params.latch_ttl_ms = 10'000;
  return c;
}

uint64_t run_rlock_pairs(Backend& backend, uint64_t pairs, int64_t start_us, const std::function<void()>& new_run) {
  constexpr uint64_t kPairsPerRun = 100'000;  // 100 simulated seconds, about 30 MB of replies and holders
  const ScriptCall acquire = bench_rlock_call(ScriptKind::RlockAcquire, "A:1", "");
  ScriptCall release = bench_rlock_call(ScriptKind::RlockRelease, "A:1", "");
  // Every release names its own latch, LockKeys::latch(lock, "r<i>"), built
  // in place like a client that keeps its key prefix.
  const std::string latch_prefix = LockKeys::latch(release.params.lock, "r");
  ExecResult result;  // reused: the simulator's execute_into path
  uint64_t scripts = 0;
  for (uint64_t i = 0; i < pairs; ++i) {
    // A run's output is bounded (sim/script_output_bound.h): every
    // kPairsPerRun pairs the backend starts a new run, as a campaign's seeds do.
    if (i > 0 && i % kPairsPerRun == 0 && new_run) new_run();
    const int64_t now_us = start_us + static_cast<int64_t>(i % kPairsPerRun) * 1000;
    backend.execute_into(0, acquire, now_us, &result);
    char digits[24];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, i);
    assert(ec == std::errc());
    release.params.latch.assign(latch_prefix).append(digits, end);
    backend.execute_into(0, release, now_us, &result);
    scripts += 2;
  }
  assert(scripts == 2 * pairs);
  return scripts;
}

namespace {
class FirstEventsSink final : public EventSink {
 public:
  FirstEventsSink(uint64_t limit, const std::function<void(const Event&)>& each) : limit_(limit), each_(each) {}
  void attach(Simulator* sim) { sim_ = sim; }
  void on_event(const Event& e) override {
    if (seen_ == limit_) return;
    each_(e);
    if (++seen_ == limit_ && sim_ != nullptr) sim_->stop();
  }

 private:
  uint64_t limit_;
  const std::function<void(const Event&)>& each_;
  uint64_t seen_ = 0;
  Simulator* sim_ = nullptr;
};
}  // namespace

void run_first_events(const Scenario& s, uint64_t limit, const std::function<void(const Event&)>& each) {
  ModelBackend backend(s.servers, ModelVariant::Correct);
  FirstEventsSink sink(limit, each);
  Simulator sim(s, backend, sink);
  sink.attach(&sim);
  sim.run();
}

}  // namespace locksim
