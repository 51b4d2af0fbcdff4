#include "properties/mutual_exclusion.h"

#include <cassert>
#include <climits>

#include "properties/violation.h"

namespace locksim {

void MutualExclusionChecker::on_event(const Event& e) {
  ctx_.feed(e);
  switch (e.kind) {
    case EventKind::Script: {
      LockInfo& info = lock_info_[ctx_->lock_id()];
      info.script_seen = true;
      info.server_ms = e.server_ms;
      if (e.server >= 0) {
        if (info.group_servers == nullptr) {
          // A group member "<group>@<server>" counts for its group.
          const auto at = e.lock.rfind('@');
          info.group_servers = &lock_servers_[at == std::string::npos ? e.lock : e.lock.substr(0, at)];
        }
        if (info.group_servers->size() < 64) info.group_servers->insert(e.server);
      }
      if (ctx_->facts().granting_script() && ctx_->facts().reply_nil && holders_contain(e, e.owner)) {
        granted_server_ms_[{e.lock, e.owner}] = e.server_ms;
        if (granted_server_ms_.size() > 4096) granted_server_ms_.erase(granted_server_ms_.begin());
      }
      break;
    }
    case EventKind::Invoke:
      if (ctx_->facts().acquire_op()) {
        pending_[e.op_id] = {e.client, e.lease_ms, e.true_us};
      } else if (ctx_->facts().op == OpName::Unlock) {
        auto lock_it = holds_.find(e.lock);
        if (lock_it == holds_.end()) break;
        auto it = lock_it->second.find(e.owner);
        if (it == lock_it->second.end()) break;
        assert(it->second.count > 0);
        if (--it->second.count == 0) lock_it->second.erase(it);
      }
      break;
    case EventKind::Ok:
      if (ctx_->facts().acquire_op()) {
        auto p = pending_.find(e.op_id);
        const int64_t lease_ms = p == pending_.end() ? e.lease_ms : p->second.lease_ms;
        invoke_us_ = p == pending_.end() ? e.true_us : p->second.invoke_us;
        if (p != pending_.end()) pending_.erase(p);
        if (e.value == 1) start_or_reenter(e, lease_ms);
      } else if (ctx_->facts().op == OpName::ForceUnlock && e.value == 1) {
        last_force_unlock_[e.lock] = {e.id, e.true_us, e.client};
      }
      break;
    case EventKind::Fail:
      pending_.erase(e.op_id);
      break;
    case EventKind::Info:
      if (ctx_->facts().op == OpName::HoldLost || ctx_->facts().op == OpName::ValidityEnd) {
        auto lock_it = holds_.find(e.lock);
        if (lock_it != holds_.end()) lock_it->second.erase(e.owner);
      } else if (e.op_id != 0 && ctx_->facts().acquire_op()) {
        pending_.erase(e.op_id);
      }
      break;
    case EventKind::Fault:
      if (e.op == "crash" && e.target >= 0) {
        for (auto& [lock, by_owner] : holds_) {
          std::erase_if(by_owner, [&](const auto& kv) { return kv.second.client == e.target; });
        }
        std::erase_if(pending_, [&](const auto& kv) { return kv.second.client == e.target; });
      }
      break;
    default:
      break;
  }
}

void MutualExclusionChecker::start_or_reenter(const Event& ok, int64_t lease_ms) {
  auto& by_owner = holds_[ok.lock];
  auto it = by_owner.find(ok.owner);
  if (it != by_owner.end()) {
    ++it->second.count;  // reentry: the believed hold continues
    it->second.lease_ms = lease_ms;  // a reentry resets the expiry to its own lease
    if (auto g = granted_server_ms_.find({ok.lock, ok.owner}); g != granted_server_ms_.end())
      it->second.granted_server_ms = g->second;
    return;
  }
  for (const auto& [other_owner, other] : by_owner) {
    Violation v;
    v.lock = ok.lock;
    v.message = "believed holds overlap: " + other_owner + " (client " + std::to_string(other.client) +
                ") holds since event #" + std::to_string(other.start_event) + " and " + ok.owner +
                " (client " + std::to_string(ok.client) + ") acquired at event #" + std::to_string(ok.id);
    v.event_ids = {other.start_event, ok.id};
    v.true_us = {other.start_us, ok.true_us};
    v.owners = {other_owner, ok.owner};
    v.blamed_fault = blame(other, ok.lock, ok.true_us);
    report(std::move(v));
  }
  Hold hold{ok.client, 1, ok.id, ok.true_us, lease_ms};
  hold.invoke_us = invoke_us_;
  if (auto g = granted_server_ms_.find({ok.lock, ok.owner}); g != granted_server_ms_.end())
    hold.granted_server_ms = g->second;
  by_owner[ok.owner] = hold;
}

// The server fault on one of the lock's servers, since the acquire of
// `earlier` was invoked, that best explains the loss: a restart without
// persistence, then a failover, then a restart that kept the data but left
// the server down (renewals failed), then a forward clock jump.
std::string MutualExclusionChecker::blame_server(const Hold& earlier, const std::string& lock,
                                                 int64_t now_us) const {
  const auto servers = lock_servers_.find(lock);
  const std::string held = "lock held by client " + std::to_string(earlier.client);
  const auto faults = ctx_->faults().server_faults_between(std::min(earlier.invoke_us, earlier.start_us), now_us);
  const ClientFault* best = nullptr;
  int best_rank = 99;
  for (const ClientFault& f : faults) {
    if (servers != lock_servers_.end() && f.server >= 0 && !servers->second.count(f.server)) continue;
    int rank = 99;
    if (f.kind == "redis_restart" && f.detail.find("persistence always") == std::string::npos) rank = 0;
    else if (f.kind == "failover") rank = 1;
    else if (f.kind == "redis_restart" && f.duration_ms > 0) rank = 2;
    else if (f.kind == "server_clock_jump" && f.duration_ms > 0) rank = 3;
    if (rank < best_rank) {
      best_rank = rank;
      best = &f;
    }
  }
  if (best == nullptr) return "";
  const std::string what = describe_server_fault(*best);
  switch (best_rank) {
    case 0: return what + "; " + held + " lost";
    case 1: return what + "; " + held + " lost in the failover (replication lag)";
    case 2: return what + "; " + held + " expired while its renewals were refused";
    default: {
      const int64_t lease_ms = earlier.lease_ms >= 0 ? earlier.lease_ms : config().default_lease_ms;
      return what + " (lease " + format_ms(lease_ms) + "); " + held + " expired early";
    }
  }
}

// Picks the fault that best explains how `earlier` lost the lock before now:
// a pause or partition longer than the lease first, then server restarts and
// server clock jumps, then shorter pauses/partitions and lost replies.
std::string MutualExclusionChecker::blame(const Hold& earlier, const std::string& lock,
                                          int64_t now_us) const {
  const int64_t lease_ms = earlier.lease_ms >= 0 ? earlier.lease_ms : config().default_lease_ms;
  const std::string lease_text = "lease " + format_ms(lease_ms);
  const std::string who = "client " + std::to_string(earlier.client);
  const auto faults = ctx_->faults().faults_between(earlier.client, earlier.start_us, now_us);

  const ClientFault* longest_pause = nullptr;
  const ClientFault* longest_partition = nullptr;
  int lost_replies = 0;
  const ClientFault* clock_jump = nullptr;
  for (const ClientFault& f : faults) {
    if (f.kind == "pause" && (!longest_pause || f.duration_ms > longest_pause->duration_ms)) longest_pause = &f;
    if (f.kind == "partition" && (!longest_partition || f.duration_ms > longest_partition->duration_ms))
      longest_partition = &f;
    if (f.kind == "lost_reply") ++lost_replies;
    if (f.kind == "clock_jump") clock_jump = &f;
  }
  if (longest_pause && longest_pause->duration_ms > lease_ms)
    return who + " paused " + format_ms(longest_pause->duration_ms) + " > " + lease_text;
  if (longest_partition && longest_partition->duration_ms > lease_ms)
    return who + " partitioned " + format_ms(longest_partition->duration_ms) + " > " + lease_text;
  if (std::string server = blame_server(earlier, lock, now_us); !server.empty()) return server;
  if (auto fu = last_force_unlock_.find(lock);
      fu != last_force_unlock_.end() && fu->second.true_us >= earlier.start_us)
    return "client " + std::to_string(fu->second.client) + " force-unlocked it at event #" +
           std::to_string(fu->second.event_id);
  if (earlier.lease_ms >= 0 && now_us - earlier.start_us > earlier.lease_ms * 1000)
    return who + " kept a hold with explicit " + lease_text + " for " +
           format_ms((now_us - earlier.start_us) / 1000);
  // The explicit lease runs on the server from the grant, before the client
  // heard of it: by server time it may be over although the client's hold
  // is not yet lease ms old.
  const LockInfo* info = lock_info_.find(ctx_->locks().find(lock));
  if (earlier.lease_ms >= 0 && earlier.granted_server_ms != INT64_MIN && info != nullptr && info->script_seen &&
      info->server_ms > earlier.granted_server_ms + earlier.lease_ms)
    return who + " kept a hold with explicit " + lease_text + " past its expiry on the server (granted at server " +
           std::to_string(earlier.granted_server_ms) + " ms, taken by another owner at server " +
           std::to_string(info->server_ms) + " ms)";
  if (longest_pause)
    return who + " paused " + format_ms(longest_pause->duration_ms) + " (" + lease_text +
           ", renewal every " + format_ms(lease_ms / 3) + ")";
  if (longest_partition)
    return who + " partitioned " + format_ms(longest_partition->duration_ms) + " (" + lease_text + ")";
  if (lost_replies > 0)
    return who + " lost " + std::to_string(lost_replies) + " replies (renewals did not get through)";
  if (clock_jump) return who + "'s clock jumped " + format_ms(clock_jump->duration_ms);
  return "";
}

}  // namespace locksim
