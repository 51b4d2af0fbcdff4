// HistoryComparator: an EventSink that compares a run's history, event by
// event, with an expected history, and stops the run at the first
// difference. Used by `locksim replay` (expected: a trace file) and by
// `campaign --backend both` (expected: the model's history of the same seed,
// compared with the live one).
//
// Contract:
//  - `next_expected` yields the expected events in order (false: no more)
//    and the text of each as recorded; events of the run are compared as
//    trace version `version` records them (traces/trace_format.h).
//  - The first difference is kept as a HistoryMismatch: its 0-based index,
//    the expected line ("<end of trace>" when the expected history is
//    shorter) and the actual line ("<end of run>" when the run is shorter);
//    the attached Simulator is stopped there. finish() must be called after
//    the run, to notice a run that ended early.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {

struct HistoryMismatch {
  uint64_t index = 0;
  std::string expected_line;
  std::string actual_line;
  // The backends of the two histories, for messages (set by the caller
  // that compares two backends; a campaign's default pair is model / live).
  std::string expected_backend = "model";
  std::string actual_backend = "live";
};

// "both" for live checked against the model, else "<checked>,<reference>".
inline std::string backend_pair_name(const std::string& checked, const std::string& reference) {
  return checked == "live" && reference == "model" ? "both" : checked + "," + reference;
}

class HistoryComparator final : public EventSink {
 public:
  using NextExpected = std::function<bool(Event* event, std::string* line)>;
  HistoryComparator(NextExpected next_expected, int version);
  // Expecting the events of an in-memory history (current trace version),
  // which must outlive the comparator.
  explicit HistoryComparator(const std::vector<Event>& expected);

  void attach(Simulator* sim) { sim_ = sim; }
  void on_event(const Event& actual) override;
  void finish();

  uint64_t events_compared() const { return index_; }
  const std::optional<HistoryMismatch>& mismatch() const { return mismatch_; }

 private:
  void mismatch_at(std::string expected_line, std::string actual_line);

  NextExpected next_expected_;
  int version_;
  Simulator* sim_ = nullptr;
  uint64_t index_ = 0;
  std::optional<HistoryMismatch> mismatch_;
};

}  // namespace locksim
