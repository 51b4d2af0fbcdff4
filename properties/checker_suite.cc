#include "properties/checker_suite.h"

#include <algorithm>
#include <cassert>

#include "properties/busy_poll.h"
#include "properties/exclusive_ownership.h"
#include "properties/fifo_fairness.h"
#include "properties/ghost_waiter.h"
#include "properties/history_recording.h"
#include "properties/liveness.h"
#include "properties/mutual_exclusion.h"
#include "properties/reentrancy.h"
#include "properties/script_error.h"
#include "properties/watchdog_expiry.h"

namespace locksim {

CheckerSuite::CheckerSuite(const CheckConfig& config) : context_(std::make_unique<HistoryContext>(config)) {
  const HistoryContext* shared = context_.get();
  checkers_.push_back(std::make_unique<ExclusiveOwnershipChecker>(config));
  checkers_.push_back(std::make_unique<MutualExclusionChecker>(config, shared));
  checkers_.push_back(std::make_unique<FifoFairnessChecker>(config, shared));
  checkers_.push_back(std::make_unique<GhostWaiterChecker>(config, shared));
  checkers_.push_back(std::make_unique<WatchdogExpiryChecker>(config, shared));
  checkers_.push_back(std::make_unique<LivenessChecker>(config, shared));
  checkers_.push_back(std::make_unique<ReentrancyChecker>(config, shared));
  checkers_.push_back(std::make_unique<BusyPollChecker>(config, shared));
  checkers_.push_back(std::make_unique<ScriptErrorChecker>(config));
  std::erase_if(checkers_, [&config](const auto& c) { return !config.properties.has(c->name()); });
  detected_at_.resize(checkers_.size());
  for (auto& checker : checkers_) checker->count_reports_in(&reports_);
}

void CheckerSuite::stamp_new_violations(uint64_t event_id) {
  if (reports_ == stamped_reports_) return;  // nothing recorded since the last stamp
  stamped_reports_ = reports_;
  for (size_t i = 0; i < checkers_.size(); ++i) {
    while (detected_at_[i].size() < checkers_[i]->violations().size()) detected_at_[i].push_back(event_id);
  }
}

void CheckerSuite::on_event(const Event& event) {
  assert(!finished_);
  assert(event.true_us >= last_true_us_ || events_seen_ == 0);
  ++events_seen_;
  last_true_us_ = event.true_us;
  last_event_id_ = event.id;
  if (event.kind == EventKind::Verdict) return;
  context_->on_event(event);
  for (auto& checker : checkers_) checker->on_event(event);
  if (recorder_ != nullptr) recorder_->on_event(event, *context_);
  stamp_new_violations(event.id);
}

void CheckerSuite::finish(std::optional<int64_t> end_true_us) {
  if (finished_) return;
  finished_ = true;
  for (auto& checker : checkers_) checker->finish(end_true_us.value_or(last_true_us_));
  stamp_new_violations(last_event_id_);
}

bool CheckerSuite::ok() const {
  return std::all_of(checkers_.begin(), checkers_.end(), [](const auto& c) { return c->ok(); });
}

std::vector<Violation> CheckerSuite::violations() const {
  std::vector<Violation> all;
  for (size_t i = 0; i < checkers_.size(); ++i) {
    const auto& found = checkers_[i]->violations();
    for (size_t k = 0; k < found.size(); ++k) {
      Violation v = found[k];
      if (k < detected_at_[i].size()) v.detected_at_event = detected_at_[i][k];
      all.push_back(std::move(v));
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Violation& a, const Violation& b) {
    return a.detected_at_event < b.detected_at_event;
  });
  return all;
}

std::optional<Violation> CheckerSuite::first_violation() const {
  auto all = violations();
  if (all.empty()) return std::nullopt;
  return all.front();
}

std::vector<Violation> check_history(const std::vector<Event>& history, const CheckConfig& config) {
  CheckerSuite suite(config);
  for (const Event& e : history) suite.on_event(e);
  suite.finish();
  return suite.violations();
}

}  // namespace locksim
