// SummarySink: counts a run's events by kind into a RunSummary and forwards
// every event, unchanged and in order, to the next sink. It also measures
// how waiters wait: per pending lock / try_lock its acquire scripts (by
// op_id); at the operation's end, if it ran more than one, the ones after
// the first count as polls and the time since the first as waiting time;
// add_pending_waits(end) counts the acquires still pending when the run
// ends, up to `end` (a waiter that never got the lock waited all that time).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {

class SummarySink final : public EventSink {
 public:
  SummarySink(EventSink& next, RunSummary& summary) : next_(next), summary_(summary) {}
  void on_event(const Event& e) override {
    summary_.events++;
    switch (e.kind) {
      case EventKind::Invoke:
        summary_.invokes++;
        if (is_acquire(e.op)) waits_[e.op_id] = Wait{};
        break;
      case EventKind::Ok: summary_.oks++; end_wait(e); break;
      case EventKind::Fail: summary_.fails++; end_wait(e); break;
      case EventKind::Info: summary_.infos++; end_wait(e); break;
      case EventKind::Script:
        summary_.scripts++;
        if (e.reply.is_error()) summary_.script_errors++;
        if (e.script == "rlock_acquire" || e.script == "fair_acquire" || e.script == "fair_try_once") {
          if (const auto it = waits_.find(e.op_id); it != waits_.end()) {
            if (it->second.attempts++ == 0) it->second.first_us = e.true_us;
          }
        }
        break;
      case EventKind::Fault: summary_.faults++; break;
      default: break;
    }
    next_.on_event(e);
  }

 // Adds the acquires still pending to *out's waiting, as if they ended at
  // end_true_us (changes nothing here: a run may be summed more than once).
  void add_pending_waits(int64_t end_true_us, RunSummary* out) const {
    for (const auto& [op_id, w] : waits_) {  // a sum: the order plays no part
      if (w.attempts <= 1) continue;
      out->waiting_polls += w.attempts - 1;
      out->waiting_us += end_true_us - w.first_us;
    }
  }

 private:
  struct Wait {
    int64_t first_us = 0;  // the first acquire script
    uint64_t attempts = 0;
  };
  void end_wait(const Event& e) {
    const auto it = waits_.find(e.op_id);
    if (e.op_id == 0 || it == waits_.end() || (e.op != Op::Lock && e.op != Op::TryLock)) return;
    if (it->second.attempts > 1) {
      summary_.waiting_polls += it->second.attempts - 1;
      summary_.waiting_us += e.true_us - it->second.first_us;
    }
    waits_.erase(it);
  }

  EventSink& next_;
  RunSummary& summary_;
  std::unordered_map<uint64_t, Wait> waits_;  // pending acquires by op_id (looked up, never iterated)
};

}  // namespace locksim
