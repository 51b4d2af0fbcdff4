#include "sim/simulator.h"

#include <cassert>

#include "impl/client_mutant.h"
#include "sim/profiles.h"
#include "sim/workload.h"
#include "sim/world.h"

namespace locksim {

namespace {

// Counts events for the summary and forwards them.
class CountingSink final : public EventSink {
 public:
  CountingSink(EventSink& next, RunSummary& summary) : next_(next), summary_(summary) {}
  void on_event(const Event& e) override {
    summary_.events++;
    switch (e.kind) {
      case EventKind::Invoke: summary_.invokes++; break;
      case EventKind::Ok: summary_.oks++; break;
      case EventKind::Fail: summary_.fails++; break;
      case EventKind::Info: summary_.infos++; break;
      case EventKind::Script: summary_.scripts++; break;
      case EventKind::Fault: summary_.faults++; break;
      default: break;
    }
    next_.on_event(e);
  }

 private:
  EventSink& next_;
  RunSummary& summary_;
};

}  // namespace

Simulator::Simulator(Scenario scenario, Backend& backend, EventSink& sink)
    : scenario_(std::move(scenario)), backend_(backend), sink_(sink) {
  validate_scenario(scenario_);
  if (backend_.server_count() < scenario_.servers) {
    throw ScenarioError("backend has " + std::to_string(backend_.server_count()) +
                        " servers, scenario needs " + std::to_string(scenario_.servers));
  }
}

RunSummary Simulator::run() {
  RunSummary summary;
  CountingSink counting(sink_, summary);
  const Scenario& s = scenario_;
  const Rng root(s.seed);
  const int64_t duration_us = s.duration_ms * 1000;
  const FaultPlan plan = make_fault_plan(s.profile, s.clients, backend_.server_count(),
                                         duration_us, root.split("faults"));

  WorldConfig wc;
  wc.seed = s.seed;
  wc.clients = s.clients;
  wc.link = plan.link;
  wc.client_clocks = plan.client_clocks;
  wc.server_clocks = plan.server_clocks;
  wc.client.mutant = *client_mutant_from_name(s.mutant);
  World world(wc, backend_, counting);

  Workload workload(world, scenario_locks(s), duration_us, root.split("workload"));
  world.on_client_started = [&workload](int c) { workload.start_client(c); };
  for (int c = 0; c < s.clients; ++c) workload.start_client(c);

  for (const FaultAction& f : plan.actions) {
    world.at(f.at_us, [&world, f] {
      switch (f.kind) {
        case FaultKind::Crash:
          if (!world.client_alive(f.target)) return;
          world.crash(f.target);
          if (f.restart_after_ms >= 0) {
            const int c = f.target;
            world.at(world.now_us() + f.restart_after_ms * 1000, [&world, c] { world.restart(c); });
          }
          return;
        case FaultKind::Pause: world.pause(f.target, f.duration_ms); return;
        case FaultKind::ClientClockJump: world.jump_client_clock(f.target, f.duration_ms); return;
        case FaultKind::ServerClockJump: world.jump_server_clock(f.target, f.duration_ms); return;
        case FaultKind::Partition: world.partition(f.target, f.duration_ms); return;
        case FaultKind::RedisRestart: world.redis_restart(f.target); return;
      }
    });
  }

  const int64_t hard_end_us = duration_us + kDrainMs * 1000;
  uint64_t steps = 0;
  while (!stop_requested_ && !world.idle()) {
    if (world.queued() > 0 && world.now_us() >= duration_us && (steps % 64 == 0) && workload.idle()) break;
    if (steps >= kMaxActions) break;
    if (!world.step_before(hard_end_us)) break;
    steps++;
  }
  summary.actions = world.stats().actions;
  summary.end_true_us = world.now_us();
  summary.stopped = stop_requested_;
  return summary;
}

}  // namespace locksim
