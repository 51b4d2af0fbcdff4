#include "sim/replay.h"

#include "sim/run.h"
#include "sim/simulator.h"

namespace locksim {

ReplayResult replay_trace(TraceReader& reader, Backend& backend) {
  const Scenario scenario = scenario_from_header(reader.header());
  HistoryComparator comparator(
      [&reader](Event* event, std::string* line) {
        if (!reader.next(*event)) return false;
        *line = reader.last_line();
        return true;
      },
      reader.header().version);
  Simulator sim(scenario, backend, comparator);
  comparator.attach(&sim);
  sim.run();
  comparator.finish();
  ReplayResult result;
  result.events_compared = comparator.events_compared();
  result.mismatch = comparator.mismatch();
  return result;
}

}  // namespace locksim
