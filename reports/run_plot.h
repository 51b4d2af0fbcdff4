// Run plot data: what report.html plots of one run over simulated time, read
// by the checkers' reading (properties/history_recording.h): per bucket (one
// second, wider for long runs) the operations completed by outcome, the
// acquire latency (median and max, ms), the polls, and the run's faults as
// spans [from_s, to_s, "client 2: pause 4.1 s", kind] to shade. As JSON:
//   {"bucket_s", "t", "acquired", "gave_up", "unknown", "unlocked",
//    "unlock_refused", "polls", "latency_p50_ms", "latency_max_ms", "faults"}
// (latencies null in a bucket without an acquire). RunPlotSink takes a run as
// it streams (nothing stored); run_plot_of_stream() reads a whole trace.
#pragma once

#include <istream>
#include <string>

#include <nlohmann/json.hpp>

#include "properties/history_context.h"
#include "properties/history_recording.h"
#include "traces/event_sink.h"

namespace locksim {

inline constexpr const char* kSamplePlotFile = "timelines/sample.plot.json";

class RunPlotSink final : public EventSink {
 public:
  RunPlotSink();
  void on_event(const Event& e) override;
  // Call once, after the last event.
  nlohmann::json data();

 private:
  HistoryContext context_;
  ReadingRecorder recorder_;
};

// The plot data of a whole trace read from `in` (`name` for errors); null
// when it cannot be read.
nlohmann::json run_plot_of_stream(std::istream& in, const std::string& name);

}  // namespace locksim
