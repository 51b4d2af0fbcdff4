// Checker: one property, checked in one pass over a history stream with
// memory bounded per lock and per client (never the whole history).
// Feed every event in history order with on_event(), then call finish() with
// the true time the history ends at; violations() lists what was found (at
// most CheckConfig::max_violations_per_checker, the first ones).
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "properties/check_config.h"
#include "properties/violation.h"
#include "traces/event.h"

namespace locksim {

class Checker {
 public:
  explicit Checker(const CheckConfig& config) : config_(config) {}
  virtual ~Checker() = default;
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  virtual std::string_view name() const = 0;  // a property::k* name
  virtual void on_event(const Event& event) = 0;
  virtual void finish(int64_t end_true_us) { (void)end_true_us; }

  const std::vector<Violation>& violations() const { return violations_; }
  bool ok() const { return violations_.empty(); }
  // Every violation recorded from now on also adds one to *counter (the
  // suite's, so it looks for new violations only after one was recorded).
  void count_reports_in(uint64_t* counter) { report_counter_ = counter; }

 protected:
  // Records a violation of kind `kind` (dropped once the per-checker cap is
  // reached): its scope is bounded by the kind's row of the permit table
  // (properties/permit_table.h), which must be this checker's property's.
  void report(Report kind, Violation v) {
    if (static_cast<int>(violations_.size()) >= config_.max_violations_per_checker) return;
    if (v.property.empty()) v.property = std::string(name());
    const PermitRow& row = permit_row(kind);
    assert(row.property == v.property);
    v.report = kind;
    // A faster multi-lock's value: the client whose clock ran ahead and took
    // it over may be none of those the checker names, and its clock may
    // have been ahead since before the hold began.
    if (config_.caller_clock_expiry && v.lock.is_member() && v.scope.clients == FaultScope::Who::Listed) {
      v.scope.clients = FaultScope::Who::All;
      v.scope.client_from_us = 0;
    }
    v.scope = bounded_scope(row, std::move(v.scope));
    violations_.push_back(std::move(v));
    if (report_counter_ != nullptr) ++*report_counter_;
  }
  const CheckConfig& config() const { return config_; }

 private:
  CheckConfig config_;
  std::vector<Violation> violations_;
  uint64_t* report_counter_ = nullptr;
};

// Helpers shared by the checkers (pure functions). An event's op, script and
// reply are read once per event: HistoryContext::facts().
// Whether `names` (a list of holders) has `name` in it.
bool names_contain(const std::vector<std::string>& names, const std::string& name);
// Whether the event's holders after its script include `owner`.
bool holders_contain(const Event& e, const std::string& owner);

}  // namespace locksim
