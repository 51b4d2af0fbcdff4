#include "reports/review_findings.h"

#include <algorithm>
#include <map>

#include "properties/saturating_time.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

// The owner's final release of the lock before the renewal: the Ok (value
// 1) of the unlock that ended its last hold released before it, as the
// watchdog_expiry checker counts it; nullptr when none completed.
const Event* final_release_before(const HistoryRecording& rec, const std::vector<Event>& window, const Event& r) {
  const RecordedHold* last = nullptr;
  for (const RecordedHold& h : rec.holds) {
    if (h.owner != r.owner || !lock_matches(r.lock, h.lock) || h.end != RecordedHold::End::Released ||
        h.end_us > r.true_us)
      continue;
    if (last == nullptr || h.end_us >= last->end_us) last = &h;
  }
  if (last == nullptr) return nullptr;
  uint64_t unlock_op = 0;
  for (const Event& e : window) {
    if (e.id > r.id) break;
    if (e.id == last->end_event) unlock_op = e.op_id;
    if (unlock_op != 0 && e.op_id == unlock_op && e.kind == EventKind::Ok && e.value == 1) return &e;
  }
  return nullptr;
}

bool in_a_hold(const HistoryRecording& rec, const Event& r) {
  return std::any_of(rec.holds.begin(), rec.holds.end(), [&](const RecordedHold& h) {
    return h.owner == r.owner && lock_matches(r.lock, h.lock) && r.true_us >= h.start_us && r.true_us <= h.end_us;
  });
}

bool overlaps(const RecordedFault& f, int64_t from_us, int64_t to_us) {
  return !f.instant && f.start_us <= to_us && f.end_us >= from_us;
}

// Why the client sent its release again: the first fault of its client
// between the attempt before and the retry that explains it.
std::string retry_reason(const HistoryRecording& rec, int client, int64_t from_us, int64_t to_us, const Event* first,
                         const CheckConfig& config) {
  const std::string who = "client " + std::to_string(client);
  for (const RecordedFault& f : rec.faults) {
    if (f.client == client && f.op == Op::Lost && f.start_us >= from_us && f.start_us <= to_us)
      return "its " + lost_what(f) + " was lost (#" + std::to_string(f.start_event) + ")";
  }
  const std::string read = first != nullptr ? "before it read the reply of #" + std::to_string(first->id)
                                            : "while its request was out";
  for (const RecordedFault& f : rec.faults) {
    if (f.client != client || !overlaps(f, from_us, to_us)) continue;
    if (f.op == Op::Pause)
      return who + " was paused " + format_duration_us(f.end_us - f.start_us) + " " + read + ", and the request timed out";
    if (f.op == Op::Partition)
      return who + " was cut off " + format_duration_us(f.end_us - f.start_us) + " (partition) " + read +
             ", and the request timed out";
  }
  return "no reply came within the request timeout (" + format_duration_us(ms_to_us(config.request_timeout_ms)) + ")";
}

bool fault_between(const HistoryRecording& rec, int client, int64_t from_us, int64_t to_us) {
  return std::any_of(rec.faults.begin(), rec.faults.end(), [&](const RecordedFault& f) {
    return f.client == client && (f.instant ? f.start_us >= from_us && f.start_us <= to_us : overlaps(f, from_us, to_us));
  });
}

}  // namespace

bool lock_matches(const LockRef& key, const LockRef& lock) { return key.is_or_member_of(lock.name()); }

// What a lost message was ("request", "reply"; "message" when its event did not say).
std::string lost_what(const RecordedFault& f) {
  return f.lost != LostMessage::What::None ? std::string(lost_what_name(f.lost)) : "message";
}

bool is_renewal(const Event& e) { return e.kind == EventKind::Script && e.script == "rlock_renew"; }

bool renewal_succeeded(const Event& e) { return e.reply.is(1); }

std::vector<OffendingRenewal> offending_renewals(const HistoryRecording& rec, const std::vector<Event>& window,
                                                const CheckConfig& config) {
  std::vector<OffendingRenewal> out;
  for (const Event& e : window) {
    if (!is_renewal(e) || e.client < 0) continue;
    OffendingRenewal o;
    o.renewal = &e;
    const bool ok = renewal_succeeded(e);
    const bool held_by_others = std::find(e.holders_after.begin(), e.holders_after.end(), e.owner) == e.holders_after.end();
    if (ok && held_by_others && !e.holders_after.empty()) {
      o.kind = OffendingRenewal::Kind::OthersLock;
      o.holder = e.holders_after.front();
    } else if (ok && held_by_others) {
      o.kind = OffendingRenewal::Kind::OutsideHolds;  // renewed, though the lock has no owner
    } else if (in_a_hold(rec, e)) {
      continue;
    } else if (const Event* release = final_release_before(rec, window, e);
               release != nullptr &&
               (ok || (e.op_id > release->op_id && e.true_us > sat_add(release->true_us, ms_to_us(config.renew_grace_ms))))) {
      o.kind = OffendingRenewal::Kind::AfterRelease;
      o.release_event = release->id;
      o.release_us = release->true_us;
    } else if (ok) {
      o.kind = OffendingRenewal::Kind::OutsideHolds;
    } else {
      continue;  // refused, in flight at a release: its tick says so
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<RetriedRelease> retried_releases(const HistoryRecording& rec, const std::vector<Event>& window,
                                             const CheckConfig& config) {
  std::map<uint64_t, const Event*> invoke_of;            // op_id -> its unlock's invoke
  std::map<std::string, const Event*> first_of_request;  // request id -> its first script
  std::vector<RetriedRelease> out;
  for (const Event& e : window) {
    if (e.kind == EventKind::Invoke && e.op_id != 0) invoke_of.emplace(e.op_id, &e);
    if (e.kind != EventKind::Script || e.request_id.empty() || e.client < 0) continue;
    const auto [first, fresh] = first_of_request.emplace(e.request_id, &e);
    const auto inv = invoke_of.find(e.op_id);
    const Event* invoke = inv == invoke_of.end() ? nullptr : inv->second;
    const Event* before = fresh ? nullptr : first->second;
    const int64_t from_us = before != nullptr ? before->true_us : (invoke != nullptr ? invoke->true_us : e.true_us);
    const bool late = invoke != nullptr && e.true_us - invoke->true_us > ms_to_us(config.request_timeout_ms) &&
                      fault_between(rec, e.client, invoke->true_us, e.true_us);
    if (before == nullptr && !late) continue;
    RetriedRelease r;
    r.retry = &e;
    r.first = before;
    r.invoke_event = invoke != nullptr ? invoke->id : (before != nullptr ? before->id : e.id);
    r.invoke_us = invoke != nullptr ? invoke->true_us : from_us;
    r.reason = retry_reason(rec, e.client, invoke != nullptr ? invoke->true_us : from_us, e.true_us, before, config);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace locksim::review
