#include "sim/replay.h"

#include "sim/explicit_plan_json.h"
#include "sim/run.h"
#include "sim/simulator.h"

namespace locksim {

ReplayResult replay_trace(TraceReader& reader, Backend& backend, EventSink* also) {
  const Scenario scenario = scenario_from_header(reader.header());
  HistoryComparator comparator(
      [&reader](Event* event, std::string* line) {
        if (!reader.next(*event)) return false;
        *line = reader.last_line();
        return true;
      },
      reader.header().version);
  FanoutSink fanout;
  fanout.add(&comparator);
  if (also != nullptr) fanout.add(also);
  if (!reader.header().plan.is_null()) {
    const ExplicitPlan plan = explicit_plan_from_json(scenario, reader.header().plan);
    run_explicit(plan, backend, fanout);  // bounded by the plan; not stopped at a difference
  } else {
    Simulator sim(scenario, backend, fanout);
    comparator.attach(&sim);
    sim.run();
  }
  comparator.finish();
  ReplayResult result;
  result.events_compared = comparator.events_compared();
  result.mismatch = comparator.mismatch();
  return result;
}

}  // namespace locksim
