// Bench scenarios: the fixed, documented workloads that `locksim bench` and
// the Google Benchmark programs under bench/ measure, defined once so both
// measure the same thing.
//   contention-64   64 clients, 4 locks, "mixed" (even locks reentrant, odd
//                   locks fair: half fair), "hostile" faults, one simulated
//                   hour (bench_contention_scenario with other sizes for
//                   bench/bench_sim.cc);
//   checker history 64 clients, 4 mixed locks, no faults: a history as long
//                   as wanted (hostile clients crash for good within hours,
//                   and safe or pauses faults set 40 fair waiters polling:
//                   2 KB of trace per event);
//   rlock pairs     one client's acquire + release of one reentrant lock,
//                   1 ms of server time apart, each release with a fresh
//                   latch key: the same script calls on any Backend (model or
//                   live), so their execution rates compare directly.
// Everything here is deterministic: same arguments, same scenario, same calls.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "model/script_call.h"
#include "sim/backend.h"
#include "sim/scenario.h"
#include "traces/event_sink.h"

namespace locksim {

constexpr int64_t kBenchHourMs = 3'600'000;
// Server time of the first rlock pair (µs; late 2023).
constexpr int64_t kBenchStartUs = 1'700'000'000'000'000;

// `clients` clients on 4 locks of `lock_kind` under `profile`, new operations
// for `duration_ms` of virtual time.
Scenario bench_contention_scenario(uint64_t seed, int clients, const Profile& profile,
                                   ScenarioLockKind lock_kind, int64_t duration_ms);
// contention-64: 64 clients, 4 locks, mixed, hostile.
Scenario contention64_scenario(uint64_t seed, int64_t duration_ms = kBenchHourMs);

// checker-10m's history: 64 clients on 4 mixed locks without faults (no
// crash ends a client for good, so the history goes on, and no fault sets
// fair waiters polling: about 500 bytes of trace per event), new operations
// for a week of virtual time; the bench stops it at its event count.
Scenario checker_history_scenario(uint64_t seed);

// Counts a run's events without storing them (a run minus checking and
// writing: what the speed-up figures measure).
class CountingSink final : public EventSink {
 public:
  void on_event(const Event&) override { ++events; }
  uint64_t events = 0;
};

// Runs `s` on a model backend of the correct scripts and hands each of its
// first `limit` events to `each`, then stops the run (a history as long as
// a benchmark wants, from a scenario that would go on).
void run_first_events(const Scenario& s, uint64_t limit, const std::function<void(const Event&)>& each);

// An rlock script call on lock "lsim:L0" by `owner` (lease 30 s, latch TTL
// 10 s); `request_id` names the unlock latch of a release.
ScriptCall bench_rlock_call(ScriptKind kind, const std::string& owner, const std::string& request_id);

// Runs `pairs` rlock acquire + release pairs on server 0 of `backend`, pair i
// at server time start_us + (i % 100,000) ms, with `new_run` (e.g. the
// backend's wipe(): a run's output is bounded) called every 100,000 pairs; returns the number of scripts executed
// (2 per pair). Throws whatever the backend throws.
uint64_t run_rlock_pairs(Backend& backend, uint64_t pairs, int64_t start_us,
                         const std::function<void()>& new_run = {});

}  // namespace locksim
