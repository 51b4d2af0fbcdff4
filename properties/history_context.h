// HistoryContext: the one reading of a history that the checkers and the
// timelines share, kept once: the event's facts (its op, script and reply
// read into types, properties/event_facts.h), the fault log
// (properties/fault_log.h), the fair-line mirror (properties/fair_line.h),
// the clients' believed holds (properties/belief_book.h) and the keys'
// leases on the servers (properties/lease_book.h). The CheckerSuite owns one and feeds it each
// event before any checker sees that event, so every checker reads the state
// *after* the event; the mirror's per-event results (grant, purged waiters,
// stale head, ...) are those of the latest event. A checker built on its own
// (tests) owns a private context and feeds it itself (CheckerContext below),
// with the same effect. A ReadingRecorder (properties/history_recording.h)
// reads it after each event to keep what a timeline draws.
// Memory: that of its parts.
#pragma once

#include <memory>
#include <optional>

#include "properties/belief_book.h"
#include "properties/check_config.h"
#include "properties/event_facts.h"
#include "properties/fair_line.h"
#include "properties/fault_log.h"
#include "properties/lease_book.h"
#include "traces/event.h"

namespace locksim {

class HistoryContext {
 public:
  explicit HistoryContext(const CheckConfig& config)
      : faults_(config.clock_epoch_ms),
        line_(config.purge_tolerance_ms, config.request_timeout_ms),
        leases_(config.default_lease_ms) {}
  HistoryContext(const HistoryContext&) = delete;
  HistoryContext& operator=(const HistoryContext&) = delete;

  void on_event(const Event& e) {
    facts_ = facts_of(e);
    faults_.on_event(e);
    grant_ = line_.on_event(e, facts_);
    beliefs_.on_event(e, facts_);
    leases_.on_event(e, facts_, line_.lock_id());
  }
  // The latest event's names and reply, read once (properties/event_facts.h).
  const EventFacts& facts() const { return facts_; }
  const FaultLog& faults() const { return faults_; }
  const FairLineMirror& line() const { return line_; }
  const BeliefBook& beliefs() const { return beliefs_; }
  const LeaseBook& leases() const { return leases_; }
  // The latest event's lock as a dense id (properties/lock_table.h): index
  // per-lock state by it instead of hashing the name again.
  LockId lock_id() const { return line_.lock_id(); }
  const LockTable& locks() const { return line_.locks(); }
  // The grant the latest event made on a fair lock, if any.
  const std::optional<FairLineMirror::Grant>& grant() const { return grant_; }

 private:
  EventFacts facts_;
  FaultLog faults_;
  FairLineMirror line_;
  BeliefBook beliefs_;
  LeaseBook leases_;
  std::optional<FairLineMirror::Grant> grant_;
};

// A checker's handle on a HistoryContext: the suite's shared one (fed by the
// suite), or, when none is given, a private one fed by feed().
class CheckerContext {
 public:
  CheckerContext(const CheckConfig& config, const HistoryContext* shared)
      : owned_(shared == nullptr ? std::make_unique<HistoryContext>(config) : nullptr),
        context_(shared == nullptr ? owned_.get() : shared) {}
  // Call first in the checker's on_event: feeds a private context.
  void feed(const Event& e) {
    if (owned_) owned_->on_event(e);
  }
  const HistoryContext& operator*() const { return *context_; }
  const HistoryContext* operator->() const { return context_; }

 private:
  std::unique_ptr<HistoryContext> owned_;
  const HistoryContext* context_;
};

}  // namespace locksim
