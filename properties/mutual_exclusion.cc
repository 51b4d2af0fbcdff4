#include "properties/mutual_exclusion.h"

#include <algorithm>
#include <cassert>
#include <climits>

#include "properties/saturating_time.h"
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
        if (info.group == nullptr) {
          // A group member "<group>@<server>" counts for its group.
          info.group = &groups_[std::string(e.lock.group())];
        }
        if (info.group->servers.size() < 64) info.group->servers.insert(e.server);
        const EventFacts& f = ctx_->facts();
        if ((f.granting_script() && f.reply_nil) || (f.renew_suffix && f.reply_is(1))) {
          note_reset(info.group, e.owner, e.server, e.true_us);
        }
      }
      break;
    }
    case EventKind::Ok:
      if (const auto& started = ctx_->beliefs().started()) {
        // A hold began while other owners' holds of the lock were open.
        for (const BeliefBook::Other& other : started->overlapped) {
          Violation v;
          v.lock = e.lock;
          v.message = "believed holds overlap: " + other.owner + " (client " + std::to_string(other.hold.client) +
                      ") holds since event #" + std::to_string(other.hold.start_event) + " and " + e.owner.str() +
                      " (client " + std::to_string(e.client) + ") acquired at event #" + std::to_string(e.id);
          v.event_ids = {other.hold.start_event, e.id};
          v.true_us = {other.hold.start_us, e.true_us};
          v.owners = {other.owner, e.owner};
          v.facts.named_ids = {other.hold.start_event, e.id};
          v.set_blame(blame(other.hold, other.owner, e.lock, e.true_us));
          // Faults of the two clients and of the servers since the earlier
          // holder asked for the lock may explain it: a pause or a lost reply
          // longer than what was left of the lease (the acquirer's too: a group
          // member whose expiry reset answered late is reported ok after its
          // lease ran out), a link slower than a lease the acquire took (a
          // RedLock's first members taken for 2 x wait), a restart, a clock jump.
          const int64_t since_us = std::min({other.hold.invoke_us, other.hold.start_us, started->hold.invoke_us});
          v.scope.clients = FaultScope::Who::Listed;
          v.scope.client_list = {other.hold.client, e.client};
          v.scope.client_from_us = since_us;
          v.scope.crashes = false;
          v.scope.slow_links = true;
          v.scope.servers = true;
          v.scope.server_from_us = since_us;
          if (auto group = groups_.find(e.lock); group != groups_.end())
            v.scope.server_list.assign(group->second.servers.begin(), group->second.servers.end());
          report(Report::MutualOverlap, std::move(v));
        }
      } else if (e.op == Op::ForceUnlock && e.value == 1) {
        last_force_unlock_[e.lock] = {e.id, e.true_us, e.client};
      }
      break;
    default:
      break;
  }
}

void MutualExclusionChecker::note_reset(Group* group, const std::string& owner, int server, int64_t true_us) {
  std::vector<LeaseReset>& resets = group->resets;
  const auto same = std::find_if(resets.begin(), resets.end(),
                                 [&](const LeaseReset& r) { return r.server == server && r.owner == owner; });
  if (same != resets.end()) resets.erase(same);
  if (resets.size() >= kResetOwners) resets.erase(resets.begin());
  resets.push_back(LeaseReset{owner, server, true_us});
  assert(resets.size() <= kResetOwners);
}

// The server fault on one of the lock's servers, since the acquire of
// `earlier` was invoked, that best explains the loss: a restart without
// persistence, then a failover, then a restart that kept the data but left
// the server down (renewals failed), then the largest forward clock jump
// after the holder's latest lease reset on its server (any forward jump
// when none is known).
Blame MutualExclusionChecker::blame_server(const Hold& earlier, const std::string& owner,
                                                 const std::string& lock, int64_t now_us) const {
  const auto group = groups_.find(lock);
  const std::string held = "lock held by client " + std::to_string(earlier.client);
  const auto faults = ctx_->faults().server_faults_between(std::min(earlier.invoke_us, earlier.start_us), now_us);
  // The holder's latest lease reset on server s (INT64_MIN: none known).
  auto last_reset_us = [&](int s) {
    int64_t at = INT64_MIN;
    if (group == groups_.end()) return at;
    for (const LeaseReset& r : group->second.resets) {
      if (r.server == s && r.owner == owner) at = std::max(at, r.true_us);
    }
    return at;
  };
  const ClientFault* best = nullptr;
  int best_rank = 99;
  bool best_after_reset = false;
  for (const ClientFault& f : faults) {
    if (group != groups_.end() && f.server >= 0 && !group->second.servers.count(f.server)) continue;
    int rank = 99;
    if (f.kind == FaultKind::RedisRestart && f.persistence != Persistence::Always) rank = 0;
    else if (f.kind == FaultKind::Failover) rank = 1;
    else if (f.kind == FaultKind::RedisRestart && f.duration_ms > 0) rank = 2;
    else if (f.kind == FaultKind::ServerClockJump && f.duration_ms > 0) rank = 3;
    if (rank > best_rank) continue;
    if (rank < best_rank) {
      best_rank = rank;
      best = &f;
      best_after_reset = rank == 3 && f.true_us > last_reset_us(f.server);
      continue;
    }
    if (rank != 3) continue;  // ties of the other kinds: the first
    // Jumps: one after the holder's latest reset on its server over one
    // before it (a reset after a jump starts a whole lease), then the largest.
    const bool after_reset = f.true_us > last_reset_us(f.server);
    if (after_reset != best_after_reset ? after_reset : f.duration_ms > best->duration_ms) {
      best = &f;
      best_after_reset = after_reset;
    }
  }
  if (best == nullptr) return {};
  const std::string what = describe_server_fault(*best);
  const std::vector<uint64_t> fault = {best->event_id};
  switch (best_rank) {
    case 0: return {what + "; " + held + " lost", {}, fault};
    case 1: return {what + "; " + held + " lost in the failover (replication lag)", {}, fault};
    case 2: return {what + "; " + held + " expired while its renewals were refused", {}, fault};
    default: {
      const int64_t lease_ms = earlier.lease_ms >= 0 ? earlier.lease_ms : config().default_lease_ms;
      return {what + " (lease " + format_ms(lease_ms) + "); " + held + " expired early", {}, fault};
    }
  }
}

