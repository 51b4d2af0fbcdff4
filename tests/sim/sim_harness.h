// Test harness for hand-made client scenarios: a World over a ModelBackend
// with a fixed-latency network, recording the history in a VectorSink.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model_backend.h"
#include "sim/world.h"
#include "traces/event_sink.h"

namespace locksim::testing {

inline LockSpec rlock(const std::string& name = "lsim:A") { return LockSpec{name, LockKind::Reentrant, 0}; }
inline LockSpec fair(const std::string& name = "lsim:F") { return LockSpec{name, LockKind::Fair, 0}; }

constexpr int64_t kMs = 1000;  // µs per ms
constexpr int64_t kSec = 1'000'000;

struct Harness {
  explicit Harness(int clients, ClientMutant mutant = ClientMutant::None, int64_t latency_us = 1000) {
    WorldConfig wc;
    wc.seed = 7;
    wc.clients = clients;
    wc.link = LinkProfile{latency_us, latency_us, 0.0, 0, 0.0};
    wc.client.mutant = mutant;
    world = std::make_unique<World>(wc, backend, sink);
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
};

}  // namespace locksim::testing
