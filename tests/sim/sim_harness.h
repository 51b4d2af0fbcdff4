// Test harness for hand-made client scenarios: a World over a ModelBackend
// with a fixed-latency network, recording the history in a VectorSink, and
// a script of steps (Steps) that the test schedules on the world.
#pragma once

#include <cassert>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model_backend.h"
#include "sim/world.h"
#include "traces/event_sink.h"

namespace locksim::testing {

inline LockSpec rlock(const std::string& name = "lsim:A") { return LockSpec{name, LockKind::Reentrant, 0, {}}; }
inline LockSpec fair(const std::string& name = "lsim:F") { return LockSpec{name, LockKind::Fair, 0, {}}; }

constexpr int64_t kMs = 1000;  // µs per ms
constexpr int64_t kSec = 1'000'000;

// A test's steps: each callable runs at its time, handed to the world as a
// TaskStep (the world's agenda holds data, not closures: sim/agenda.h).
class Steps final : public TaskRunner {
 public:
  void attach(World& world) {
    world_ = &world;
    world.set_task_runner(this);
  }
  // A world step at true time at_us.
  void at(int64_t at_us, std::function<void()> fn) { world_->at_step(at_us, add(-1, std::move(fn))); }
  // A step of client c's current incarnation (dropped by a crash, deferred by a pause).
  void at_client(int c, int64_t at_us, std::function<void()> fn) { world_->at_step(at_us, add(c, std::move(fn))); }
  // A step of client c that starts an operation `name` names (World::at_operation).
  void at_operation(int c, int64_t at_us, std::function<void()> fn, uint64_t name) {
    world_->at_operation(at_us, add(c, std::move(fn)), name);
  }
  void run_step(const TaskStep& step) override {
    assert(step.task < fns_.size());
    fns_[step.task]();  // a deque: steps it adds leave it in place
  }

 private:
  TaskStep add(int c, std::function<void()> fn) {
    fns_.push_back(std::move(fn));
    return TaskStep{c, 0, fns_.size() - 1};
  }
  World* world_ = nullptr;
  std::deque<std::function<void()>> fns_;
};

struct Harness {
  explicit Harness(int clients, ClientMutant mutant = ClientMutant::None, int64_t latency_us = 1000) {
    WorldConfig wc;
    wc.seed = 7;
    wc.clients = clients;
    wc.link = LinkProfile{latency_us, latency_us, 0.0, 0, 0.0};
    wc.client.mutant = mutant;
    world = std::make_unique<World>(wc, backend, sink);
    steps.attach(*world);
  }

  std::vector<Event> select(EventKind kind, std::optional<Op> op = std::nullopt) const {
    std::vector<Event> out;
    for (const auto& e : sink.events) {
      if (e.kind == kind && (!op || e.op == *op)) out.push_back(e);
    }
    return out;
  }
  std::vector<Event> scripts(const std::string& script) const {
    std::vector<Event> out;
    for (const auto& e : sink.events) {
      if (e.kind == EventKind::Script && e.script == script) out.push_back(e);
    }
    return out;
  }
  bool has_key(const std::string& key) {
    for (const auto& k : backend.snapshot(0, world->server_now_us(0))) {
      if (k.key == key) return true;
    }
    return false;
  }

  ModelBackend backend{1};
  VectorSink sink;
  std::unique_ptr<World> world;
  Steps steps;
};

}  // namespace locksim::testing
