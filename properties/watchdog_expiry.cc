#include "properties/watchdog_expiry.h"

#include <algorithm>

#include "properties/saturating_time.h"

namespace locksim {

void WatchdogExpiryChecker::on_event(const Event& e) {
  ctx_.feed(e);
  prune(e.true_us);
  const uint64_t op_floor = max_op_id_;  // newest op_id before this event
  if (e.op_id > max_op_id_) max_op_id_ = e.op_id;
  // Built only for client events (most events are scripts and deliveries).
  auto lock_owner = [&e] { return NamePairView(e.lock, e.owner); };
  switch (e.kind) {
    case EventKind::Script:
      on_script(e);
      break;
    case EventKind::Invoke:
      if (is_acquire(e.op)) {
        pending_[e.op_id] = {e.lease_ms, e.true_us};
      } else if (e.op == Op::Unlock) {
        auto it = owners_.find(lock_owner());
        if (it != owners_.end() && it->second.count > 0) --it->second.count;
      }
      break;
    case EventKind::Ok:
      if (is_acquire(e.op) && e.value == 1) {
        auto p = pending_.find(e.op_id);
        const int64_t lease_ms = p == pending_.end() ? e.lease_ms : p->second.lease_ms;
        OwnerState& s = slot_of(owners_, lock_owner());
        if (s.count == 0) {
          s = OwnerState{};
          s.client = e.client;
          s.hold_event = e.id;
          s.hold_start_us = e.true_us;
          s.hold_invoke_us = p == pending_.end() ? e.true_us : std::min(p->second.invoke_us, e.true_us);
          s.hold_grant_us = p == pending_.end() || p->second.grant_us < 0 ? e.true_us
                                                                          : std::min(p->second.grant_us, e.true_us);
          s.hold_op_floor = op_floor;
        }
        ++s.count;
        s.lease_ms = lease_ms;
        if (lease_ms < 0) s.watchdog = true;
        else s.lease_expiry_us = sat_add(e.true_us, ms_to_us(lease_ms));
      } else if (e.op == Op::Unlock && e.value == 1) {
        auto it = owners_.find(lock_owner());
        if (it != owners_.end() && it->second.count == 0) {
          it->second.released = true;
          it->second.release_event = e.id;
          it->second.release_us = e.true_us;
          it->second.release_op_floor = op_floor;
        }
      }
      pending_.erase(e.op_id);
      break;
    case EventKind::Fail:
      if (e.op == Op::Unlock && e.reason == EndReason::IllegalMonitorState) {
        on_hold_lost(e, "its unlock answered illegal monitor state");
      }
      pending_.erase(e.op_id);
      break;
    case EventKind::Info:
      if (e.op == Op::HoldLost) on_hold_lost(e, "hold_lost (renewal answered 0)");
      else if (e.reason == EndReason::Timeout && is_acquire(e.op)) {
        auto it = owners_.find(lock_owner());
        if (it != owners_.end()) it->second.counts_unknown = true;
      }
      if (e.op_id != 0 && is_acquire(e.op)) pending_.erase(e.op_id);
      break;
    case EventKind::Fault:
      if (e.op == Op::Crash) crashed_[e.target] = true;
      if (e.op == Op::Restart) crashed_[e.target] = false;
      break;
    default:
      break;
  }
}

void WatchdogExpiryChecker::on_script(const Event& e) {
  const EventFacts& facts = ctx_->facts();
  const LeaseBook& leases = ctx_->leases();
  const bool granted_now = leases.granted();
  // When the server first held the owner for a pending acquire (a group's
  // release of its touched members starts a round again).
  if (auto p = e.op_id != 0 ? pending_.find(e.op_id) : pending_.end(); p != pending_.end()) {
    if (facts.release_script()) {
      p->second.grant_us = -1;
    } else if (p->second.grant_us < 0 && holders_contain(e, e.owner)) {
      p->second.grant_us = e.true_us;
    }
  }

  // 1. The key must be gone once the server clock passed its expiry.
  if (const auto& expired = leases.expired()) {
    for (const std::string& holder : e.holders_after) {
      if (granted_now && holder == e.owner) continue;
      const LeaseBook::KeyLease& k = *expired;
      Violation v;
      v.lock = e.lock;
      auto os = owners_.find(NamePairView(e.lock, holder));
      const bool crashed = os != owners_.end() && crashed_[os->second.client];
      v.message = std::string(crashed ? "crashed holder " : "holder ") + holder +
                  " still holds the lock at server time " + std::to_string(e.server_ms) +
                  " ms, past its expiry at " + std::to_string(k.expire_at_ms) +
                  " ms (last acquire/renewal at event #" + std::to_string(k.refresh_event) + ")";
      v.event_ids = {k.refresh_event, e.id};
      v.true_us = {k.refresh_us, e.true_us};
      v.owners = {holder};
      v.facts.named_ids = {k.refresh_event};
      report(Report::WatchdogHeldPastExpiry, std::move(v));
      break;
    }
  }

  // 1b. The key's remaining time (PTTL, answered by a refused acquire) must
  //     match its last refresh: a shorter one means an expiry was not reset.
  if (const auto& k = leases.pttl_contradicted()) {
    const int64_t pttl_ms = *facts.reply_integer;
    Violation v;
    v.lock = e.lock;
    v.message = "the lock key expires in " + format_ms(pttl_ms) + " (PTTL answered to " + e.owner.str() +
                ") but its last acquire/renewal by " + k->refreshed_by + " at event #" +
                std::to_string(k->refresh_event) + " set it to expire in " +
                format_ms(sat_sub(k->expire_at_ms, e.server_ms)) + ": the expiry was not reset";
    v.event_ids = {k->refresh_event, e.id};
    v.true_us = {k->refresh_us, e.true_us};
    v.owners = {k->refreshed_by};
    v.facts.named_ids = {k->refresh_event};
    report(Report::WatchdogKeyExpiry, std::move(v));
  }

  // Refreshes of the key's expiry (the LeaseBook keeps them).
  const bool renewed = leases.renewed();
  if (leases.partial_release()) {
    // A partial release resets the expiry to the client's lease where it
    // first runs (a retry answered by the latch changes nothing).
    auto os = owners_.find(NamePairView(e.lock, e.owner));
    if (os != owners_.end() && os->second.lease_ms >= 0) os->second.lease_expiry_us = sat_add(e.true_us, ms_to_us(e.lease_ms));
  }

  if (!facts.renew_script()) return;
  // 2. Renewal succeeds only for a holder.
  if (renewed && !holders_contain(e, e.owner)) {
    Violation v;
    v.lock = e.lock;
    v.message = "renewal by " + e.owner.str() + " answered 1 but it does not hold the lock" +
                (e.holders_after.empty() ? std::string() : " (held by " + e.holders_after.front() + ")");
    v.event_ids = {e.id};
    v.true_us = {e.true_us};
    v.owners = {e.owner};
    report(Report::WatchdogRenewedForNonOwner, std::move(v));
  }
  // 4. No renewal after the final release; none for explicit-lease holds.
  auto os = owners_.find(NamePairView(e.lock, e.owner));
  if (os == owners_.end()) return;
  const OwnerState& s = os->second;
  const bool started_after_release =
      e.op_id > s.release_op_floor && e.true_us > sat_add(s.release_us, ms_to_us(config().renew_grace_ms));
  if (s.released && (renewed || started_after_release)) {
    Violation v;
    v.lock = e.lock;
    v.message = std::string(renewed ? "renewal succeeded " : "a watchdog renewal was started ") +
                format_ms((e.true_us - s.release_us) / 1000) + " after " + e.owner.str() +
                "'s final release completed at event #" + std::to_string(s.release_event) +
                " (the watchdog was not cancelled)";
    v.event_ids = {s.release_event, e.id};
    v.true_us = {s.release_us, e.true_us};
    v.owners = {e.owner};
    v.facts.named_ids = {s.release_event};
    report(Report::WatchdogRenewedAfterRelease, std::move(v));
    os->second.released = false;  // one report per release
  } else if (!s.released && s.count > 0 && !s.watchdog && e.op_id > s.hold_op_floor) {
    Violation v;
    v.lock = e.lock;
    v.message = "hold of " + e.owner.str() + " taken with an explicit lease at event #" +
                std::to_string(s.hold_event) + " was renewed by the watchdog";
    v.event_ids = {s.hold_event, e.id};
    v.true_us = {s.hold_start_us, e.true_us};
    v.owners = {e.owner};
    v.facts.named_ids = {s.hold_event};
    report(Report::WatchdogExplicitLeaseRenewed, std::move(v));
    os->second.watchdog = true;  // one report per hold
  }
}

// The client learned its hold is gone. Legitimate when a fault hit its
// client since the server granted it (or a server since its acquire was
// invoked), or when an explicit lease ran out.
void WatchdogExpiryChecker::on_hold_lost(const Event& e, const std::string& how) {
  auto it = owners_.find(NamePairView(e.lock, e.owner));
  if (it == owners_.end()) return;
  OwnerState& s = it->second;
  // An unlock answering nil for the outermost hold: the count already went to
  // 0 at its invoke, the hold was still believed until then.
  const bool was_held = !s.lost && (s.count > 0 || (e.kind == EventKind::Fail && !s.released));
  s.lost = true;
  if (!was_held || s.counts_unknown) { s.count = 0; return; }
  // From the grant: a client fault between the server's grant and the Ok
  // (a pause past the lease before the reply was read, a group's first
  // member expiring while the others are taken) leaves the hold stale.
  const bool faulted = !ctx_->faults().faults_between(s.client, s.hold_grant_us, e.true_us).empty() ||
                       !ctx_->faults().server_faults_between(s.hold_invoke_us, e.true_us).empty();
  const int64_t slack_us = config().request_timeout_ms * 1000;
  const bool lease_ran_out = !s.watchdog && sat_add(e.true_us, slack_us) >= s.lease_expiry_us;
  if (!faulted && !lease_ran_out) {
    Violation v;
    v.lock = e.lock;
    v.message = e.owner.str() + " (client " + std::to_string(s.client) + ") held the lock since event #" +
                std::to_string(s.hold_event) + (s.watchdog ? " with the watchdog" : " with an explicit lease") +
                " and no fault hit it, yet lost it: " + how;
    v.event_ids = {s.hold_event, e.id};
    v.true_us = {s.hold_start_us, e.true_us};
    v.owners = {e.owner};
    v.facts.named_ids = {s.hold_event};
    v.scope.clients = FaultScope::Who::Listed;
    v.scope.client_list = {s.client};
    v.scope.client_from_us = s.hold_grant_us;
    v.scope.crashes = false;
    v.scope.servers = true;
    v.scope.server_from_us = s.hold_invoke_us;
    report(Report::WatchdogHoldLost, std::move(v));
  }
  s.count = 0;
}

void WatchdogExpiryChecker::prune(int64_t now_us) {
  const int64_t horizon_us = 4 * config().default_lease_ms * 1000;
  if (now_us - last_prune_us_ < horizon_us) return;
  last_prune_us_ = now_us;
  std::erase_if(owners_, [&](const auto& kv) {
    return kv.second.count == 0 && sat_add(kv.second.release_us, horizon_us) < now_us;
  });
}

}  // namespace locksim
