// SummarySink: counts a run's events by kind into a RunSummary and forwards
// every event, unchanged and in order, to the next sink.
#pragma once

#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {

class SummarySink final : public EventSink {
 public:
  SummarySink(EventSink& next, RunSummary& summary) : next_(next), summary_(summary) {}
  void on_event(const Event& e) override {
    summary_.events++;
    switch (e.kind) {
      case EventKind::Invoke: summary_.invokes++; break;
      case EventKind::Ok: summary_.oks++; break;
      case EventKind::Fail: summary_.fails++; break;
      case EventKind::Info: summary_.infos++; break;
      case EventKind::Script:
        summary_.scripts++;
        if (e.reply.compare(0, 7, "error: ") == 0) summary_.script_errors++;
        break;
      case EventKind::Fault: summary_.faults++; break;
      default: break;
    }
    next_.on_event(e);
  }

 private:
  EventSink& next_;
  RunSummary& summary_;
};

}  // namespace locksim
