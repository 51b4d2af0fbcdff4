// ViolationWindow: which stretch of a long history to draw for one violation,
// so that the picture explains it. Fed the history once (streaming, memory
// bounded by what is open at a time plus the evidence), it returns an event id
// range that always contains
//   1. every event the violation names (event_ids, and the events its
//      message and blamed fault name: facts.named_ids, facts.blamed_ids);
//   2. the start (acquire Ok) of each believed hold, of the violation's
//      owners on its lock, that is open at a named event: the holder that
//      matters is never cut off on the left; and the event at which the
//      checker found the violation, when it is at most kDetectionReach
//      events after the first named one (else it is only wanted, rule 3);
// and, when it fits in `max_events` (nearest first), also
//   3. the Invoke of every named operation and of those holds' acquires (how
//      long they waited), the end of those holds (unlock, loss, crash) and the
//      faults of those owners' clients that overlap the named events
//      (pause..resume, partition..heal, crash..restart);
//   4. `radius_events` more events on each side.
// Rules 1-2 are never dropped: the range can exceed max_events for them
// (required_events() says by how much).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/violation.h"
#include "traces/event.h"

namespace locksim {

struct EventRange {
  uint64_t from_id = 0;
  uint64_t to_id = 0;
  uint64_t size() const { return to_id - from_id + 1; }
};

class ViolationWindow {
 public:
  static constexpr uint64_t kDetectionReach = 5000;
  ViolationWindow(const Violation& violation, uint64_t radius_events, uint64_t max_events);

  void on_event(const Event& e);
  // The range to draw; call after the last event.
  EventRange range() const;
  // The range rules 1-2 need alone.
  EventRange required() const;
  // Every id the violation names (rule 1), ascending.
  const std::set<uint64_t>& named_ids() const { return named_; }

 private:
  struct HoldState {  // an owner's current believed hold of the lock
    int64_t count = 0;
    uint64_t start_id = 0;   // the acquire Ok
    uint64_t invoke_id = 0;  // that acquire's Invoke
  };
  void close_hold(const std::string& owner, uint64_t end_id);
  bool overlaps_named(uint64_t start_id, uint64_t end_id) const;

  std::string lock_;
  std::set<std::string> owners_;
  uint64_t radius_events_;
  uint64_t max_events_;
  std::set<uint64_t> named_;
  std::set<uint64_t> required_;   // rules 1-2
  std::set<uint64_t> wanted_;     // rule 3
  std::map<uint64_t, uint64_t> invoke_of_op_;  // open operations: op_id -> Invoke id
  std::map<std::string, HoldState> hold_of_owner_;
  std::set<int> clients_;         // the owners' clients
  std::map<std::string, int> client_of_owner_;
  std::map<std::pair<int, Op>, uint64_t> open_fault_;  // (client, closing op) -> start id
  uint64_t last_id_ = 0;
  bool any_ = false;
};

}  // namespace locksim
