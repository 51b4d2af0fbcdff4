#include "properties/reentrancy.h"

#include <algorithm>

#include "properties/fault_log.h"
#include "properties/saturating_time.h"
#include "traces/event_detail.h"

namespace locksim {

Violation ReentrancyChecker::at(const Event& e, std::string message, std::vector<uint64_t> ids,
                                std::vector<int64_t> times) {
  Violation v;
  v.lock = e.lock;
  v.message = std::move(message);
  ids.push_back(e.id);
  times.push_back(e.true_us);
  v.event_ids = std::move(ids);
  v.true_us = std::move(times);
  v.owners = {e.owner};
  return v;
}

void ReentrancyChecker::violation(const Event& e, std::string message, std::vector<uint64_t> ids,
                                  std::vector<int64_t> times) {
  Violation v = at(e, std::move(message), std::move(ids), std::move(times));
  v.set_blame(rollback_);
  // A server that lost or rolled back its data may make the counts disagree;
  // so may the owner's client, whose retried release a pause, a partition
  // or lost messages hold back past its latch's lifetime.
  v.scope.servers = true;
  v.scope.clients = FaultScope::Who::Listed;
  v.scope.client_list = {e.client};
  v.scope.crashes = false;
  report(Report::ReentrancyCountsDisagree, std::move(v));
}

void ReentrancyChecker::contract_break(const Event& e, std::string message) {
  Violation v = at(e, std::move(message) + ": the script broke its contract (no fault permits it)");
  v.facts.contract_break = true;  // its row of the permit table leaves it no scope
  report(Report::ReentrancyContractBreak, std::move(v));
}

void ReentrancyChecker::on_event(const Event& e) {
  ctx_.feed(e);
  // Built only for client events (most events are scripts and deliveries).
  auto lock_owner = [&e] { return NamePairView(e.lock, e.owner); };
  switch (e.kind) {
    case EventKind::Script:
      if (e.lock.is_member() && !groups_.contains(e.lock.group())) groups_.emplace(e.lock.group());
      on_script(e);
      break;
    case EventKind::Ok:
      if (is_acquire(e.op) && e.value == 1) {
        Count& c = slot_of(counts_, lock_owner());
        c.client = e.client;
        ++c.count;
      } else if (e.op == Op::Unlock) {
        // Judge by the count when the unlock was invoked (a hold_lost notice
        // may arrive while the release is in flight).
        auto snap = unlock_snapshots_.find(e.op_id);
        Count at_invoke = snap != unlock_snapshots_.end() ? snap->second : Count{e.client, 0, true};
        if (snap != unlock_snapshots_.end()) unlock_snapshots_.erase(snap);
        if (absent_lock_releases_.erase(e.op_id) > 0) at_invoke.unknown = true;
        if (!at_invoke.unknown) {
          if (at_invoke.count == 0 && groups_.contains(std::string_view(e.lock))) {
            // A group's unlock of members it did not hold: their scripts
            // answered, the group ignores it (section 4).
          } else if (at_invoke.count == 0) {
            violation(e, "unlock by " + e.owner.str() + ", which holds nothing, answered " + std::to_string(e.value) +
                             " instead of illegal monitor state");
          } else if (at_invoke.count > 1 && e.value != 0) {
            violation(e, "unlock of a hold nested " + std::to_string(at_invoke.count) + " deep answered " +
                             std::to_string(e.value) + " (released) instead of 0 (still held)");
          } else if (at_invoke.count == 1 && e.value != 1) {
            violation(e, "unlock of the outermost hold answered " + std::to_string(e.value) +
                             " instead of 1 (released): the server counts more holds than the client");
          }
        }
        auto it = counts_.find(lock_owner());
        if (it != counts_.end()) {
          if (it->second.count > 0) --it->second.count;
          if (e.value == 1 || (it->second.count == 0 && !it->second.unknown)) counts_.erase(it);
        }
      }
      break;
    case EventKind::Invoke:
      if (e.op == Op::Unlock) {
        auto it = counts_.find(lock_owner());
        unlock_snapshots_[e.op_id] = it != counts_.end() ? it->second : Count{e.client, 0, false};
      }
      break;
    case EventKind::Fail:
      if (e.op == Op::Unlock) {
        erase_key(counts_, lock_owner());  // illegal monitor state: nothing held
        unlock_snapshots_.erase(e.op_id);
      }
      break;
    case EventKind::Info:
      if (e.op == Op::Unlock) {
        unlock_snapshots_.erase(e.op_id);  // outcome unknown
        auto it = counts_.find(lock_owner());
        if (it != counts_.end()) it->second.unknown = true;
      } else if (e.op == Op::HoldLost) {
        erase_key(counts_, lock_owner());
      } else if (is_acquire(e.op) && e.reason == EndReason::Timeout) {
        Count& c = slot_of(counts_, lock_owner());
        c.client = e.client;
        c.unknown = true;
      }
      break;
    case EventKind::Fault:
      if (e.op == Op::Crash) {
        std::erase_if(counts_, [&](const auto& kv) { return kv.second.client == e.target; });
        std::erase_if(unlock_snapshots_, [&](const auto& kv) { return kv.second.client == e.target; });
      } else if (resets_server_state(e)) {  // restart or failover
        group_expiry_.forget_server(e.target);
        if (e.op == Op::RedisRestart && e.persistence == Persistence::None) {  // without persistence: every key is gone
          std::erase_if(server_, [&](const auto& kv) { return server_of_key(kv.first) == e.target; });
        } else {  // kept (persistence) or a replica's older copy: unknown until the next script shows it
          for (auto& [key, lock] : server_)
            if (server_of_key(key) == e.target) lock.unknown = true;
        }
        if (e.op == Op::Failover) {
          // The promoted replica may hold older counts: later count mismatches are its doing.
          rollback_ = {"server " + std::to_string(e.target) + " failed over to its replica at event #" +
                           std::to_string(e.id) + " (" + detail_text(e) + "); the hold counts rolled back",
                       {e.id}};
        }
        for (auto& [k, c] : counts_) c.unknown = true;  // holds vanished with the data
      }
      break;
    default:
      break;
  }
}

void ReentrancyChecker::on_script(const Event& e) {
  const EventFacts& facts = ctx_->facts();
  ServerLock& s = server_[server_lock_key(e.server, ctx_->lock_id())];
  // After a restart or a failover the key's expiry is the save's or the
  // promoted replica's, not the one this checker last saw: unknown until a
  // script resets it (its holders come from each script's own).
  if (s.unknown) s.expire_at_ms = INT64_MAX;
  // A faster multi-lock's value expires with its group's hash.
  const bool faster_multi = GroupHashExpiry::applies(facts);
  if (faster_multi) s.expire_at_ms = group_expiry_.before(e);
  if (e.server_ms > s.expire_at_ms) s.holders.clear();  // the key expired meanwhile
  const bool release = facts.release_script() && !s.unknown;
  s.unknown = false;
  bool latch_replay = false;  // a retried release, answered by its latch: changes nothing
  // A lock that is not reentrant promises no latch: a retry after a lost
  // reply may well answer "not owned" (its first try released the lock).
  const Release* first = release && config().reentrant && !e.request_id.empty() ? s.releases.find(e.request_id)
                                                                                 : nullptr;
  if (release && !e.request_id.empty()) {
    if (first != nullptr) {
      latch_replay = true;
      if (first->reply != e.reply)
        violation(e, "retried release " + e.request_id + " answered " + e.reply.to_text() + " but the first answered " +
                         first->reply.to_text(), {first->event_id}, {first->true_us});
      for (const std::string& h : e.holders_after)
        if (!names_contain(s.holders, h))
          violation(e, "retried release " + e.request_id + " changed the owners (added " + h + ")",
                    {first->event_id}, {first->true_us});
    } else {
      const bool fair_absent = facts.script_is(ScriptKind::FairRelease) && s.holders.empty();
      if (fair_absent && e.op_id != 0) {
        absent_lock_releases_.insert(e.op_id);
        while (absent_lock_releases_.size() > kRequestsPerLock)
          absent_lock_releases_.erase(absent_lock_releases_.begin());
      }
      if (!names_contain(s.holders, e.owner) && !fair_absent && !s.holders.empty() && !facts.reply_nil)
        contract_break(e, "release by non-owner " + e.owner.str() + " (held by " + s.holders.front() + ") answered " +
                              e.reply.to_text() + " instead of nil (not owned)");
      else if (!names_contain(s.holders, e.owner) && s.holders.empty() && (facts.script_is(ScriptKind::RlockRelease) || facts.script_is(ScriptKind::SpinRelease)) &&
               !facts.reply_nil)
        contract_break(e, "release by " + e.owner.str() + " of a free lock answered " + e.reply.to_text() +
                              " instead of nil (not owned)");
      if (!names_contain(s.holders, e.owner))
        for (const std::string& h : e.holders_after)
          if (!names_contain(s.holders, h))
            contract_break(e, "release by non-owner " + e.owner.str() + " changed the owners (added " + h + ")");
      // What a lock that is not reentrant promises instead of hold counts:
      // a release by a non-owner leaves the holder in place.
      if (!config().reentrant && !names_contain(s.holders, e.owner))
        for (const std::string& h : s.holders)
          if (!names_contain(e.holders_after, h))
            contract_break(e, "release by non-owner " + e.owner.str() + " changed the owners (removed " + h +
                                  ", which held the lock)");
      if (config().reentrant) s.releases.add(e.request_id, Release{e.reply, e.id, e.true_us});
    }
  }
  // A faster multi-lock's release that answers "not owned" changes none of
  // its values (section 4b: it checks them all before it gives any back).
  if (release && !latch_replay && facts.script_is(ScriptKind::FasterMultiRelease) && facts.reply_nil) {
    for (const std::string& h : s.holders)
      if (!names_contain(e.holders_after, h))
        contract_break(e, "faster multi-lock release by " + e.owner.str() + " answered nil (not owned) but gave " +
                              std::string(e.lock.name()) + " back (removed " + h + ")");
  }
  s.holders = e.holders_after;
  const bool granted = facts.granting_script() && facts.reply_nil && holders_contain(e, e.owner);
  const bool refreshed = granted || (facts.renew_script() && facts.reply_is(1)) ||
                         (release && !latch_replay && facts.reply_is(0));
  if (e.holders_after.empty()) s.expire_at_ms = INT64_MAX;
  else if (refreshed && e.lease_ms >= 0) s.expire_at_ms = sat_add(e.server_ms, e.lease_ms);
  if (faster_multi) {
    const int64_t group_ms = group_expiry_.after(e, refreshed, facts.renew_script());
    if (!e.holders_after.empty()) s.expire_at_ms = group_ms;
  }
}

}  // namespace locksim
