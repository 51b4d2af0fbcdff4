// The scenario of a generated `hostile` run with 4 clients, as the tests of
// tests/properties/ name failing seeds: `campaign --profile hostile --lock
// LOCK --locks LOCKS --base-seed SEED` runs the same one.
#pragma once

#include <cstdint>
#include <string>

#include "sim/scenario.h"
#include "tests/lock_kind_of.h"

namespace locksim::testing {

inline Scenario hostile_scenario(const std::string& lock, uint64_t seed, int locks = 1) {
  Scenario s;
  s.seed = seed;
  s.clients = 4;
  s.locks = locks;
  s.lock_kind = lock_kind_of(lock);
  s.profile = Profile::named("hostile");
  return s;
}

}  // namespace locksim::testing
