#include "properties/belief_book.h"

#include <cassert>

#include "properties/checker.h"

namespace locksim {

void BeliefBook::on_event(const Event& e, const EventFacts& facts) {
  started_.reset();
  reentered_ = false;
  ended_.clear();
  acquires_closed_.clear();
  auto close_pending = [&](uint64_t op_id) {
    if (pending_.erase(op_id) > 0) acquires_closed_.push_back(op_id);
  };
  switch (e.kind) {
    case EventKind::Script:
      if (facts.granting_script() && facts.reply_nil && holders_contain(e, e.owner)) {
        granted_server_ms_[{e.lock, e.owner}] = e.server_ms;
        if (granted_server_ms_.size() > kMaxGrants) granted_server_ms_.erase(granted_server_ms_.begin());
      }
      break;
    case EventKind::Invoke:
      if (is_acquire(e.op)) {
        pending_[e.op_id] = {e.client, e.lease_ms, e.true_us};
      } else if (e.op == Op::Unlock) {
        auto lock_it = holds_.find(e.lock);
        if (lock_it == holds_.end()) break;
        auto it = lock_it->second.find(e.owner);
        if (it == lock_it->second.end()) break;
        assert(it->second.count > 0);
        if (--it->second.count == 0) {
          ended_.push_back({e.lock, e.owner, it->second, End::Released});
          lock_it->second.erase(it);
        }
      }
      break;
    case EventKind::Ok:
      if (is_acquire(e.op)) {
        auto p = pending_.find(e.op_id);
        const int64_t lease_ms = p == pending_.end() ? e.lease_ms : p->second.lease_ms;
        const int64_t invoke_us = p == pending_.end() ? e.true_us : p->second.invoke_us;
        if (p != pending_.end()) {
          pending_.erase(p);
          acquires_closed_.push_back(e.op_id);
        }
        if (e.value == 1) start_or_reenter(e, lease_ms, invoke_us);
      }
      break;
    case EventKind::Fail:
      close_pending(e.op_id);
      break;
    case EventKind::Info:
      if (e.op == Op::HoldLost || e.op == Op::ValidityEnd) {
        auto lock_it = holds_.find(e.lock);
        if (lock_it == holds_.end()) break;
        auto it = lock_it->second.find(e.owner);
        if (it == lock_it->second.end()) break;
        ended_.push_back({e.lock, e.owner, it->second, End::Lost});
        lock_it->second.erase(it);
      } else if (e.op_id != 0 && is_acquire(e.op)) {
        close_pending(e.op_id);
      }
      break;
    case EventKind::Fault:
      if (e.op == Op::Crash && e.target >= 0) {
        for (auto& [lock, by_owner] : holds_) {
          for (auto it = by_owner.begin(); it != by_owner.end();) {
            if (it->second.client != e.target) {
              ++it;
              continue;
            }
            ended_.push_back({lock, it->first, it->second, End::Crashed});
            it = by_owner.erase(it);
          }
        }
        for (auto it = pending_.begin(); it != pending_.end();) {
          if (it->second.client != e.target) {
            ++it;
            continue;
          }
          acquires_closed_.push_back(it->first);
          it = pending_.erase(it);
        }
      }
      break;
    default:
      break;
  }
}

void BeliefBook::start_or_reenter(const Event& ok, int64_t lease_ms, int64_t invoke_us) {
  auto& by_owner = holds_[ok.lock];
  const auto granted = granted_server_ms_.find({ok.lock, ok.owner});
  auto it = by_owner.find(ok.owner);
  if (it != by_owner.end()) {
    ++it->second.count;  // reentry: the believed hold continues
    it->second.lease_ms = lease_ms;  // a reentry resets the expiry to its own lease
    if (granted != granted_server_ms_.end()) it->second.granted_server_ms = granted->second;
    reentered_ = true;
    return;
  }
  Started s;
  s.lock = ok.lock;
  s.owner = ok.owner;
  s.overlapped.reserve(by_owner.size());
  for (const auto& [other_owner, other] : by_owner) s.overlapped.push_back({other_owner, other});
  Hold hold{ok.client, 1, ok.id, ok.true_us, lease_ms};
  hold.invoke_us = invoke_us;
  if (granted != granted_server_ms_.end()) hold.granted_server_ms = granted->second;
  s.hold = hold;
  by_owner[ok.owner] = hold;
  started_ = std::move(s);
}

const BeliefBook::Hold* BeliefBook::hold(const LockRef& lock, const std::string& owner) const {
  auto lock_it = holds_.find(lock);
  if (lock_it == holds_.end()) return nullptr;
  auto it = lock_it->second.find(owner);
  return it == lock_it->second.end() ? nullptr : &it->second;
}

const std::map<std::string, BeliefBook::Hold>* BeliefBook::holds_of(const LockRef& lock) const {
  auto it = holds_.find(lock);
  return it == holds_.end() ? nullptr : &it->second;
}

}  // namespace locksim
