// The review timeline's title in words (reports/review_scene.h
// review_headline): what went wrong, said from the checkers' reading of the
// history (the recording's holds, leases, faults, line stays and waits) and
// the findings, for the first focus violation, or the window's first
// reported overlap when nothing is in focus:
//   "mutual exclusion on lsim:L0: client 1 paused 31.0 s past its lease
//    while client 2 took the lock".
// A violation the recording cannot tell in words gets its property, lock
// and clients ("reentrancy on lsim:L0 (client 0)"); the checker's own
// sentence stays the caption.
#include <algorithm>
#include <set>

#include "properties/saturating_time.h"
#include "properties/scenario_check.h"
#include "reports/review_findings.h"
#include "reports/review_scene.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

constexpr int64_t kSkewNamedMs = 50;

std::string words(const std::string& property) {
  std::string out = property;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string on_lock(const std::string& property, const std::string& lock) {
  return words(property) + (lock.empty() ? "" : " on " + lock);
}

// The pause or partition of a client that spans `at_us`, the latest begun
// (a resume ends every pause of a client: the latest is the one that
// lasted as long as it was announced), or nullptr.
const RecordedFault* span_fault_at(const HistoryRecording& rec, int client, int64_t at_us) {
  const RecordedFault* out = nullptr;
  for (const RecordedFault& f : rec.faults)
    if (f.client == client && !f.instant && (f.op == Op::Pause || f.op == Op::Partition) && f.start_us <= at_us &&
        f.end_us >= at_us && (out == nullptr || f.start_us >= out->start_us))
      out = &f;
  return out;
}

const RecordedFault* instant_fault_between(const HistoryRecording& rec, int client, Op op, int64_t from_us,
                                           int64_t to_us) {
  for (const RecordedFault& f : rec.faults)
    if (f.client == client && f.instant && f.op == op && f.start_us >= from_us && f.start_us <= to_us) return &f;
  return nullptr;
}

// How the first holder came to overlap: its lease ran out under a fault,
// or a server lost it.
std::string first_holder_story(const ReviewScene& s, size_t hold_index, const RecordedOverlap& o) {
  const RecordedHold& a = s.rec.holds[hold_index];
  const std::string who = client_lane(a.client);
  for (const RecordedLease& l : s.rec.leases) {
    if (l.owner != a.owner || !lock_matches(l.lock, a.lock) || l.end_us < a.start_us || l.end_us > o.start_us) continue;
    if (l.end == RecordedLease::End::ServerReset)
      return l.reset_by == Op::Failover ? "a failover lost " + who + "'s lease" : server_lane(l.server) + " restarted and lost " + who + "'s lease";
    if (l.end != RecordedLease::End::Expired || l.believed_hold != static_cast<int64_t>(hold_index)) continue;
    if (const RecordedFault* f = span_fault_at(s.rec, a.client, l.end_us))
      return who + (f->op == Op::Pause ? " paused " : " was cut off (partition) ") +
             format_duration_us(f->end_us - f->start_us) + " past its lease";
    if (const RecordedFault* f = instant_fault_between(s.rec, a.client, Op::Lost, a.start_us, l.end_us))
      return who + "'s lease ran out after its " + lost_what(*f) + " was lost (#" +
             std::to_string(f->start_event) + ")";
    if (const RecordedFault* f = instant_fault_between(s.rec, a.client, Op::ClockJump, a.start_us, l.end_us))
      return who + "'s lease ran out after its " + f->label + " jump";
    return who + "'s lease ran out while it believed it held the lock";
  }
  if (const RecordedFault* f = span_fault_at(s.rec, a.client, o.start_us))
    return who + (f->op == Op::Pause ? " paused " : " was cut off (partition) ") + format_duration_us(f->end_us - f->start_us);
  return who + " still believed it held the lock";
}

std::string overlap_headline(const ReviewScene& s, const RecordedOverlap& o) {
  const RecordedHold& a = s.rec.holds[o.first];
  const RecordedHold& b = s.rec.holds[o.second];
  const std::string taker = b.client == a.client ? s.who(b.owner) : client_lane(b.client);
  return on_lock("mutual_exclusion", b.lock) + ": " + first_holder_story(s, o.first, o) + " while " + taker +
         " took the lock";
}

std::string mutual_exclusion_headline(const ReviewScene& s, const Violation& v) {
  for (const RecordedOverlap& o : s.rec.overlaps) {
    if (v.event_ids.size() >= 2 && s.rec.holds[o.first].start_event == v.event_ids[0] && o.start_event == v.event_ids[1])
      return overlap_headline(s, o);
  }
  return "";
}

bool names(const Violation& v, uint64_t id) {
  return std::find(v.event_ids.begin(), v.event_ids.end(), id) != v.event_ids.end() || v.detected_at_event == id;
}

std::string watchdog_headline(const ReviewScene& s, const Violation& v) {
  for (const OffendingRenewal& o : s.offending_renewals) {
    if (!names(v, o.renewal->id)) continue;
    const std::string who = client_lane(o.renewal->client) + "'s watchdog";
    switch (o.kind) {
      case OffendingRenewal::Kind::OthersLock:
        return on_lock(v.property, v.lock) + ": " + who + " renewed " + s.client_name(o.holder) + "'s lock (#" +
               std::to_string(o.renewal->id) + ", answered 1)";
      case OffendingRenewal::Kind::AfterRelease:
        return on_lock(v.property, v.lock) + ": " + who +
               (renewal_succeeded(*o.renewal) ? " renewed the lock " : " was still renewing ") +
               format_duration_us(o.renewal->true_us - o.release_us) + " after the final release (#" +
               std::to_string(o.release_event) + "): #" + std::to_string(o.renewal->id) + " answered " +
               o.renewal->reply.to_text();
      case OffendingRenewal::Kind::OutsideHolds:
        return on_lock(v.property, v.lock) + ": " + who + " renewed a lock it did not hold (#" +
               std::to_string(o.renewal->id) + ")";
    }
  }
  return "";
}

std::string reentrancy_headline(const ReviewScene& s, const Violation& v) {
  for (const RetriedRelease& r : s.retried_releases) {
    if (!names(v, r.retry->id)) continue;
    const std::string first =
        r.first != nullptr ? ", though the first (#" + std::to_string(r.first->id) + ") answered " + r.first->reply.to_text() : "";
    return on_lock(v.property, v.lock) + ": " + client_lane(r.retry->client) + "'s release was sent again (#" +
           std::to_string(r.retry->id) + ") and answered " + r.retry->reply.to_text() + first + ": " + r.reason;
  }
  return "";
}

// A fifo violation's purged waiter: who purged it, how much of its slot it
// had left, and its clock when that is off.
std::string fifo_headline(const ReviewScene& s, const Violation& v) {
  for (const RecordedLineStay& st : s.rec.line_stays) {
    if (st.left != RecordedLineStay::Left::Purged || !s.evidence.focus_stays.count({st.owner, st.left_event})) continue;
    std::string out = on_lock(v.property, v.lock) + ": " +
                      (st.purged_by_client >= 0 ? client_lane(st.purged_by_client) : std::string("a script")) + " purged " +
                      s.client_name(st.owner) + "'s waiter";
    if (st.deadline_true_us != INT64_MAX && st.deadline_true_us > st.left_us)
      out += " with " + format_duration_us(st.deadline_true_us - st.left_us) + " of its slot left";
    if (auto clock = s.rec.clocks.find(st.client); clock != s.rec.clocks.end()) {
      const int64_t off = sat_abs(clock->second.min_offset_ms) >= sat_abs(clock->second.max_offset_ms)
                              ? clock->second.min_offset_ms
                              : clock->second.max_offset_ms;
      if (sat_abs(off) >= kSkewNamedMs)
        out += " (" + client_lane(st.client) + "'s clock " + format_duration_us(ms_to_us(sat_abs(off))) +
               (off < 0 ? " behind)" : " ahead)");
    }
    return out;
  }
  return "";
}

std::string ghost_headline(const ReviewScene& s, const Violation& v) {
  for (const RecordedWait& w : s.rec.waits) {
    if (w.outcome != RecordedWait::Outcome::GaveUp || v.owners.empty() || w.owner != v.owners.front() || !names(v, w.end_event))
      continue;
    return on_lock(v.property, v.lock) + ": " + client_lane(w.client) + " gave up (#" + std::to_string(w.end_event) +
           ") but its waiter stayed in the line, holding up those behind it";
  }
  return "";
}

std::string liveness_headline(const ReviewScene& s, const Violation& v) {
  if (v.event_ids.empty()) return "";
  for (const RecordedWait& w : s.rec.waits) {
    if (w.start_event != v.event_ids[0]) continue;
    const int64_t bound_ms = v.facts.bound_ms;
    // How long it had waited when the checker found it (else to the
    // window's end), since the lock was free when the checker says so.
    const auto found = s.event_of.find(v.detected_at_event);
    const int64_t until_us = found != s.event_of.end() ? found->second->true_us : s.seen_us(w.end_us);
    int64_t since_us = w.start_us;
    for (const FreeSpan& f : s.evidence.free_spans) since_us = std::max(since_us, f.from_us);
    return on_lock(v.property, v.lock) + ": " + client_lane(w.client) + " waited " +
           format_duration_us(until_us - since_us) +
           (s.evidence.free_spans.empty() ? std::string(" for the lock") : " for a lock free on the server") +
           (bound_ms >= 0 ? " (bound " + format_duration_us(ms_to_us(bound_ms)) + ")" : std::string());
  }
  return "";
}

std::string busy_poll_headline(const ReviewScene& s, const Violation& v) {
  for (const Storm& st : s.evidence.storms) {
    for (const RecordedWait& w : s.rec.waits) {
      if (w.start_event != st.wait_start_event) continue;
      return on_lock(v.property, v.lock) + ": " + client_lane(w.client) + " made " + st.what + (st.head.empty() ? "" : ", behind " + s.client_name(st.head));
    }
  }
  return "";
}

// Any violation: its property, lock and the clients it names.
std::string generic_headline(const ReviewScene& s, const Violation& v) {
  std::set<int> clients;
  for (const std::string& owner : v.owners)
    if (auto it = s.client_of.find(owner); it != s.client_of.end()) clients.insert(it->second);
  std::string who;
  size_t k = 0;
  for (int c : clients) who += (k++ == 0 ? "" : (k == clients.size() ? " and " : ", ")) + std::to_string(c);
  return on_lock(v.property, v.lock) + (clients.empty() ? "" : (clients.size() == 1 ? " (client " : " (clients ") + who + ")");
}

}  // namespace

std::string review_headline(const ReviewScene& s) {
  if (s.options.focus.empty()) {
    for (const RecordedOverlap& o : s.rec.overlaps)
      if (o.reported) return overlap_headline(s, o);
    return "";
  }
  const Violation& v = s.options.focus.front();
  std::string out;
  if (v.property == property::kMutualExclusion) out = mutual_exclusion_headline(s, v);
  else if (v.property == property::kWatchdogExpiry) out = watchdog_headline(s, v);
  else if (v.property == property::kReentrancy) out = reentrancy_headline(s, v);
  else if (v.property == property::kFifoFairness) out = fifo_headline(s, v);
  else if (v.property == property::kGhostWaiter) out = ghost_headline(s, v);
  else if (v.property == property::kLiveness) out = liveness_headline(s, v);
  else if (v.property == property::kBusyPoll) out = busy_poll_headline(s, v);
  return out.empty() ? generic_headline(s, v) : out;
}

}  // namespace locksim::review
