#include "properties/history_recording.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdio>

#include "properties/fault_log.h"
#include "properties/saturating_time.h"
#include "traces/event_detail.h"

namespace locksim {

std::string format_duration_us(int64_t span_us) {
  char buf[48];
  const double abs_us = std::abs(static_cast<double>(span_us));
  const char* sign = span_us < 0 ? "-" : "";
  if (abs_us >= 1e6) {
    std::snprintf(buf, sizeof buf, "%s%.1f s", sign, abs_us / 1e6);
  } else if (abs_us >= 10e3) {
    std::snprintf(buf, sizeof buf, "%s%.0f ms", sign, abs_us / 1e3);
  } else if (abs_us >= 1e3) {
    std::snprintf(buf, sizeof buf, "%s%.1f ms", sign, abs_us / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%s%.0f us", sign, abs_us);
  }
  return buf;
}

namespace {

bool is_server_fault(const Event& e) {
  return e.op == Op::RedisRestart || e.op == Op::Failover || (e.op == Op::ClockJump && e.client < 0);
}
int server_of_fault(const Event& e) { return e.server >= 0 ? e.server : std::max(e.target, 0); }

// Items that ended before the window are dropped at finish(); until then
// they keep their index (overlaps and leases refer to holds by index).
template <typename T>
std::vector<size_t> compact(std::vector<T>* items, const std::vector<char>& dead) {
  std::vector<size_t> new_index(items->size(), SIZE_MAX);
  size_t kept = 0;
  for (size_t i = 0; i < items->size(); ++i) {
    if (i < dead.size() && dead[i]) continue;
    new_index[i] = kept;
    if (kept != i) (*items)[kept] = std::move((*items)[i]);
    ++kept;
  }
  items->resize(kept);
  return new_index;
}

}  // namespace

SeriesBucket& RunSeries::at(int64_t true_us) {
  const size_t index = static_cast<size_t>(std::max<int64_t>(true_us, 0) / bucket_us);
  if (index >= kMaxBuckets) {
    // Twice as wide: each bucket takes the next one in.
    std::vector<SeriesBucket> merged((buckets.size() + 1) / 2);
    for (size_t i = 0; i < buckets.size(); ++i) {
      SeriesBucket& to = merged[i / 2];
      const SeriesBucket& b = buckets[i];
      to.acquired += b.acquired;
      to.gave_up += b.gave_up;
      to.unknown += b.unknown;
      to.unlocked += b.unlocked;
      to.unlock_refused += b.unlock_refused;
      to.polls += b.polls;
      to.latency_max_us = std::max(to.latency_max_us, b.latency_max_us);
      for (int64_t l : b.latency_us)
        if (to.latency_us.size() < SeriesBucket::kMaxSamples) to.latency_us.push_back(l);
    }
    buckets = std::move(merged);
    bucket_us *= 2;
    return at(true_us);
  }
  if (index >= buckets.size()) buckets.resize(index + 1);
  return buckets[index];
}

ReadingRecorder::ReadingRecorder(const CheckConfig& config, uint64_t from_id, uint64_t to_id)
    : config_(config), from_id_(from_id), to_id_(to_id) {
  assert(from_id <= to_id);
  out_.from_id = from_id;
  out_.to_id = to_id;
}

void ReadingRecorder::on_event(const Event& e, const HistoryContext& ctx) {
  if (done_) return;
  if (e.id > to_id_) {
    done_ = true;
    return;
  }
  ++out_.events_read;
  // Leases whose expiry passed before this event end there, while the
  // holds are still those open just before it.
  expire_leases_before(e.true_us);
  if (in_window(e.id)) {
    if (out_.events == 0) {
      out_.first_event = e.id;
      out_.first_us = e.true_us;
    }
    ++out_.events;
    out_.last_event = e.id;
    out_.last_us = e.true_us;
    note_actors(e, ctx);
  }
  any_ = true;
  if (e.client >= 0 && e.kind != EventKind::Script && e.kind != EventKind::Fault) {
    if (!e.owner.empty()) client_of_owner_[e.owner] = e.client;
    if (auto offset = ctx.faults().clock_offset_ms(e.client)) latest_offset_ms_[e.client] = *offset;
  }
  on_holds(e, ctx);
  on_waits(e, ctx);
  on_leases(e, ctx);
  on_line(e, ctx);
  if (e.kind == EventKind::Fault) on_fault(e);
  last_id_ = e.id;
  last_us_ = e.true_us;
}

void ReadingRecorder::note_actors(const Event& e, const HistoryContext& ctx) {
  if (e.client >= 0) out_.clients.insert(e.client);
  if (e.kind == EventKind::Script && e.server >= 0) out_.servers.insert(e.server);
  if (!e.lock.empty()) out_.locks.insert(e.lock);
  if (e.kind == EventKind::Fault) {
    if (is_server_fault(e)) out_.servers.insert(server_of_fault(e));
    else if (e.target >= 0) out_.clients.insert(e.target);
  }
  if (e.client >= 0 && e.kind != EventKind::Script && e.kind != EventKind::Fault) {
    if (auto offset = ctx.faults().clock_offset_ms(e.client)) {
      auto [it, added] = out_.clocks.try_emplace(e.client, ClientClock{*offset, *offset});
      if (!added) {
        it->second.min_offset_ms = std::min(it->second.min_offset_ms, *offset);
        it->second.max_offset_ms = std::max(it->second.max_offset_ms, *offset);
      }
    }
  }
}

// --- believed holds and their overlaps (BeliefBook) ---------------------------

void ReadingRecorder::on_holds(const Event& e, const HistoryContext& ctx) {
  const BeliefBook& book = ctx.beliefs();
  for (const BeliefBook::Ended& ended : book.ended()) {
    auto it = hold_of_.find({ended.lock, ended.owner});
    assert(it != hold_of_.end());
    if (it == hold_of_.end()) continue;
    const size_t index = it->second;
    hold_of_.erase(it);
    RecordedHold& h = out_.holds[index];
    h.end_us = e.true_us;
    h.end_event = e.id;
    h.end = ended.how == BeliefBook::End::Released ? RecordedHold::End::Released
            : ended.how == BeliefBook::End::Lost   ? RecordedHold::End::Lost
                                                   : RecordedHold::End::Crashed;
    if (!met_window(h.start_event, h.end_event)) {
      dead_holds_.resize(out_.holds.size(), 0);
      dead_holds_[index] = 1;
    }
    // Its open overlaps end with it.
    if (auto ov = overlaps_of_hold_.find(index); ov != overlaps_of_hold_.end()) {
      for (size_t o : ov->second) {
        RecordedOverlap& overlap = out_.overlaps[o];
        overlap.end_us = e.true_us;
        overlap.end_event = e.id;
        const size_t other = overlap.first == index ? overlap.second : overlap.first;
        auto& others = overlaps_of_hold_[other];
        std::erase(others, o);
        if (!met_window(overlap.start_event, overlap.end_event)) {
          dead_overlaps_.resize(out_.overlaps.size(), 0);
          dead_overlaps_[o] = 1;
        }
      }
      overlaps_of_hold_.erase(ov);
    }
  }
  if (const auto& started = book.started()) {
    RecordedHold h;
    h.client = started->hold.client;
    h.owner = started->owner;
    h.lock = started->lock;
    h.start_event = h.end_event = started->hold.start_event;
    h.start_us = h.end_us = started->hold.start_us;
    h.lease_ms = started->hold.lease_ms;
    const size_t index = out_.holds.size();
    out_.holds.push_back(std::move(h));
    hold_of_[{started->lock, started->owner}] = index;
    for (const BeliefBook::Other& other : started->overlapped) {
      auto first = hold_of_.find({started->lock, other.owner});
      assert(first != hold_of_.end());
      if (first == hold_of_.end()) continue;
      RecordedOverlap o;
      o.first = first->second;
      o.second = index;
      o.start_us = o.end_us = e.true_us;
      o.start_event = o.end_event = e.id;
      o.nth = out_.overlaps_in_history++;
      o.reported = o.nth < static_cast<uint64_t>(std::max(0, config_.max_violations_per_checker));
      const size_t at = out_.overlaps.size();
      out_.overlaps.push_back(o);
      overlaps_of_hold_[o.first].push_back(at);
      overlaps_of_hold_[index].push_back(at);
    }
  } else if (book.reentered()) {
    auto it = hold_of_.find({e.lock, e.owner});
    if (it != hold_of_.end()) {
      RecordedHold& h = out_.holds[it->second];
      ++h.reentries;
      if (const BeliefBook::Hold* held = book.hold(e.lock, e.owner)) h.max_count = std::max(h.max_count, held->count);
    }
  }
}

// --- waits: an acquire from its Invoke to its completion ---------------------

void ReadingRecorder::on_waits(const Event& e, const HistoryContext& ctx) {
  const EventFacts& facts = ctx.facts();
  const bool counted = in_window(e.id);
  if (counted && e.op == Op::Unlock && (e.kind == EventKind::Ok || e.kind == EventKind::Fail)) {
    SeriesBucket& b = out_.series.at(e.true_us);
    (e.kind == EventKind::Ok ? b.unlocked : b.unlock_refused)++;
  }
  for (uint64_t op_id : ctx.beliefs().acquires_closed()) {
    auto it = wait_of_.find(op_id);
    if (it == wait_of_.end()) continue;
    RecordedWait& w = out_.waits[it->second];
    w.end_us = e.true_us;
    w.end_event = e.id;
    if (e.kind == EventKind::Ok) w.outcome = e.value == 1 ? RecordedWait::Outcome::Acquired : RecordedWait::Outcome::GaveUp;
    else if (e.kind == EventKind::Fail) w.outcome = RecordedWait::Outcome::GaveUp;
    else if (e.kind == EventKind::Fault || e.reason == EndReason::Crashed) w.outcome = RecordedWait::Outcome::Crashed;
    else w.outcome = RecordedWait::Outcome::Unknown;
    if (counted) {
      SeriesBucket& b = out_.series.at(e.true_us);
      if (w.outcome == RecordedWait::Outcome::Acquired) {
        ++b.acquired;
        const int64_t latency_us = e.true_us - w.start_us;
        b.latency_max_us = std::max(b.latency_max_us, latency_us);
        if (b.latency_us.size() < SeriesBucket::kMaxSamples) b.latency_us.push_back(latency_us);
      } else if (w.outcome == RecordedWait::Outcome::GaveUp) {
        ++b.gave_up;
      } else {
        ++b.unknown;
      }
    }
    if (e.kind != EventKind::Fault) w.detail = detail_text(e);
    if (!met_window(w.start_event, w.end_event)) {
      dead_waits_.resize(out_.waits.size(), 0);
      dead_waits_[it->second] = 1;
      w.polls_seen.clear();
      w.polls_seen.shrink_to_fit();
      w.wakeups.clear();
      w.heads.clear();
    }
    wait_of_.erase(it);
  }
  if (e.kind == EventKind::Invoke && is_acquire(e.op) && e.op_id != 0) {
    if (auto old = wait_of_.find(e.op_id); old != wait_of_.end()) {
      // An op_id used again: the old wait's end is unknown.
      RecordedWait& w = out_.waits[old->second];
      w.end_us = e.true_us;
      w.end_event = e.id;
      w.outcome = RecordedWait::Outcome::Unknown;
      wait_of_.erase(old);
    }
    RecordedWait w;
    w.client = e.client;
    w.owner = e.owner;
    w.lock = e.lock;
    w.op = e.op;
    w.op_id = e.op_id;
    w.wait_ms = e.wait_ms;
    w.start_event = w.end_event = e.id;
    w.start_us = w.end_us = e.true_us;
    wait_of_[e.op_id] = out_.waits.size();
    out_.waits.push_back(std::move(w));
    return;
  }
  if (e.kind == EventKind::Script && facts.granting_script() && e.op_id != 0) {
    auto it = wait_of_.find(e.op_id);
    if (it == wait_of_.end()) return;
    RecordedWait& w = out_.waits[it->second];
    ++w.polls;
    if (in_window(e.id)) ++out_.series.at(e.true_us).polls;
    if (w.polls_seen.size() < RecordedWait::kMaxTicks) w.polls_seen.push_back({e.true_us, e.id, e.reply.to_text()});
    if (e.line_known && w.heads.size() < 64) {
      const std::string head = e.line_after.empty() ? "" : e.line_after.front().owner;
      if (w.heads.empty() || w.heads.back().second != head) w.heads.emplace_back(e.true_us, head);
    }
    return;
  }
  if (e.kind == EventKind::Deliver) {
    RecordedWait* best = nullptr;
    for (auto& [op_id, index] : wait_of_) {
      RecordedWait& w = out_.waits[index];
      if (w.client != e.client) continue;
      bool names_lock = false;
      for (const std::string& p : e.published) names_lock |= p.find("{" + w.lock.name()) != std::string::npos;
      if (names_lock || best == nullptr) best = &w;
      if (names_lock) break;
    }
    if (best == nullptr || best->wakeups.size() >= 64) return;
    RecordedTick tick{e.true_us, e.id, "message"};
    for (const std::string& p : e.published) tick.label += " " + p.substr(p.rfind(' ') + 1);
    best->wakeups.push_back(std::move(tick));
  }
}

// --- leases of the lock keys (LeaseBook) --------------------------------------

int64_t ReadingRecorder::lease_expiry_us(const RecordedLease& l, int server) const {
  auto offset = server_offset_us_.find(server);
  return sat_sub(ms_to_us(l.expire_server_ms), offset == server_offset_us_.end() ? 0 : offset->second);
}

void ReadingRecorder::close_lease(size_t index, int64_t end_us, uint64_t end_id, RecordedLease::End how) {
  RecordedLease& l = out_.leases[index];
  l.end_us = std::max(end_us, l.start_us);
  l.end_event = end_id;
  l.end = how;
  if (how == RecordedLease::End::Expired) {
    // Did its owner still believe it held the lock? (Called before this
    // event's holds change: the holds open now were open at the expiry.)
    // The lease key's lock as the clients name it: a group member "G@1" is G's.
    for (const std::string_view lock : {std::string_view(l.lock.name()), l.lock.group()}) {
      auto h = hold_of_.find({std::string(lock), l.owner});
      if (h != hold_of_.end() && out_.holds[h->second].start_us <= l.end_us) {
        l.believed_hold = static_cast<int64_t>(h->second);
        break;
      }
    }
  }
  const uint64_t last = how == RecordedLease::End::Expired ? last_id_ : end_id;
  if (!met_window(l.start_event, std::max(last, l.start_event))) {
    dead_leases_.resize(out_.leases.size(), 0);
    dead_leases_[index] = 1;
    l.renewals.clear();
  }
}

void ReadingRecorder::expire_leases_before(int64_t now_us) {
  for (auto it = lease_of_.begin(); it != lease_of_.end();) {
    const RecordedLease& l = out_.leases[it->second.index];
    const int64_t at_us = lease_expiry_us(l, l.server);
    if (at_us < now_us) {
      close_lease(it->second.index, at_us, 0, RecordedLease::End::Expired);
      it = lease_of_.erase(it);
    } else {
      ++it;
    }
  }
}

void ReadingRecorder::on_leases(const Event& e, const HistoryContext& ctx) {
  const LeaseBook& book = ctx.leases();
  if (e.kind == EventKind::Fault) {
    if (e.op == Op::ClockJump && e.client < 0) {
      // A server's clock moved: its keys expire that much earlier (or later).
      const int s = server_of_fault(e);
      server_offset_us_[s] = sat_add(server_offset_us_[s], ms_to_us(e.duration_ms));
      for (auto it = lease_of_.begin(); it != lease_of_.end();) {
        const RecordedLease& l = out_.leases[it->second.index];
        if (l.server == s && lease_expiry_us(l, s) <= e.true_us) {
          close_lease(it->second.index, e.true_us, e.id, RecordedLease::End::Expired);
          it = lease_of_.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (book.reset_server() >= 0) {
      // The book forgets the server's keys: they may be gone or older.
      const bool kept = e.persistence == Persistence::Always;
      for (auto it = lease_of_.begin(); it != lease_of_.end();) {
        if (it->first.first != book.reset_server()) {
          ++it;
          continue;
        }
        RecordedLease& l = out_.leases[it->second.index];
        l.reset_by = e.op;
        l.data_kept = e.op == Op::RedisRestart && kept;
        close_lease(it->second.index, e.true_us, e.id, RecordedLease::End::ServerReset);
        it = lease_of_.erase(it);
      }
    }
    return;
  }
  if (e.kind != EventKind::Script || e.lock.empty() || e.server < 0) return;
  server_offset_us_[e.server] = sat_sub(ms_to_us(e.server_ms), e.true_us);
  const std::pair<int, std::string> key{e.server, e.lock};
  auto open = lease_of_.find(key);
  if (const LeaseBook::KeyLease* k = book.refreshed()) {
    if (open != lease_of_.end() && out_.leases[open->second.index].owner == k->refreshed_by) {
      RecordedLease& l = out_.leases[open->second.index];
      if (l.renewals.size() < 256) {
        const char* what = book.renewed() ? "renew" : book.partial_release() ? "release -> 0" : "reentry";
        l.renewals.push_back({e.true_us, e.id, what});
      }
      l.expire_server_ms = k->expire_at_ms;
      l.lease_ms = k->lease_ms;
      return;
    }
    if (open != lease_of_.end()) {
      close_lease(open->second.index, e.true_us, e.id, RecordedLease::End::Replaced);
      lease_of_.erase(open);
    }
    RecordedLease l;
    l.server = e.server;
    l.lock = e.lock;
    l.owner = k->refreshed_by;
    l.start_event = l.end_event = e.id;
    l.start_us = l.end_us = e.true_us;
    l.lease_ms = k->lease_ms;
    l.expire_server_ms = k->expire_at_ms;
    lease_of_[key] = OpenLease{out_.leases.size(), 0};
    out_.leases.push_back(std::move(l));
    return;
  }
  if (open == lease_of_.end()) return;
  const LeaseBook::KeyLease* k = book.find(e.server, ctx.lock_id());
  if (book.deleted()) {
    close_lease(open->second.index, e.true_us, e.id, RecordedLease::End::Deleted);
    lease_of_.erase(open);
  } else if (k == nullptr) {
    // The book saw it past its expiry by this server's clock: it ended then.
    RecordedLease& l = out_.leases[open->second.index];
    close_lease(open->second.index, std::min(lease_expiry_us(l, e.server), e.true_us), 0,
                RecordedLease::End::Expired);
    lease_of_.erase(open);
  } else {
    // A remaining time answered by the server may have shortened it.
    out_.leases[open->second.index].expire_server_ms = k->expire_at_ms;
  }
}

// --- fair lines (FairLineMirror) -------------------------------------------------

void ReadingRecorder::close_stay(size_t index, const Event& e, RecordedLineStay::Left how) {
  RecordedLineStay& s = out_.line_stays[index];
  s.left_event = e.id;
  s.left_us = e.true_us;
  s.left = how;
  if (how == RecordedLineStay::Left::Purged) {
    s.purged_by_client = e.client;
    s.purger_now_ms = e.local_ms;
  }
  if (!met_window(s.join_event, s.left_event)) {
    dead_stays_.resize(out_.line_stays.size(), 0);
    dead_stays_[index] = 1;
    s.places.clear();
    s.places.shrink_to_fit();
  }
}

void ReadingRecorder::on_line(const Event& e, const HistoryContext& ctx) {
  if (e.kind == EventKind::Fault && e.op == Op::RedisRestart) {
    // The mirror starts every line anew.
    for (auto& [lock, stays] : stays_of_)
      for (size_t index : stays) close_stay(index, e, RecordedLineStay::Left::ServerReset);
    stays_of_.clear();
    line_version_.clear();
    return;
  }
  if (e.kind != EventKind::Script || !ctx.facts().fair_prefix) return;
  const FairLineMirror& mirror = ctx.line();
  const FairLineMirror::Line* line = mirror.find_line(ctx.lock_id());
  if (line == nullptr) return;
  uint64_t& seen = line_version_[e.lock];
  if (seen == line->version) return;
  seen = line->version;
  if (in_window(e.id)) out_.fair_locks.insert(e.lock);
  std::vector<size_t>& stays = stays_of_[e.lock];
  const FairLineMirror::Waiters& waiters = line->waiters;
  auto same = [&](const RecordedLineStay& s, const FairLineMirror::Waiter& w) {
    return s.join_event == w.enqueue_event && s.owner == w.owner.str();
  };
  // Stays whose waiter left the line.
  std::vector<size_t> kept;
  kept.reserve(waiters.size());
  for (size_t index : stays) {
    const RecordedLineStay& s = out_.line_stays[index];
    const bool present =
        std::any_of(waiters.begin(), waiters.end(), [&](const FairLineMirror::Waiter& w) { return same(s, w); });
    if (present) {
      kept.push_back(index);
      continue;
    }
    RecordedLineStay::Left how = RecordedLineStay::Left::Removed;
    if (ctx.grant() && ctx.grant()->owner == s.owner) how = RecordedLineStay::Left::Granted;
    else if (ctx.facts().script_is(ScriptKind::FairAcquireFailed) && e.owner == s.owner) how = RecordedLineStay::Left::GaveUp;
    else if (std::any_of(mirror.purged().begin(), mirror.purged().end(),
                         [&](const FairLineMirror::Waiter& w) { return same(s, w); }))
      how = RecordedLineStay::Left::Purged;
    else if (ctx.facts().fair_poll() && ctx.facts().reply_nil && e.owner == s.owner) how = RecordedLineStay::Left::Granted;
    close_stay(index, e, how);
  }
  // Waiters that joined, and every waiter's deadline.
  stays.clear();
  for (size_t pos = 0; pos < waiters.size(); ++pos) {
    const FairLineMirror::Waiter& w = waiters[pos];
    size_t index = SIZE_MAX;
    for (size_t k : kept) {
      if (same(out_.line_stays[k], w)) {
        index = k;
        break;
      }
    }
    if (index == SIZE_MAX) {
      RecordedLineStay s;
      s.lock = e.lock;
      s.owner.assign(w.owner.str());  // the server line's text, read as an owner
      s.client = w.client >= 0 ? w.client : -1;
      if (s.client < 0) {
        if (auto c = client_of_owner_.find(s.owner); c != client_of_owner_.end()) s.client = c->second;
      }
      s.join_event = s.left_event = w.enqueue_event;
      s.join_us = s.left_us = w.enqueue_us;
      s.joined_at = pos;
      s.places.emplace_back(w.enqueue_us, pos);
      s.deadline_ms = w.deadline_hi_ms;
      index = out_.line_stays.size();
      out_.line_stays.push_back(std::move(s));
    }
    RecordedLineStay& s = out_.line_stays[index];
    if (s.places.back().second != pos && s.places.size() < RecordedLineStay::kMaxPlaces)
      s.places.emplace_back(e.true_us, pos);
    if (s.deadline_ms != w.deadline_hi_ms) {
      s.deadline_ms = w.deadline_hi_ms;
      ++s.deadline_moves;
    }
    if (s.client >= 0 && s.deadline_ms < FairLineMirror::kUnknownHighMs && s.deadline_ms > FairLineMirror::kUnknownLowMs)
      s.deadline_true_us =
          sat_add(e.true_us, ms_to_us(sat_sub(s.deadline_ms, mirror.client_now_ms(s.client, e.true_us))));
    else
      s.deadline_true_us = INT64_MAX;
    stays.push_back(index);
  }
}

// --- faults ------------------------------------------------------------------------

void ReadingRecorder::on_fault(const Event& e) {
  RecordedFault f;
  f.op = e.op;
  f.start_us = f.end_us = e.true_us;
  f.start_event = e.id;
  auto keep = [&](RecordedFault fault) { out_.faults.push_back(std::move(fault)); };
  if (is_server_fault(e)) {
    f.server = server_of_fault(e);
    f.instant = true;
    if (e.op == Op::ClockJump) {
      f.label = std::string("clock ") + (e.duration_ms >= 0 ? "+" : "") + format_duration_us(ms_to_us(e.duration_ms));
    } else if (e.op == Op::Failover) {
      f.label = "failover (lag " + format_duration_us(ms_to_us(e.duration_ms)) + ")";
    } else {
      const bool kept = e.persistence == Persistence::Always;
      f.label = kept ? "restart (data kept)" : "restart, data lost";
      if (e.duration_ms > 0) {
        f.instant = false;
        f.end_us = sat_add(e.true_us, ms_to_us(e.duration_ms));
        f.label += ", down " + format_duration_us(ms_to_us(e.duration_ms));
      }
    }
    keep(std::move(f));
    return;
  }
  const int c = e.target >= 0 ? e.target : e.client;
  f.client = c;
  auto close_open = [&](Op closing, const char* label_prefix) {
    auto it = open_fault_.find({c, closing});
    if (it == open_fault_.end()) return;
    for (size_t index : it->second) {
      RecordedFault& open = out_.faults[index];
      open.end_us = e.true_us;
      open.end_event = e.id;
      if (label_prefix != nullptr) open.label = label_prefix + format_duration_us(e.true_us - open.start_us);
    }
    open_fault_.erase(it);
  };
  if (e.op == Op::Pause || e.op == Op::Partition) {
    f.end_us = sat_add(e.true_us, ms_to_us(e.duration_ms));  // as announced, until resume/heal says when
    f.label = std::string(op_name(e.op)) + " " + format_duration_us(ms_to_us(e.duration_ms));
    open_fault_[{c, e.op == Op::Pause ? Op::Resume : Op::Heal}].push_back(out_.faults.size());
    out_.faults.push_back(std::move(f));
  } else if (e.op == Op::Resume || e.op == Op::Heal) {
    // One resume ends every pause of the client (a later pause can extend an earlier one).
    close_open(e.op, nullptr);
  } else if (e.op == Op::Crash) {
    f.label = "crashed";
    open_fault_[{c, Op::Restart}].push_back(out_.faults.size());
    out_.faults.push_back(std::move(f));
  } else if (e.op == Op::Restart) {
    close_open(Op::Restart, "crashed, down ");
  } else {
    f.instant = true;
    if (e.op == Op::ClockJump) {
      f.label = std::string("clock ") + (e.duration_ms >= 0 ? "+" : "") + format_duration_us(ms_to_us(e.duration_ms));
    } else if (e.op == Op::Lost) {
      f.label = e.lost.empty() ? std::string("lost") : "lost " + std::string(lost_what_name(e.lost.what));
      f.lost = e.lost.what;
    } else {
      f.label = op_name(e.op);
    }
    keep(std::move(f));
  }
}

HistoryRecording ReadingRecorder::finish() {
  if (!any_) return std::move(out_);
  // Bars still open end at the horizon: the window's last event, or later
  // when a fault is announced to last longer (a pause past the window).
  int64_t horizon_us = out_.events > 0 ? out_.last_us : last_us_;
  const int64_t window_start_us = out_.events > 0 ? out_.first_us : last_us_;
  // Faults before the window: instants, and spans over by its start.
  std::vector<char> dead_faults(out_.faults.size(), 0);
  for (size_t i = 0; i < out_.faults.size(); ++i) {
    const RecordedFault& f = out_.faults[i];
    if (f.start_event >= from_id_) continue;
    if (f.instant || (f.end_event != 0 ? f.end_event < from_id_ : f.end_us < window_start_us)) dead_faults[i] = 1;
  }
  for (size_t i = 0; i < out_.faults.size(); ++i) {
    if (!dead_faults[i]) horizon_us = std::max(horizon_us, out_.faults[i].end_us);
  }
  expire_leases_before(sat_add(horizon_us, 1));
  for (auto& [key, index] : hold_of_) {
    RecordedHold& h = out_.holds[index];
    h.end_us = horizon_us;
    h.end_event = last_id_;
    h.end = RecordedHold::End::Open;
  }
  for (auto& [index, overlaps] : overlaps_of_hold_) {
    for (size_t o : overlaps) {
      out_.overlaps[o].end_us = horizon_us;
      out_.overlaps[o].end_event = last_id_;
      out_.overlaps[o].open = true;
    }
  }
  for (auto& [op_id, index] : wait_of_) {
    RecordedWait& w = out_.waits[index];
    w.end_us = horizon_us;
    w.end_event = last_id_;
    w.outcome = RecordedWait::Outcome::Open;
  }
  for (auto& [key, open] : lease_of_) {
    RecordedLease& l = out_.leases[open.index];
    l.end_us = horizon_us;
    l.end_event = last_id_;
    l.end = RecordedLease::End::Open;
  }
  for (auto& [lock, stays] : stays_of_) {
    for (size_t index : stays) {
      RecordedLineStay& s = out_.line_stays[index];
      s.left_us = horizon_us;
      s.left_event = last_id_;
      s.left = RecordedLineStay::Left::Open;
    }
  }
  for (auto& [key, indexes] : open_fault_) {
    for (size_t index : indexes) {
      RecordedFault& f = out_.faults[index];
      if (f.end_us <= f.start_us) f.end_us = horizon_us;  // crashed: down to the end
    }
  }
  out_.end_us = horizon_us;
  if (out_.events == 0) out_.first_us = out_.last_us = horizon_us;

  // Drop what ended before the window; holds are referred to by index.
  const std::vector<size_t> hold_index = compact(&out_.holds, dead_holds_);
  compact(&out_.waits, dead_waits_);
  compact(&out_.line_stays, dead_stays_);
  compact(&out_.faults, dead_faults);
  compact(&out_.leases, dead_leases_);
  compact(&out_.overlaps, dead_overlaps_);
  for (RecordedOverlap& o : out_.overlaps) {
    o.first = hold_index[o.first];
    o.second = hold_index[o.second];
    assert(o.first != SIZE_MAX && o.second != SIZE_MAX);
  }
  for (RecordedLease& l : out_.leases) {
    if (l.believed_hold >= 0) {
      const size_t at = hold_index[static_cast<size_t>(l.believed_hold)];
      l.believed_hold = at == SIZE_MAX ? -1 : static_cast<int64_t>(at);
    }
  }
  // Every actor of what is drawn gets a lane, even one without an event in
  // the window (a paused holder).
  for (const RecordedHold& h : out_.holds) out_.clients.insert(h.client);
  for (const RecordedWait& w : out_.waits) out_.clients.insert(w.client);
  for (const RecordedLease& l : out_.leases) out_.servers.insert(l.server);
  for (const RecordedLineStay& s : out_.line_stays) {
    if (s.client >= 0) out_.clients.insert(s.client);
    out_.fair_locks.insert(s.lock);
  }
  for (const RecordedFault& f : out_.faults) {
    if (f.client >= 0) out_.clients.insert(f.client);
    if (f.server >= 0) out_.servers.insert(f.server);
  }
  out_.clients.erase(-1);
  for (int c : out_.clients) {
    if (out_.clocks.count(c)) continue;
    if (auto it = latest_offset_ms_.find(c); it != latest_offset_ms_.end())
      out_.clocks[c] = ClientClock{it->second, it->second};
  }
  return std::move(out_);
}

bool is_lock_or_member(const LockRef& name, const std::string& lock) { return name.is_or_member_of(lock); }

void keep_only_lock(HistoryRecording* r, const std::string& lock) {
  auto other = [&](const LockRef& name) { return !is_lock_or_member(name, lock); };
  std::vector<char> dead(r->holds.size(), 0);
  for (size_t i = 0; i < r->holds.size(); ++i) dead[i] = other(r->holds[i].lock) ? 1 : 0;
  std::erase_if(r->overlaps, [&](const RecordedOverlap& o) { return dead[o.first] || dead[o.second]; });
  const std::vector<size_t> index = compact(&r->holds, dead);
  for (RecordedOverlap& o : r->overlaps) {
    o.first = index[o.first];
    o.second = index[o.second];
  }
  for (RecordedLease& l : r->leases) {
    if (l.believed_hold >= 0) {
      const size_t at = index[static_cast<size_t>(l.believed_hold)];
      l.believed_hold = at == SIZE_MAX ? -1 : static_cast<int64_t>(at);
    }
  }
  std::erase_if(r->waits, [&](const RecordedWait& w) { return other(w.lock); });
  std::erase_if(r->leases, [&](const RecordedLease& l) { return other(l.lock); });
  std::erase_if(r->line_stays, [&](const RecordedLineStay& s) { return other(s.lock); });
  std::erase_if(r->fair_locks, other);
  std::erase_if(r->locks, other);
  // Lanes for what is left (the servers of its scripts are added as drawn).
  r->clients.clear();
  r->servers.clear();
  for (const RecordedHold& h : r->holds) r->clients.insert(h.client);
  for (const RecordedWait& w : r->waits) r->clients.insert(w.client);
  for (const RecordedLineStay& s : r->line_stays)
    if (s.client >= 0) r->clients.insert(s.client);
  for (const RecordedLease& l : r->leases) r->servers.insert(l.server);
  for (const RecordedFault& f : r->faults) {
    if (f.client >= 0) r->clients.insert(f.client);
    if (f.server >= 0) r->servers.insert(f.server);
  }
  r->clients.erase(-1);
}

HistoryRecording record_history(const std::vector<Event>& history, const CheckConfig& config, uint64_t from_id,
                                uint64_t to_id) {
  HistoryContext context(config);
  ReadingRecorder recorder(config, from_id, to_id);
  for (const Event& e : history) {
    if (e.kind == EventKind::Verdict) continue;
    context.on_event(e);
    recorder.on_event(e, context);
  }
  return recorder.finish();
}

}  // namespace locksim
