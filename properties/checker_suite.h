// CheckerSuite: every property checker over one event stream. It is an
// EventSink, so a simulation can stream into it directly (alongside a trace
// writer); call finish() once the history ends. Memory stays bounded per lock
// and per client, so histories of tens of millions of events are fine.
// The fault log and fair-line mirror several checkers need are kept once
// (properties/history_context.h) and fed before the checkers. Only the
// checkers of CheckConfig::properties run.
// Violations are ordered by the event at which they were detected, then by
// checker order (ties), so "the first violation" is the one the history
// exhibits first; each carries that event id in detected_at_event.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "properties/checker.h"
#include "properties/history_context.h"
#include "traces/event_sink.h"

namespace locksim {

class ReadingRecorder;

class CheckerSuite final : public EventSink {
 public:
  explicit CheckerSuite(const CheckConfig& config = CheckConfig{});
  // The checkers count their reports in this object: it stays put.
  CheckerSuite(const CheckerSuite&) = delete;
  CheckerSuite& operator=(const CheckerSuite&) = delete;

  void on_event(const Event& event) override;
  // Ends the history at `end_true_us` (default: the last event's time).
  void finish(std::optional<int64_t> end_true_us = std::nullopt);

  bool ok() const;
  std::vector<Violation> violations() const;        // all, in history order
  std::optional<Violation> first_violation() const;
  uint64_t events_seen() const { return events_seen_; }
  // How many violations the checkers have recorded so far (cheap: a
  // caller that looks for new ones compares this first).
  uint64_t reports() const { return reports_; }
  // Shows every event, with the context the checkers judge it by, to
  // `recorder` too (properties/history_recording.h): what it records is
  // what the checkers saw. Null: none. It must outlive the suite's use.
  void record_with(ReadingRecorder* recorder) { recorder_ = recorder; }
  const HistoryContext& context() const { return *context_; }
  const std::vector<std::unique_ptr<Checker>>& checkers() const { return checkers_; }

 private:
  void stamp_new_violations(uint64_t event_id);

  std::unique_ptr<HistoryContext> context_;  // shared by the checkers; fed first
  ReadingRecorder* recorder_ = nullptr;
  std::vector<std::unique_ptr<Checker>> checkers_;
  std::vector<std::vector<uint64_t>> detected_at_;  // per checker, per violation
  uint64_t reports_ = 0;          // violations recorded by the checkers (Checker::count_reports_in)
  uint64_t stamped_reports_ = 0;  // reports_ at the last stamp
  uint64_t events_seen_ = 0;
  uint64_t last_event_id_ = 0;
  int64_t last_true_us_ = 0;
  bool finished_ = false;
};

// Convenience: checks a whole in-memory history.
std::vector<Violation> check_history(const std::vector<Event>& history, const CheckConfig& config = CheckConfig{});

}  // namespace locksim
