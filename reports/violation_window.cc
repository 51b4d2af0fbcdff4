#include "reports/violation_window.h"

#include <algorithm>
#include <cassert>

namespace locksim {

ViolationWindow::ViolationWindow(const Violation& v, uint64_t radius_events, uint64_t max_events)
    : lock_(v.lock), owners_(v.owners.begin(), v.owners.end()), radius_events_(radius_events), max_events_(max_events) {
  named_.insert(v.event_ids.begin(), v.event_ids.end());
  named_.insert(v.facts.named_ids.begin(), v.facts.named_ids.end());
  named_.insert(v.facts.blamed_ids.begin(), v.facts.blamed_ids.end());
  if (named_.empty()) named_.insert(v.detected_at_event);
  required_ = named_;
  // The event at which the checker found it (a liveness bound passing, a
  // give-up unconfirmed): the picture runs to it when it is near enough.
  if (v.detected_at_event > *named_.rbegin() && v.detected_at_event - *named_.begin() <= kDetectionReach)
    required_.insert(v.detected_at_event);
  else if (v.detected_at_event > *named_.rbegin())
    wanted_.insert(v.detected_at_event);
}

bool ViolationWindow::overlaps_named(uint64_t start_id, uint64_t end_id) const {
  return start_id <= *named_.rbegin() && end_id >= *named_.begin();
}

void ViolationWindow::close_hold(const std::string& owner, uint64_t end_id) {
  auto it = hold_of_owner_.find(owner);
  if (it == hold_of_owner_.end()) return;
  const HoldState& h = it->second;
  if (overlaps_named(h.start_id, end_id)) {
    required_.insert(h.start_id);
    wanted_.insert(h.invoke_id);
    wanted_.insert(end_id);
  }
  hold_of_owner_.erase(it);
}

void ViolationWindow::on_event(const Event& e) {
  any_ = true;
  last_id_ = e.id;
  const bool acquire = e.op == Op::Lock || e.op == Op::TryLock;
  if (e.kind == EventKind::Invoke && e.op_id != 0) {
    if (invoke_of_op_.size() < 65'536) invoke_of_op_[e.op_id] = e.id;
  }
  if (named_.count(e.id) && e.op_id != 0) {
    if (auto it = invoke_of_op_.find(e.op_id); it != invoke_of_op_.end()) wanted_.insert(it->second);
  }
  const bool mine = !e.owner.empty() && owners_.count(e.owner) > 0;
  if (mine && e.client >= 0) {
    clients_.insert(e.client);
    client_of_owner_[e.owner] = e.client;
  }
  if (mine && (lock_.empty() || e.lock == lock_)) {
    if (e.kind == EventKind::Ok && acquire && e.value == 1) {
      HoldState& h = hold_of_owner_[e.owner];
      if (h.count++ == 0) {
        h.start_id = e.id;
        auto inv = invoke_of_op_.find(e.op_id);
        h.invoke_id = inv == invoke_of_op_.end() ? e.id : inv->second;
      }
    } else if (e.kind == EventKind::Invoke && e.op == Op::Unlock) {
      auto it = hold_of_owner_.find(e.owner);
      if (it != hold_of_owner_.end() && --it->second.count <= 0) close_hold(e.owner, e.id);
    } else if (e.kind == EventKind::Info && (e.op == Op::HoldLost || e.op == Op::ValidityEnd)) {
      close_hold(e.owner, e.id);
    }
  }
  if (e.kind == EventKind::Fault && e.target >= 0 && clients_.count(e.target)) {
    const int c = e.target;
    auto open = [&](Op closing) {
      if (open_fault_.size() < 4096) open_fault_[{c, closing}] = e.id;
    };
    auto close = [&](Op op) {
      auto it = open_fault_.find({c, op});
      if (it == open_fault_.end()) return;
      if (overlaps_named(it->second, e.id)) {
        wanted_.insert(it->second);
        wanted_.insert(e.id);
      }
      open_fault_.erase(it);
    };
    if (e.op == Op::Pause) open(Op::Resume);
    else if (e.op == Op::Partition) open(Op::Heal);
    else if (e.op == Op::Crash) {
      open(Op::Restart);
      for (auto it = hold_of_owner_.begin(); it != hold_of_owner_.end();) {
        auto next = std::next(it);
        if (auto owner = client_of_owner_.find(it->first); owner != client_of_owner_.end() && owner->second == c) {
          close_hold(it->first, e.id);  // a crash ends the client's believed holds
        }
        it = next;
      }
    } else if (e.op == Op::Resume || e.op == Op::Heal || e.op == Op::Restart) close(e.op);
    else if (e.op == Op::ClockJump || e.op == Op::Lost) {
      if (e.id >= *named_.begin() && e.id <= *named_.rbegin()) wanted_.insert(e.id);
    }
  }
  // Every operation completes once; forget it then (unless it is still needed above).
  if ((e.kind == EventKind::Ok || e.kind == EventKind::Fail || e.kind == EventKind::Info) && e.op_id != 0 &&
      !named_.count(e.id)) {
    invoke_of_op_.erase(e.op_id);
  }
}

EventRange ViolationWindow::required() const {
  return {*required_.begin(), *required_.rbegin()};
}

EventRange ViolationWindow::range() const {
  EventRange r = required();
  // Holds still open at the end, and faults not yet over, start inside.
  std::set<uint64_t> wanted = wanted_;
  for (const auto& [owner, h] : hold_of_owner_) {
    if (overlaps_named(h.start_id, last_id_)) {
      wanted.insert(h.start_id);
      wanted.insert(h.invoke_id);
    }
  }
  for (const auto& [key, start_id] : open_fault_) {
    if (start_id <= *named_.rbegin()) wanted.insert(start_id);
  }
  // Rule 3, nearest first, while it fits.
  std::vector<uint64_t> by_distance(wanted.begin(), wanted.end());
  auto distance = [&](uint64_t id) { return id < r.from_id ? r.from_id - id : (id > r.to_id ? id - r.to_id : 0); };
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [&](uint64_t a, uint64_t b) { return distance(a) < distance(b); });
  for (uint64_t id : by_distance) {
    const EventRange grown{std::min(r.from_id, id), std::max(r.to_id, id)};
    if (grown.size() <= max_events_) r = grown;
  }
  // Rule 4.
  if (r.size() < max_events_) {
    const uint64_t spare = max_events_ - r.size();
    const uint64_t before = std::min({radius_events_, spare / 2, r.from_id});
    r.from_id -= before;
    const uint64_t after = std::min({radius_events_, spare - before, last_id_ > r.to_id ? last_id_ - r.to_id : 0});
    r.to_id += after;
  }
  return r;
}

}  // namespace locksim
