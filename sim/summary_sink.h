// SummarySink: counts a run's events by kind into a RunSummary and forwards
// every event, unchanged and in order, to the next sink. It also measures
// how waiters wait: per pending lock / try_lock its acquire scripts (by
// op_id); at the operation's end, if it ran more than one, the ones after
// the first count as polls and the time since the first as waiting time.
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
        if (e.op == "lock" || e.op == "try_lock") waits_[e.op_id] = Wait{};
        break;
      case EventKind::Ok: summary_.oks++; end_wait(e); break;
      case EventKind::Fail: summary_.fails++; end_wait(e); break;
      case EventKind::Info: summary_.infos++; end_wait(e); break;
      case EventKind::Script:
        summary_.scripts++;
        if (e.reply.compare(0, 7, "error: ") == 0) summary_.script_errors++;
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

 private:
  struct Wait {
    int64_t first_us = 0;  // the first acquire script
    uint64_t attempts = 0;
  };
  void end_wait(const Event& e) {
    const auto it = waits_.find(e.op_id);
    if (e.op_id == 0 || it == waits_.end() || (e.op != "lock" && e.op != "try_lock")) return;
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
