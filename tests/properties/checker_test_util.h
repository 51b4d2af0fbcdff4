// Runs one checker (or the whole suite) over a hand-built history.
#pragma once

#include <vector>

#include "properties/check_config.h"
#include "properties/checker_suite.h"
#include "traces/event.h"

namespace locksim::testing {

template <typename CheckerT>
std::vector<Violation> run_checker(const std::vector<Event>& events, const CheckConfig& config = CheckConfig{}) {
  CheckerT checker(config);
  for (const Event& e : events) checker.on_event(e);
  checker.finish(events.empty() ? 0 : events.back().true_us);
  return checker.violations();
}

}  // namespace locksim::testing
