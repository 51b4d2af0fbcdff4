#include "sim/replay.h"

#include "sim/run.h"
#include "sim/simulator.h"
#include "traces/trace_format.h"

namespace locksim {

namespace {

class ComparingSink final : public EventSink {
 public:
  explicit ComparingSink(TraceReader& reader) : reader_(reader) {}
  void on_event(const Event& actual) override {
    if (result.mismatch) return;
    Event expected;
    if (!reader_.next(expected)) {
      result.mismatch = ReplayMismatch{index_, "<end of trace>", encode_event(actual)};
      if (sim) sim->stop();
      return;
    }
    const Event as_recorded = event_as_version(actual, reader_.header().version);
    if (!(expected == as_recorded)) {
      result.mismatch = ReplayMismatch{index_, reader_.last_line(), encode_event(as_recorded)};
      if (sim) sim->stop();
      return;
    }
    ++index_;
    result.events_compared = index_;
  }
  void finish() {
    if (result.mismatch) return;
    Event extra;
    if (reader_.next(extra)) result.mismatch = ReplayMismatch{index_, reader_.last_line(), "<end of run>"};
  }

  ReplayResult result;
  Simulator* sim = nullptr;

 private:
  TraceReader& reader_;
  uint64_t index_ = 0;
};

}  // namespace

ReplayResult replay_trace(TraceReader& reader, Backend& backend) {
  const Scenario scenario = scenario_from_header(reader.header());
  ComparingSink sink(reader);
  Simulator sim(scenario, backend, sink);
  sink.sim = &sim;
  sim.run();
  sink.finish();
  return sink.result;
}

}  // namespace locksim
