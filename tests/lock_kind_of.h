// lock_kind_of: a test's lock kind written by its name ("fair"), as tests
// list them in tables; throws on a name that is no lock kind, so a typo
// fails the test instead of running another kind.
#pragma once

#include <stdexcept>
#include <string>

#include "impl/scenario_lock_kind.h"

namespace locksim::testing {

inline ScenarioLockKind lock_kind_of(const std::string& name) {
  if (auto k = lock_kind_from_name(name)) return *k;
  throw std::invalid_argument("test: unknown lock kind '" + name + "'");
}

}  // namespace locksim::testing