// Picks the fault that best explains how `earlier` lost the lock before now:
// a pause or partition longer than the lease first, then server restarts and
// server clock jumps, then shorter pauses/partitions and lost replies.
// Only a force-unlock's sentence writes an event's id; the others name
// durations and times, and carry the events of the faults they blame.
Blame MutualExclusionChecker::blame(const Hold& earlier, const std::string& owner, const std::string& lock,
                                    int64_t now_us) const {
  const int64_t lease_ms = earlier.lease_ms >= 0 ? earlier.lease_ms : config().default_lease_ms;
  const std::string lease_text = "lease " + format_ms(lease_ms);
  const std::string who = "client " + std::to_string(earlier.client);
  const auto faults = ctx_->faults().faults_between(earlier.client, earlier.start_us, now_us);

  const ClientFault* longest_pause = nullptr;
  const ClientFault* longest_partition = nullptr;
  std::vector<uint64_t> lost_reply_ids;
  const ClientFault* clock_jump = nullptr;
  for (const ClientFault& f : faults) {
    if (f.kind == FaultKind::Pause && (!longest_pause || f.duration_ms > longest_pause->duration_ms)) longest_pause = &f;
    if (f.kind == FaultKind::Partition && (!longest_partition || f.duration_ms > longest_partition->duration_ms))
      longest_partition = &f;
    if (f.kind == FaultKind::RequestTimeout) lost_reply_ids.push_back(f.event_id);
    if (f.kind == FaultKind::ClientClockJump) clock_jump = &f;
  }
  if (longest_pause && longest_pause->duration_ms > lease_ms)
    return {who + " paused " + format_ms(longest_pause->duration_ms) + " > " + lease_text, {}, {longest_pause->event_id}};
  if (longest_partition && longest_partition->duration_ms > lease_ms)
    return {who + " partitioned " + format_ms(longest_partition->duration_ms) + " > " + lease_text, {},
            {longest_partition->event_id}};
  if (Blame server = blame_server(earlier, owner, lock, now_us); !server.text.empty()) return server;
  if (auto fu = last_force_unlock_.find(lock);
      fu != last_force_unlock_.end() && fu->second.true_us >= earlier.start_us)
    return {"client " + std::to_string(fu->second.client) + " force-unlocked it at event #" +
                std::to_string(fu->second.event_id),
            {fu->second.event_id}};
  if (earlier.lease_ms >= 0 && now_us - earlier.start_us > ms_to_us(earlier.lease_ms))
    return {who + " kept a hold with explicit " + lease_text + " for " + format_ms((now_us - earlier.start_us) / 1000),
            {}};
  // The explicit lease runs on the server from the grant, before the client
  // heard of it: by server time it may be over although the client's hold
  // is not yet lease ms old.
  const LockInfo* info = lock_info_.find(ctx_->locks().find(lock));
  if (earlier.lease_ms >= 0 && earlier.granted_server_ms != INT64_MIN && info != nullptr && info->script_seen &&
      info->server_ms > sat_add(earlier.granted_server_ms, earlier.lease_ms))
    return {who + " kept a hold with explicit " + lease_text + " past its expiry on the server (granted at server " +
                std::to_string(earlier.granted_server_ms) + " ms, taken by another owner at server " +
                std::to_string(info->server_ms) + " ms)",
            {}};
  if (longest_pause)
    return {who + " paused " + format_ms(longest_pause->duration_ms) + " (" + lease_text + ", renewal every " +
                format_ms(lease_ms / 3) + ")",
            {},
            {longest_pause->event_id}};
  if (longest_partition)
    return {who + " partitioned " + format_ms(longest_partition->duration_ms) + " (" + lease_text + ")", {},
            {longest_partition->event_id}};
  if (!lost_reply_ids.empty())
    return {who + " lost " + std::to_string(lost_reply_ids.size()) + " replies (renewals did not get through)", {},
            lost_reply_ids};
  if (clock_jump) return {who + "'s clock jumped " + format_ms(clock_jump->duration_ms), {}, {clock_jump->event_id}};
  return {};
}

}  // namespace locksim
