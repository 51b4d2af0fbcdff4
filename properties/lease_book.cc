#include "properties/lease_book.h"

#include <algorithm>

#include "properties/checker.h"
#include "properties/fault_log.h"
#include "properties/saturating_time.h"

namespace locksim {

void LeaseBook::on_event(const Event& e, const EventFacts& facts, LockId lock) {
  expired_.reset();
  pttl_contradicted_.reset();
  refreshed_ = nullptr;
  deleted_ = latch_replay_ = partial_release_ = renewed_ = granted_ = false;
  reset_server_ = -1;
  prune(e.true_us);
  if (e.kind == EventKind::Script) {
    on_script(e, facts, lock);
  } else if (e.kind == EventKind::Fault && resets_server_state(e)) {
    // A restart or failover: the key may be gone or older.
    reset_server_ = e.target;
    std::erase_if(keys_, [&](const auto& kv) { return server_of_key(kv.first) == e.target; });
    group_expiry_.forget_server(e.target);
  }
}

void LeaseBook::on_script(const Event& e, const EventFacts& facts, LockId lock) {
  const uint64_t key_id = server_lock_key(e.server, lock);
  granted_ = facts.granting_script() && facts.reply_nil && holders_contain(e, e.owner);

  // A faster multi-lock's value expires with its group's hash (refreshed by
  // the group's other values too).
  const bool faster_multi = GroupHashExpiry::applies(facts);
  auto key_it = keys_.find(key_id);
  if (faster_multi && key_it != keys_.end()) {
    const int64_t group_ms = group_expiry_.before(e);
    if (group_ms != INT64_MAX) key_it->second.expire_at_ms = std::max(key_it->second.expire_at_ms, group_ms);
  }
  // The key must be gone once the server clock passed its expiry.
  if (key_it != keys_.end() && e.server_ms > key_it->second.expire_at_ms) {
    expired_ = key_it->second;
    if (!granted_) keys_.erase(key_it);
  }

  // The key's remaining time (PTTL, answered by a refused acquire) is the
  // server's word: shorter than the last refresh implies, it is the expiry.
  if (facts.pttl_acquire() && facts.reply_integer && *facts.reply_integer >= 0 &&
      !e.holders_after.empty()) {
    const int64_t pttl_ms = *facts.reply_integer;
    auto k = keys_.find(key_id);
    if (k != keys_.end() && pttl_ms < sat_sub(k->second.expire_at_ms, e.server_ms)) {
      pttl_contradicted_ = k->second;
      k->second.expire_at_ms = sat_add(e.server_ms, pttl_ms);  // one report per refresh
    }
  }

  renewed_ = facts.renew_script() && facts.reply_is(1);
  // A retried release (same request id) is answered by its latch and
  // changes nothing: only the first execution of a request id resets the expiry.
  if (facts.release_script() && !e.request_id.empty()) {
    latch_replay_ = !release_ids_.emplace(e.request_id, e.true_us).second;
  }
  partial_release_ = facts.release_script() && !latch_replay_ && facts.reply_is(0);
  const bool refreshed = granted_ || renewed_ || partial_release_;
  const int64_t group_ms = faster_multi ? group_expiry_.after(e, refreshed, renewed_) : INT64_MAX;
  if (refreshed) {
    KeyLease& k = keys_[key_id];
    k = KeyLease{sat_add(e.server_ms, e.lease_ms), e.id, e.true_us, e.owner, e.server_ms, e.lease_ms};
    if (group_ms != INT64_MAX) k.expire_at_ms = group_ms;
    refreshed_ = &k;
  } else if (e.holders_after.empty()) {
    deleted_ = keys_.erase(key_id) > 0;
  }
}

void LeaseBook::prune(int64_t now_us) {
  if (now_us - last_prune_us_ < horizon_us_) return;
  last_prune_us_ = now_us;
  // Latches live request_timeout x (retries + 2); a horizon of several
  // leases is far longer.
  std::erase_if(release_ids_, [&](const auto& kv) { return sat_add(kv.second, horizon_us_) < now_us; });
}

}  // namespace locksim
