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
//  - kind() is the backend name a trace header records ("model", "live").
//  - One source is used by one thread at a time; a campaign gives each of its
//    workers a source of its own.
#pragma once

#include <string>

#include "sim/backend.h"
#include "sim/scenario.h"

namespace locksim {

class BackendSource {
 public:
  virtual ~BackendSource() = default;
  virtual std::string kind() const = 0;
  virtual Backend& fresh(const Scenario& scenario) = 0;
};

}  // namespace locksim
