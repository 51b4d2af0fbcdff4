// EventSink: where a run's history goes, one Event at a time, in history order
// (ids 0, 1, 2, ...). A run can stream into a trace writer and into checkers at
// once without storing the history. FanoutSink forwards to several sinks in the
// order they were added; VectorSink keeps everything (tests, small runs).
#pragma once

#include <cassert>
#include <vector>

#include "traces/event.h"

namespace locksim {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& event) = 0;
};

class FanoutSink final : public EventSink {
 public:
  void add(EventSink* sink) {
    assert(sink != nullptr);
    sinks_.push_back(sink);
  }
  void on_event(const Event& event) override {
    for (EventSink* sink : sinks_) sink->on_event(event);
  }

 private:
  std::vector<EventSink*> sinks_;
};

class VectorSink final : public EventSink {
 public:
  void on_event(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

}  // namespace locksim
