// BackendSource: hands out the Backend for one run of a scenario, so that
// the code that runs many scenarios (a campaign, the shrinker) does not care
// whether the scripts run on the model or on live redis-servers.
//
// Contract:
//  - fresh(scenario) returns a backend ready for a new run of `scenario`:
//    scenario.servers servers, no data (a first run and the hundredth run of
//    a source see the same empty servers), the scenario's scripts (the
//    model: its model_variant, unless the source fixes one; live: the
//    source's script pack). The reference stays valid until the next fresh()
//    or the source's destruction.
//  - make_copyable(scenario) returns a new backend of the caller's own,
//    like fresh()'s, whose whole state lives in memory from operator new
//    and changes nothing outside it, so that a SnapshotArena
//    (sim/snapshot_arena.h) can copy it; null (the default) when the
//    source cannot (its scripts run in a process or a library of its own).
//  - kind() is the backend name a trace header records ("model", "live").
//  - One source is used by one thread at a time; a campaign gives each of its
//    workers a source of its own.
#pragma once

#include <memory>
#include <string>

#include "sim/backend.h"
#include "sim/scenario.h"

namespace locksim {

class BackendSource {
 public:
  virtual ~BackendSource() = default;
  virtual std::string kind() const = 0;
  virtual Backend& fresh(const Scenario& scenario) = 0;
  virtual std::unique_ptr<Backend> make_copyable(const Scenario& scenario) {
    (void)scenario;
    return nullptr;
  }
};

}  // namespace locksim
