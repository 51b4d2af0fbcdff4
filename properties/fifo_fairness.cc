#include "properties/fifo_fairness.h"

#include "properties/saturating_time.h"

namespace locksim {

void FifoFairnessChecker::on_event(const Event& e) {
  ctx_.feed(e);
  const EventFacts& facts = ctx_->facts();
  if (e.kind == EventKind::Script && facts.fair_prefix) {
    script_clients_[ctx_->lock_id()].insert(e.client);
  }
  if (const auto& grant = ctx_->grant()) check_grant(*grant);
  check_purged(e);
  if (e.line_known) check_stale_head(e);
  else check_stale_tail(e);
  if (ctx_->line().refused_free_lock()) {
    Violation v;
    v.lock = e.lock;
    v.message = e.owner.str() + " (client " + std::to_string(e.client) + ") polled a free fair lock at event #" +
                std::to_string(e.id) + " and was answered " + e.reply.to_text() +
                " instead of the lock, although every waiter ahead of it was past its slot: stale waiters "
                "were not purged";
    v.event_ids = {e.id};
    v.true_us = {e.true_us};
    v.owners = {e.owner};
    v.facts.named_ids = {e.id};
    report(Report::FifoFreeLockRefused, std::move(v));
  }
}

// Bounds mode (version 1 traces) only. On the server a waiter's deadline is exactly its predecessor's plus its own
// wait_ms (enqueue sets it so; a grant lowers all alike; acquire_failed
// lowers everyone behind the leaver by the leaver's wait_ms), so deadlines
// grow along the line. A fair_acquire that enqueues answers ttl = tail's
// deadline - now; ttl <= -2 (-1 could be the PTTL of a lock without expiry)
// means the tail, hence every waiter, was past its slot by the requester's
// own `now`: the purge that ran first would have emptied the line. Clock-free.
void FifoFairnessChecker::check_stale_tail(const Event& e) {
  const EventFacts& facts = ctx_->facts();
  if (e.kind != EventKind::Script || !facts.script_is(ScriptKind::FairAcquire) || !facts.reply_integer ||
      *facts.reply_integer > -2)
    return;
  const int64_t ttl_ms = *facts.reply_integer;
  Violation v;
  v.lock = e.lock;
  v.message = e.owner.str() + " (client " + std::to_string(e.client) + ") joined the line at event #" +
              std::to_string(e.id) + " behind a waiter " + format_ms(sat_sub(0, ttl_ms)) +
              " past its slot by its own clock (answered " + e.reply.to_text() +
              "); deadlines grow along the line, so every waiter ahead was past its slot: stale waiters were not "
              "purged";
  v.event_ids = {e.id};
  v.true_us = {e.true_us};
  v.owners = {e.owner};
  v.facts.named_ids = {e.id};
  report(Report::FifoJoinedBehindStale, std::move(v));
}

// Exact mode: a script that purges left a head whose deadline was already
// <= the now_ms it was given (server truth: line_after and local_ms).
void FifoFairnessChecker::check_stale_head(const Event& e) {
  if (const auto& w = ctx_->line().rewritten()) {
    Violation v;
    v.lock = e.lock;
    v.message = e.script + " of " + e.owner.str() + " (client " + std::to_string(e.client) + ") at event #" +
                std::to_string(e.id) + " was refused yet moved the slot deadline of " + w->owner.str() + " from " +
                std::to_string(w->deadline_lo_ms) + " ms to " + std::to_string(w->deadline_hi_ms) +
                " ms: a poll must not rewrite deadlines (they would drift, and the line's order with them)";
    v.event_ids = {w->enqueue_event, e.id};
    v.true_us = {w->enqueue_us, e.true_us};
    v.owners = {w->owner, e.owner};
    v.facts.named_ids = {e.id};
    // The line before is the one this checker last saw: after a failover
    // the promoted replica may hold an older one (the scripts that moved
    // the deadline were never replicated), after a restart with
    // persistence an older save. Only a server fault may explain it (its
    // row of the permit table).
    report(Report::FifoRefusedPollMovedDeadline, std::move(v));
  }
  const auto& head = ctx_->line().stale_head();
  if (!head) return;
  Violation v;
  v.lock = e.lock;
  v.message = e.script + " of " + e.owner.str() + " (client " + std::to_string(e.client) + ") at event #" +
              std::to_string(e.id) + " ran with now " + std::to_string(e.local_ms) + " ms but left " +
              head->owner.str() + " at the head of the line with a deadline of " +
              std::to_string(head->deadline_hi_ms) + " ms (" + format_ms(sat_sub(e.local_ms, head->deadline_hi_ms)) +
              " past its slot): stale waiters were not purged";
  v.event_ids = {head->enqueue_event, e.id};
  v.true_us = {head->enqueue_us, e.true_us};
  v.owners = {head->owner, e.owner};
  v.facts.named_ids = {e.id};
  report(Report::FifoStaleHead, std::move(v));
}

// A waiter the server surely dropped although it was still waiting and, by
// its own clock, surely inside its slot by more than the tolerance.
void FifoFairnessChecker::check_purged(const Event& e) {
  for (const FairLineMirror::Waiter& w : ctx_->line().purged()) {
    const FairLineMirror::ClockBounds waiter_now = ctx_->line().client_now_bounds(w.client, e.true_us);
    if (waiter_now.hi_ms >= FairLineMirror::kUnknownHighMs) continue;
    if (w.deadline_lo_ms <= sat_add(waiter_now.hi_ms, config().purge_tolerance_ms)) continue;  // stale by its clock
    if (!ctx_->line().is_waiting(w.owner, e.lock)) continue;                                  // gave up or crashed
    Violation v;
    v.lock = e.lock;
    v.message = w.owner.str() + " (client " + std::to_string(w.client) + "), who joined the line at event #" +
                std::to_string(w.enqueue_event) + ", was purged as stale by " + e.script + " of client " +
                std::to_string(e.client) + " at event #" + std::to_string(e.id) + " while still waiting with " +
                format_ms(sat_sub(w.deadline_lo_ms, waiter_now.hi_ms)) + " of its slot left by its own clock";
    v.event_ids = {w.enqueue_event, e.id};
    v.true_us = {w.enqueue_us, e.true_us};
    v.owners = {w.owner, e.owner};
    v.facts.named_ids = {w.enqueue_event, e.id};
    v.blamed_fault = explain_skew(w.client, e.lock);
    v.facts.blames_clock_setup = !v.blamed_fault.empty();
    // Any fault may explain it (its row): clocks (skew, jumps) and delays
    // decide who looks stale.
    report(Report::FifoPassedOrPurged, std::move(v));
    return;  // one violation per purge
  }
}

void FifoFairnessChecker::check_grant(const FairLineMirror::Grant& g) {
  for (const FairLineMirror::Waiter& w : g.skipped) {
    // Judged by the waiter's own clock: had its slot surely not ended?
    const FairLineMirror::ClockBounds waiter_now = ctx_->line().client_now_bounds(w.client, g.true_us);
    if (waiter_now.hi_ms >= FairLineMirror::kUnknownHighMs) continue;
    if (w.deadline_lo_ms <= sat_add(waiter_now.hi_ms, config().purge_tolerance_ms)) continue;  // stale: legitimately purged
    if (!ctx_->line().is_waiting(w.owner, g.lock)) continue;                                   // gave up or crashed
    const int64_t waiter_now_ms = waiter_now.hi_ms;
    Violation v;
    v.lock = g.lock;
    v.message = g.owner + " (client " + std::to_string(g.client) + ") was granted at event #" +
                std::to_string(g.event_id) + " ahead of " + w.owner.str() + " (client " + std::to_string(w.client) +
                "), who joined the line earlier at event #" + std::to_string(w.enqueue_event) +
                 " and was still waiting with " + format_ms(sat_sub(w.deadline_lo_ms, waiter_now_ms)) +
                " of its slot left by its own clock";
    v.event_ids = {w.enqueue_event, g.event_id};
    v.true_us = {w.enqueue_us, g.true_us};
    v.owners = {w.owner, g.owner};
    v.facts.named_ids = {g.event_id, w.enqueue_event};
    v.blamed_fault = explain_skew(w.client, g.lock);
    v.facts.blames_clock_setup = !v.blamed_fault.empty();
    report(Report::FifoPassedOrPurged, std::move(v));
    return;  // one violation per grant
  }
}

// Skew explains a premature purge when some client that ran a fair script on
// this lock has a clock ahead of the purged waiter's by more than the
// tolerance: its now_ms made the waiter's deadline look past.
std::string FifoFairnessChecker::explain_skew(int purged_client, const std::string& lock) const {
  const int64_t waiter_offset = ctx_->faults().clock_offset_ms(purged_client).value_or(0);
  int best_client = -1;
  int64_t best_offset = 0;
  if (const std::set<int>* clients = script_clients_.find(ctx_->locks().find(lock))) {
    for (int c : *clients) {
      if (c == purged_client) continue;
      const int64_t off = ctx_->faults().clock_offset_ms(c).value_or(0);
      if (best_client < 0 || off > best_offset) { best_client = c; best_offset = off; }
    }
  }
  if (best_client < 0 || sat_sub(best_offset, waiter_offset) <= config().purge_tolerance_ms) return "";
  const std::string waiter = "client " + std::to_string(purged_client);
  if (best_offset >= sat_sub(0, waiter_offset))
    return "client " + std::to_string(best_client) + "'s clock is " + format_ms(best_offset) + " ahead" +
           (waiter_offset != 0 ? " (" + waiter + "'s: " + format_ms(waiter_offset) + ")" : std::string()) +
           ": its deadline purged " + waiter + ", who was still waiting";
  return waiter + "'s clock is " + format_ms(sat_sub(0, waiter_offset)) +
         " behind: its slot deadline looked past to the others, so it was purged while still waiting";
}

}  // namespace locksim
