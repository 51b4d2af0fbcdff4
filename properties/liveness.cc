#include "properties/liveness.h"

#include <algorithm>
#include <cassert>
#include <string_view>

#include "model/script_call.h"

#include "properties/saturating_time.h"

namespace locksim {

void LivenessChecker::on_event(const Event& e) {
  ctx_.feed(e);
  switch (e.kind) {
    case EventKind::Invoke:
      if (is_acquire(e.op)) {
        if (auto old = waiters_.find(e.op_id); old != waiters_.end()) erase_waiter(old);  // an op_id reused
        auto [it, added] =
            waiters_.try_emplace(e.op_id, Waiter{ctx_->line().owner_name(e.owner), e.lock, e.client, e.id, e.true_us,
                                                 e.wait_ms, ctx_->faults().paused_total_ms(e.client), false, {}});
        assert(added);
        PerLock& lock = locks_[ctx_->lock_id()];
        it->second.at_lock = &lock;
        lock.waiters.push_back(&it->second);
        lock.new_waiter = true;
        note_siblings(e, &it->second);
      }
      break;
    case EventKind::Ok:
    case EventKind::Fail:
    case EventKind::Info: {
      auto it = waiters_.find(e.op_id);
      if (e.op_id == 0 || it == waiters_.end()) break;
      if (e.reason != EndReason::Crashed) check_budget(it->second, e.true_us, e.id, true);
      erase_waiter(it);
      break;
    }
    case EventKind::Script: {
      PerLock& lock = locks_[ctx_->lock_id()];
      if (e.server >= 0) lock.servers.insert(e.server);
      check_wake_up(e, lock);
      if (const FairLineMirror::Line* line = ctx_->line().find_line(ctx_->lock_id())) note_line_ahead(lock, *line);
      if (e.holders_after.empty()) {
        if (!lock.free) {
          lock.free = true;
          lock.free_since_us = e.true_us;
          lock.free_event = e.id;
        }
      } else {
        lock.free = false;
      }
      break;
    }
    case EventKind::Fault:
      if (e.op == Op::Crash) {
        locks_.for_each([&](PerLock& lock) {
          std::erase_if(lock.waiters, [&](const Waiter* w) { return w->client == e.target; });
        });
        std::erase_if(waiters_, [&](const auto& kv) { return kv.second.client == e.target; });
      } else if (e.op == Op::RedisRestart && e.persistence == Persistence::None) {
        // Data lost: every lock seen on that server is free now (a restart
        // with persistence keeps them; a multi-lock group's own name is on
        // no server).
        for (const auto& [op_id, w] : waiters_) {
          PerLock& lock = *w.at_lock;
          if (!lock.servers.count(e.target)) continue;
          if (!lock.free) {
            lock.free = true;
            lock.free_since_us = e.true_us;
            lock.free_event = e.id;
          }
        }
      }
      break;
    default:
      break;
  }
  if (e.true_us - last_scan_us_ >= 1000 * 1000) {
    last_scan_us_ = e.true_us;
    check_free_waits(e.true_us);
  }
}

void LivenessChecker::check_budget(const Waiter& w, int64_t now_us, uint64_t completion_event, bool completed) {
  if (w.wait_ms < 0) return;
  const int64_t paused_ms = sat_sub(ctx_->faults().paused_total_ms(w.client), w.paused_at_invoke_ms);
  const int64_t bound_ms = sat_add(sat_add(w.wait_ms, config().wait_slack_ms), paused_ms);
  const int64_t elapsed_ms = (now_us - w.invoke_us) / 1000;
  if (elapsed_ms <= bound_ms) return;
  Violation v;
  v.property = property::kLiveness;
  v.lock = w.lock;
  v.message = w.owner.str() + " (client " + std::to_string(w.client) + ") invoked an acquire with wait budget " +
              format_ms(w.wait_ms) + " at event #" + std::to_string(w.invoke_event) +
              (completed ? " and returned after " : " and had not returned after ") + format_ms(elapsed_ms) +
              " (bound " + format_ms(bound_ms) + ")";
  v.event_ids = {w.invoke_event};
  v.true_us = {w.invoke_us};
  if (completed) {
    v.event_ids.push_back(completion_event);
    v.true_us.push_back(now_us);
  }
  v.owners = {w.owner};
  v.facts.named_ids = {w.invoke_event};
  v.facts.bound_ms = bound_ms;
  v.set_blame(blame(w, now_us));
  v.scope = scope_of(w);
  report(Report::LivenessWaitPastBound, std::move(v));
}

void LivenessChecker::note_line_ahead(PerLock& lock, const FairLineMirror::Line& fair_line) {
  // The line is as it was at this lock's last note and nobody new waits on it.
  if (!lock.new_waiter && lock.noted_line_version == fair_line.version) return;
  lock.noted_line_version = fair_line.version;
  lock.new_waiter = false;
  const FairLineMirror::Waiters* line = &fair_line.waiters;
  if (line->empty()) return;
  // A line only loses entries or gains them at its tail, so a waiter that
  // is in it with the same enqueue time as at its last note has nobody new
  // ahead of it: only waiters that (re)joined or are outside it are scanned.
  // A waiter's place moves little between notes (heads leave, tails join):
  // it is looked for near its place at the last note first, when the line
  // names each owner once (else its first place counts).
  const size_t line_size = line->size();
  const bool unique = fair_line.unique_owners;
  for (Waiter* waiter : lock.waiters) {
    Waiter& w = *waiter;
    size_t at = line_size;
    for (size_t probe : {w.noted_line_pos, w.noted_line_pos - 1, w.noted_line_pos + 1}) {
      if (!unique) break;
      if (probe < line_size && (*line)[probe].owner.is(w.owner)) {
        at = probe;
        break;
      }
    }
    if (at == line_size) {
      for (size_t i = 0; i < line_size; ++i) {
        if ((*line)[i].owner.is(w.owner)) {
          at = i;
          break;
        }
      }
    }
    const int64_t enqueue_us = at == line_size ? Waiter::kNotInLine : (*line)[at].enqueue_us;
    if (at != line_size) w.noted_line_pos = at;
    if (enqueue_us != Waiter::kNotInLine && enqueue_us == w.noted_enqueue_us) continue;
    w.noted_enqueue_us = enqueue_us;
    if (at == 0) continue;
    // client -> 1 + its place in w.ahead, for this scan (a line is long:
    // one lookup per entry ahead).
    for (size_t k = 0; k < w.ahead.size(); ++k) ahead_index(w.ahead[k].first) = k + 1;
    for (size_t i = 0; i < at; ++i) {
      const auto& ahead = (*line)[i];
      if (ahead.client < 0 || ahead.client == w.client) continue;
      uint32_t& place = ahead_index(ahead.client);
      if (place == 0) {
        if (w.ahead.size() >= kMaxAhead) continue;
        w.ahead.emplace_back(ahead.client, Waiter::Ahead{ahead.owner, ahead.enqueue_us, ahead.enqueue_event});
        place = static_cast<uint32_t>(w.ahead.size());
      } else if (Waiter::Ahead& noted = w.ahead[place - 1].second; noted.enqueue_event != ahead.enqueue_event) {
        noted.owner = ahead.owner;
        noted.since_us = ahead.enqueue_us;
        noted.enqueue_event = ahead.enqueue_event;
      }
    }
    for (const auto& [client, noted] : w.ahead) ahead_index(client) = 0;
  }
}

void LivenessChecker::erase_waiter(std::map<uint64_t, Waiter>::iterator it) {
  auto& of_lock = it->second.at_lock->waiters;
  auto pos = std::find(of_lock.begin(), of_lock.end(), &it->second);
  assert(pos != of_lock.end());
  of_lock.erase(pos);
  waiters_.erase(it);
}

// The faults that may hold a correct waiter up past its bound: its own
// client's (a partition, a lost request or reply and the timeout it waits
// out, a lost wake-up) and its lock's servers'. Not the holder's: its pause
// or crash keeps the lock held, which no bound counts against a waiter; not
// a waiter's ahead in a fair line: the bound runs from the end of the slots
// ahead, which a crashed, cut off or silent waiter ahead holds at most.
FaultScope LivenessChecker::scope_of(const Waiter& w) const {
  FaultScope scope;
  scope.clients = FaultScope::Who::Listed;
  scope.client_list.push_back(w.client);
  scope.servers = true;
  if (w.at_lock != nullptr) scope.server_list.assign(w.at_lock->servers.begin(), w.at_lock->servers.end());
  return scope;
}

Blame LivenessChecker::blame(const Waiter& w, int64_t now_us) const {
  // Rank: lower is a better explanation.
  //  0  its own client lost a wake-up or a subscription;
  //  1  a waiter ahead of it in the fair line crashed, was cut off, lost a
  //     message or paused >= 1 s: it could not take its turn or leave cleanly,
  //     and nobody wakes the next waiter when a head leaves or is purged;
  //  2  its own client was cut off or lost a request or reply;
  //  3  its own request timed out (a delay beyond the request timeout);
  //  4  a server fault.
  // A lost message matters only when it concerns this lock.
  const std::string lock = w.lock;
  // (A call's lock, or the lock a channel belongs to: traces/lost_message.h.)
  auto about_lock = [&lock](const ClientFault& f) { return !f.lost.lock.empty() && f.lost.lock == lock; };
  auto own_rank = [&](const ClientFault& f) -> int {
    if (is_lost(f.kind) && !about_lock(f)) return -1;
    if (f.kind == FaultKind::LostMessage || f.kind == FaultKind::LostSubscribe) return 0;
    if (is_lost(f.kind) || f.kind == FaultKind::Partition) return 2;
    if (f.kind == FaultKind::RequestTimeout) return 3;
    return -1;
  };
  // Among the faults of waiters ahead: lower is worse for the line.
  auto ahead_rank = [&](const ClientFault& f) -> int {
    if (f.kind == FaultKind::Crash || f.kind == FaultKind::Partition) return 0;
    if (is_lost(f.kind) && about_lock(f)) return 1;
    if (f.kind == FaultKind::RequestTimeout) return 2;
    if (f.kind == FaultKind::Pause && f.duration_ms >= 1000) return 3;
    return -1;
  };
  int best_rank = 99;
  Blame best;
  for (const ClientFault& f : ctx_->faults().faults_between(w.client, w.invoke_us, now_us)) {
    const int rank = own_rank(f);
    if (rank >= 0 && rank < best_rank) {
      best_rank = rank;
      best = {describe_client_fault(w.client, f) + " while " + w.owner.str() + " waited", {f.event_id}};
    }
  }
  if (best_rank > 1) {
    int best_ahead = 99;
    // By client: the first of equally bad faults is the lowest client's.
    std::vector<const std::pair<int, Waiter::Ahead>*> by_client;
    by_client.reserve(w.ahead.size());
    for (const auto& entry : w.ahead) by_client.push_back(&entry);
    std::sort(by_client.begin(), by_client.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    for (const auto* entry : by_client) {
      const auto& [client, ahead] = *entry;
      const int64_t from_us = std::min(ahead.since_us, w.invoke_us);
      for (const ClientFault& f : ctx_->faults().faults_between(client, from_us, now_us)) {
        const int rank = ahead_rank(f);
        if (rank < 0 || rank >= best_ahead) continue;
        best_ahead = rank;
        best_rank = 1;
        best = {describe_client_fault(client, f) + ", while " + ahead.owner.str() + " was ahead of " +
                    w.owner.str() + " in the line (a head that leaves or is purged wakes nobody)",
                {f.event_id}};
      }
    }
  }
  if (best.text.empty()) {
    for (const ClientFault& f : ctx_->faults().server_faults_between(w.invoke_us, now_us))
      return {"server " + std::string(fault_log_name(f.kind)) + " at event #" + std::to_string(f.event_id), {f.event_id}};
  }
  return best;
}

void LivenessChecker::note_siblings(const Event& e, Waiter* w) {
  // One acquire of several values of a group (a faster multi-lock) is
  // recorded as one Invoke per value, one after the other, at one instant.
  const bool same_acquire = e.lock.is_member() && !siblings_.empty() && siblings_event_ + 1 == e.id &&
                            siblings_us_ == e.true_us && siblings_client_ == e.client &&
                            siblings_.front()->owner == w->owner && siblings_.front()->lock.group() == e.lock.group();
  if (!same_acquire) siblings_.clear();
  siblings_event_ = e.id;
  siblings_us_ = e.true_us;
  siblings_client_ = e.client;
  if (!e.lock.is_member()) return;
  for (Waiter* other : siblings_) {
    other->siblings.push_back(w->at_lock);
    w->siblings.push_back(other->at_lock);
  }
  siblings_.push_back(w);
}

void LivenessChecker::check_free_waits(int64_t now_us) {
  // Only waiters of a lock the server shows free can be reported: when no
  // lock with waiters is free (the usual case), there is nothing to walk.
  bool any_free = false;
  locks_.for_each([&](const PerLock& lock) { any_free = any_free || (lock.free && !lock.waiters.empty()); });
  if (!any_free) return;
  for (auto& [op_id, w] : waiters_) {
    if (w.free_reported) continue;
    const PerLock& lock = *w.at_lock;
    if (!lock.free) continue;
    // An acquire of several values waits until every one of them is free.
    const bool siblings_free =
        std::all_of(w.siblings.begin(), w.siblings.end(), [](const PerLock* s) { return s->free; });
    if (!siblings_free) continue;
    int64_t since_us = std::max(lock.free_since_us, w.invoke_us);
    for (const PerLock* s : w.siblings) since_us = std::max(since_us, s->free_since_us);
    if (ctx_->line().is_fair(w.lock)) {
      if (auto ahead_ms = ctx_->line().latest_deadline_ahead_ms(w.lock, w.owner))
        since_us = std::max(since_us, ms_to_us(*ahead_ms));
    }
    const int64_t paused_ms = sat_sub(ctx_->faults().paused_total_ms(w.client), w.paused_at_invoke_ms);
    const int64_t waited_ms = sat_sub(sat_sub(now_us, since_us) / 1000, paused_ms);
    if (waited_ms <= config().free_lock_bound_ms) continue;
    w.free_reported = true;
    Violation v;
    v.lock = w.lock;
    v.message = w.owner.str() + " (client " + std::to_string(w.client) + ") has waited " + format_ms(waited_ms) +
                " for a lock the server shows free since event #" + std::to_string(lock.free_event) +
                " (bound " + format_ms(config().free_lock_bound_ms) + ")";
    v.event_ids = {w.invoke_event, lock.free_event};
    v.true_us = {w.invoke_us, lock.free_since_us};
    v.owners = {w.owner};
    v.facts.named_ids = {lock.free_event};
    v.facts.bound_ms = config().free_lock_bound_ms;
    v.facts.free_since_event = lock.free_event;
    v.set_blame(blame(w, now_us));
    v.scope = scope_of(w);
    report(Report::LivenessWaitPastBound, std::move(v));
  }
}

void LivenessChecker::check_wake_up(const Event& e, PerLock& lock) {
  // A polling design publishes nothing: its waiters come back on their own.
  const EventFacts& facts = ctx_->facts();
  const bool faster_multi = facts.script_is(ScriptKind::FasterMultiRelease);
  if (config().wake.mode != WakeMode::PubSub || !(facts.script_is(ScriptKind::RlockRelease) || faster_multi)) return;
  const bool replay = !e.request_id.empty() && lock.release_ids.seen_before(e.request_id);
  if (replay || !e.reply.is(1)) return;
  // A faster multi-lock's value wakes its waiters on the group's channel.
  const std::string channel = LockKeys::channel(faster_multi ? std::string(e.lock.group()) : e.lock.name());
  const bool woke = std::any_of(e.published.begin(), e.published.end(), [&](const std::string& p) {
    return p.size() > channel.size() && p.compare(0, channel.size() + 1, channel + " ") == 0;
  });
  if (woke) return;
  Violation v;
  v.lock = e.lock;
  std::string got;
  for (const std::string& p : e.published) got += (got.empty() ? "" : ", ") + p;
  v.message = "release by " + e.owner.str() + " answered 1 (released) but published " +
              (got.empty() ? std::string("nothing") : "only [" + got + "]") + " instead of a wake-up on " + channel +
              ": waiters sleep until their poll";
  v.event_ids = {e.id};
  v.true_us = {e.true_us};
  v.owners = {e.owner};
  report(Report::LivenessReleaseWokeNobody, std::move(v));
}

void LivenessChecker::finish(int64_t end_true_us) {
  check_free_waits(end_true_us);
  for (const auto& [op_id, w] : waiters_) check_budget(w, end_true_us, 0, false);
}

}  // namespace locksim
