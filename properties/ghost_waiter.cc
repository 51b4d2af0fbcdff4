#include "properties/ghost_waiter.h"

#include <algorithm>

#include "properties/saturating_time.h"
#include "traces/event_detail.h"

namespace locksim {

bool GhostWaiterChecker::in_line(const SharedLine& line, const std::string& owner) {
  return std::any_of(line.begin(), line.end(), [&owner](const LineEntry& w) { return w.owner == owner; });
}

void GhostWaiterChecker::on_event(const Event& e) {
  ctx_.feed(e);
  if (!give_ups_.empty()) judge_overdue(e.true_us);
  const EventFacts& facts = ctx_->facts();
  switch (e.kind) {
    case EventKind::Script:
      if (facts.fair_prefix) {
        fair_locks_.insert(e.lock);
        if (facts.script_is(ScriptKind::FairAcquire))
          if (auto p = pending_.find(e.op_id); p != pending_.end() && e.op_id != 0) p->second.polled = true;
        if (e.line_known) on_line(e);
      }
      break;
    case EventKind::Invoke:
      if (is_acquire(e.op)) {  // a lock is known fair once a fair script ran on it (maybe after this)
        pending_[e.op_id] = Pending{e.lock, e.true_us, false, false};
        // The owner asks again: its old give-up is settled (it may join the
        // line again, or keep its old place).
        if (auto g = give_ups_.find(e.owner); g != give_ups_.end() && g->second.lock == e.lock) give_ups_.erase(g);
      }
      break;
    case EventKind::Info:
      if (e.op == Op::AcquireFailed) {
        if (auto p = pending_.find(e.op_id); p != pending_.end()) p->second.failed_sent = true;
        break;
      }
      [[fallthrough]];
    case EventKind::Ok:
    case EventKind::Fail: {
      auto p = pending_.find(e.op_id);
      if (p == pending_.end() || e.op_id == 0) break;
      // A waiter that polled the line (a try_once never joins it), or whose
      // request timed out (it may join the line after the give-up).
      const bool waited = p->second.polled || (e.kind == EventKind::Info && e.reason == EndReason::Timeout);
      const bool gave_up = (e.kind == EventKind::Fail || (e.kind == EventKind::Info && e.reason != EndReason::Crashed)) &&
                           waited && fair_locks_.count(p->second.lock) != 0;
      if (gave_up) {
        GiveUp g;
        g.lock = p->second.lock;
        g.client = e.client;
        g.op_id = e.op_id;
        g.event_id = e.id;
        g.true_us = e.true_us;
        g.invoke_us = p->second.invoke_us;
        g.failed_sent = p->second.failed_sent;
        g.how = (e.kind == EventKind::Fail ? "gave up waiting (" : "stopped waiting (") + detail_text(e) + ")";
        give_ups_[e.owner] = std::move(g);
      }
      pending_.erase(p);
      break;
    }
    case EventKind::Fault:
      if (e.op == Op::Crash) {
        std::erase_if(give_ups_, [&](const auto& kv) { return kv.second.client == e.target; });
      }
      break;
    default:
      break;
  }
}

// Give-ups past 2 x the request timeout whose lock's latest line still
// holds their owner: whatever was sent had time to arrive.
void GhostWaiterChecker::judge_overdue(int64_t now_us) {
  const int64_t grace_us = 2 * config().request_timeout_ms * 1000;
  for (auto it = give_ups_.begin(); it != give_ups_.end();) {
    const GiveUp& g = it->second;
    auto last = last_line_.find(g.lock);
    if (now_us <= sat_add(g.true_us, grace_us) || last == last_line_.end() || !in_line(last->second.line, it->first)) {
      ++it;
      continue;
    }
    report_ghost(it->first, g, nullptr, &last->second,
                 std::string(g.failed_sent ? "its acquire_failed had not arrived" : "it sent no acquire_failed") +
                     ", and the line still held it " + format_ms(sat_sub(now_us, g.true_us) / 1000) + " after");
    it = give_ups_.erase(it);
  }
}

// A fair script's line: the give-ups of its lock it settles or shows to be ghosts.
void GhostWaiterChecker::on_line(const Event& e) {
  LastLine& last = last_line_[e.lock];
  last.line = e.line_after;
  last.event_id = e.id;
  last.true_us = e.true_us;
  const int64_t grace_us = 2 * config().request_timeout_ms * 1000;
  const bool own_failed_script = ctx_->facts().script_is(ScriptKind::FairAcquireFailed);
  for (auto it = give_ups_.begin(); it != give_ups_.end();) {
    const std::string& owner = it->first;
    const GiveUp& g = it->second;
    if (g.lock != e.lock) { ++it; continue; }
    if (!in_line(e.line_after, owner)) { it = give_ups_.erase(it); continue; }
    std::string why;
    if (!g.failed_sent) {
      why = "it sent no acquire_failed";
    } else if (own_failed_script && e.owner == owner && e.op_id == g.op_id) {
      why = e.reply.is_error() ? "its acquire_failed answered " + e.reply.to_text()
                               : "its acquire_failed left it there";
    } else if (e.true_us > sat_add(g.true_us, grace_us)) {
      why = "its acquire_failed had not arrived " + format_ms(sat_sub(e.true_us, g.true_us) / 1000) + " later";
    }
    if (why.empty()) { ++it; continue; }
    report_ghost(owner, g, &e, nullptr, why);
    it = give_ups_.erase(it);
  }
}

Blame GhostWaiterChecker::blame(const GiveUp& g, int64_t now_us) const {
  for (const ClientFault& f : ctx_->faults().faults_between(g.client, g.true_us, now_us)) {
    if (f.kind == FaultKind::LostRequest && f.lost_script == ScriptKind::FairAcquireFailed)
      return {"client " + std::to_string(g.client) + "'s acquire_failed request was lost at event #" +
                  std::to_string(f.event_id),
              {f.event_id}};
    if (f.kind == FaultKind::Partition) return {describe_client_fault(g.client, f), {f.event_id}};
  }
  for (const ClientFault& f : ctx_->faults().server_faults_between(g.invoke_us, now_us))
    if (f.kind == FaultKind::Failover) return {describe_server_fault(f), {}, {f.event_id}};  // it writes a time, not an id
  return {};
}

void GhostWaiterChecker::report_ghost(const std::string& owner, const GiveUp& g, const Event* seen,
                                      const LastLine* last, const std::string& why) {
  const uint64_t seen_id = seen != nullptr ? seen->id : last->event_id;
  const int64_t seen_us = seen != nullptr ? seen->true_us : last->true_us;
  Violation v;
  v.lock = g.lock;
  const std::string gave_up = owner + " (client " + std::to_string(g.client) + ") " + g.how + " at event #" +
                              std::to_string(g.event_id);
  if (seen != nullptr) {
    v.message = gave_up + " but was still in the server's line at event #" + std::to_string(seen_id) + ", " +
                format_ms(std::max<int64_t>(0, sat_sub(seen_us, g.true_us)) / 1000) + " later (" + why + ")";
  } else {
    v.message = gave_up + " but the server's line, as last shown at event #" + std::to_string(seen_id) +
                ", still held it (" + why + ")";
  }
  v.message += ": a ghost waiter holds up those behind it until its slot ends";
  v.event_ids = {g.event_id, seen_id};
  v.true_us = {g.true_us, seen_us};
  v.owners = {owner};
  v.facts.named_ids = {g.event_id, seen_id};
  v.set_blame(blame(g, seen_us));
  v.scope.clients = FaultScope::Who::Listed;
  v.scope.client_list = {g.client};
  v.scope.client_from_us = g.invoke_us;
  v.scope.crashes = false;
  v.scope.servers = true;
  v.scope.server_from_us = g.invoke_us;
  report(Report::GhostLeftInLine, std::move(v));
}

void GhostWaiterChecker::finish(int64_t end_true_us) {
  const int64_t grace_us = 2 * config().request_timeout_ms * 1000;
  for (const auto& [owner, g] : give_ups_) {
    auto last = last_line_.find(g.lock);
    if (last == last_line_.end() || !in_line(last->second.line, owner)) continue;
    if (!g.failed_sent) {
      report_ghost(owner, g, nullptr, &last->second, "it sent no acquire_failed, and the line still held it at the end");
    } else if (end_true_us > sat_add(g.true_us, grace_us)) {
      report_ghost(owner, g, nullptr, &last->second,
                   "its acquire_failed never arrived, and the line still held it at the end");
    }
  }
  give_ups_.clear();
}

}  // namespace locksim
