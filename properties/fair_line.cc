#include "properties/fair_line.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "properties/checker.h"
#include "properties/name_equal.h"
#include "properties/saturating_time.h"

namespace locksim {

namespace {
// A line's deadline (a score: any double, inf included) as whole ms,
// clamped to what int64 holds.
int64_t deadline_ms_of(double score_ms) {
  const double floored = std::floor(score_ms);
  if (std::isnan(floored) || floored >= 9.2e18) return INT64_MAX;
  if (floored <= -9.2e18) return INT64_MIN;
  return static_cast<int64_t>(floored);
}
int64_t true_ms(int64_t true_us) { return true_us >= 0 ? true_us / 1000 : -((-true_us + 999) / 1000); }
bool names_an_owner_twice(const FairLineMirror::Waiters& line) {
  std::vector<std::string_view> owners;
  owners.reserve(line.size());
  for (const FairLineMirror::Waiter& w : line) owners.push_back(w.owner.str());
  std::sort(owners.begin(), owners.end());
  return std::adjacent_find(owners.begin(), owners.end()) != owners.end();
}
}  // namespace

int64_t FairLineMirror::client_now_ms(int client, int64_t true_us) const {
  auto it = clocks_.find(client);
  return sat_add(true_ms(true_us), it == clocks_.end() ? 0 : it->second.offset_ms);
}

FairLineMirror::ClockBounds FairLineMirror::client_now_bounds(int client, int64_t true_us) const {
  auto it = clocks_.find(client);
  if (it == clocks_.end()) return ClockBounds{};
  // local_ms and true ms are both floors: +-1 ms each; plus drift since the
  // observation (rounded up) in either direction.
  const int64_t since_us = sat_abs(sat_sub(true_us, it->second.at_us));
  const int64_t slack_ms = 2 + (since_us / 1000 * kMaxDriftPpm) / 1'000'000 + 1;
  const int64_t base_ms = sat_add(true_ms(true_us), it->second.offset_ms);
  return ClockBounds{sat_sub(base_ms, slack_ms), sat_add(base_ms, slack_ms)};
}

bool FairLineMirror::paused_within(int client, int64_t from_us, int64_t to_us) const {
  auto it = pauses_.find(client);
  if (it == pauses_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const Pause& p) { return p.from_us <= to_us && p.to_us >= from_us; });
}

// The `now_ms` a script was sent with, bounded (see the header).
FairLineMirror::ClockBounds FairLineMirror::now_of_script(const Event& e) const {
  ClockBounds at_arrival = client_now_bounds(e.client, e.true_us);
  ClockBounds b{kUnknownLowMs, at_arrival.hi_ms};
  auto op = ops_.find(e.op_id);
  if (e.op_id == 0 || op == ops_.end() || op->second.client != e.client) return b;
  b.lo_ms = op->second.lo_ms;
  if (op->second.acquire && op->second.pending && facts_.fair_poll()) {
    // Acquire polls are never retried: a pending one was sent less than one
    // request timeout (client clock, plus drift; a pause defers the timeout)
    // before it arrived.
    const int64_t window_us = request_timeout_ms_ * 1000 + request_timeout_ms_ * kMaxDriftPpm / 1000 + 1000;
    const int64_t sent_after_us = sat_sub(e.true_us, window_us);
    if (!paused_within(e.client, sent_after_us, e.true_us))
      b.lo_ms = std::max(b.lo_ms, client_now_bounds(e.client, sent_after_us).lo_ms);
  }
  return b;
}

void FairLineMirror::purge(Waiters& line, ClockBounds now, bool sure) {
  bool chain_sure = sure;  // every entry so far is surely gone after this purge
  size_t popped = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    Waiter& w = line[i];
    const bool surely_stale = w.deadline_hi_ms <= now.lo_ms;
    const bool surely_live = w.deadline_lo_ms > now.hi_ms;
    if (surely_live && w.certain()) break;  // the server's purge stops here
    if (surely_stale && chain_sure) {
      if (w.certain()) purged_.push_back(w);
      popped = i + 1;
      continue;
    }
    // The server may or may not have dropped it (or, if it is absent, gone
    // on past it); only a surely live entry that is surely there stops it.
    chain_sure = false;
    if (!surely_live) w.maybe_purged = true;
  }
  line.erase(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(popped));
}

void FairLineMirror::judge_refusal(const Waiters& line, const Event& e, ClockBounds now) {
  if (now.lo_ms <= kUnknownLowMs) return;
  size_t k = 0;
  // Entries stale by the margin for every possible `now` are surely purged
  // (the owner's own included: then it is treated as a newcomer).
  while (k < line.size() && line[k].deadline_hi_ms <= sat_sub(now.lo_ms, stale_margin_ms_)) ++k;
  // After the purge the server's line is empty or headed by the owner when
  // everything left is the owner's own entry (stale or not: then the line is
  // empty), or a surely live, surely present entry of the owner heads it.
  bool only_owner = true;
  for (size_t i = k; i < line.size(); ++i) only_owner = only_owner && line[i].owner == e.owner;
  const bool owner_heads = k < line.size() && line[k].owner == e.owner && line[k].certain() &&
                           line[k].deadline_lo_ms > now.hi_ms;
  refused_free_lock_ = only_owner || owner_heads;
}

bool FairLineMirror::release_seen_before(const Event& e) {
  if (e.request_id.empty()) return false;
  return release_ids_.seen_before(e.request_id);
}

bool FairLineMirror::same_line(const Line& line, const Event& e) {
  const std::vector<LineEntry>& after = e.line_after.entries();
  if (line.waiters.size() != after.size()) return false;
  // The producer named this content before and the mirror holds it.
  if (e.line_token.value != 0 && e.line_token.value == line.token) return true;
  for (size_t i = 0; i < after.size(); ++i) {
    const Waiter& w = line.waiters[i];
    const LineEntry& entry = after[i];
    const int64_t deadline_ms =
        entry.deadline_ms ? deadline_ms_of(*entry.deadline_ms) : kUnknownHighMs;
    if (w.deadline_lo_ms != deadline_ms || w.deadline_hi_ms != deadline_ms) return false;
    if (!same_name(w.owner, entry.owner)) return false;
  }
  return true;
}

// Exact mode, the line unchanged by the script: what on_exact_script's
// general path concludes when `before` and `after` are the same line (no
// purge, no rewritten deadline), without rebuilding the line.
std::optional<FairLineMirror::Grant> FairLineMirror::on_unchanged_line(const Event& e, Waiters& line,
                                                                      bool granted, bool latch_replay) {
  std::optional<Grant> grant;
  if (granted) {
    // Granted while the line stayed as it was: everyone ahead of the grantee
    // (everyone, for a newcomer) was passed over.
    Grant g{e.lock, e.owner, e.client, e.id, e.true_us, {}};
    for (const Waiter& w : line) {
      if (same_name(w.owner, e.owner)) break;
      g.skipped.push_back(w);
    }
    grant = std::move(g);
  }
  for (Waiter& w : line) {
    w.maybe_purged = false;
    w.maybe_phantom = false;
  }
  if (!facts_.script_is(ScriptKind::FairAcquireFailed)) script_now_ = ClockBounds{e.local_ms, e.local_ms};
  const bool refused_poll = facts_.fair_poll() && !facts_.reply_nil;
  // A release answered by its latch changes nothing and purges nothing.
  const bool purges_only = refused_poll || (facts_.script_is(ScriptKind::FairRelease) && !latch_replay) ||
                           facts_.script_is(ScriptKind::FairForceRelease);
  if (purges_only && !line.empty() && line.front().deadline_hi_ms <= e.local_ms) stale_head_ = line.front();
  if (refused_poll && e.holders_after.empty() && !line.empty() && line.front().owner == e.owner)
    refused_free_lock_ = true;
  return grant;
}

// Exact mode: matches the waiters of `before` with the entries of `after` by
// owner, into source_ and kept_ (see on_exact_script). Returns k when after
// is before[k .. k+m) and then newcomers only, `before` naming no owner twice
// (see below); nullopt otherwise.
std::optional<size_t> FairLineMirror::match_lines(const Waiters& before, const std::vector<LineEntry>& after,
                                                  bool before_unique) {
  source_.assign(after.size(), kNewWaiter);
  kept_.assign(before.size(), 0);
  // The common change from one script to the next: the line loses heads
  // and gains a tail, so after = before[k .. k+m) + newcomers. When no
  // owner is in `before` twice, checking that shape settles every match:
  // the owner of after[j < m] is before[k + j] and no other, and the
  // newcomers (none of them in `before`) leave before's other waiters
  // unmatched. The general search below gives the same result.
  if (matching_ == LineMatching::Fast && before_unique && !after.empty()) {
    size_t k = 0;
    while (k < before.size() && !same_name(before[k].owner, after[0].owner)) ++k;
    const size_t m = k < before.size() ? std::min(after.size(), before.size() - k) : 0;
    bool aligned = m > 0;
    for (size_t j = 1; aligned && j < m; ++j) aligned = same_name(before[k + j].owner, after[j].owner);
    for (size_t j = m; aligned && j < after.size(); ++j) {
      aligned = std::none_of(before.begin(), before.end(),
                             [&](const Waiter& w) { return same_name(w.owner, after[j].owner); });
    }
    if (aligned) {
      for (size_t j = 0; j < m; ++j) {
        source_[j] = k + j;
        kept_[k + j] = 1;
      }
      return k;
    }
  }
  // Finds `owner`, trying positions near `hint` first: from one script to
  // the next a line mostly keeps its order, loses its head or gains a tail,
  // so the search is O(1) per entry instead of a scan (a long line made
  // this quadratic per fair event).
  auto find_in = [](const auto& entries, const std::string& owner, size_t hint) {
    const size_t n = entries.size();
    for (size_t probe : {hint, hint + 1, hint - 1}) {
      if (probe < n && same_name(entries[probe].owner, owner)) return entries.begin() + static_cast<ptrdiff_t>(probe);
    }
    return std::find_if(entries.begin(), entries.end(), [&](const auto& w) { return same_name(w.owner, owner); });
  };
  for (size_t i = 0; i < after.size(); ++i) {
    auto known = find_in(before, after[i].owner, i);
    if (known != before.end()) source_[i] = static_cast<size_t>(known - before.begin());
  }
  for (size_t i = 0; i < before.size(); ++i) kept_[i] = find_in(after, before[i].owner, i) != after.end() ? 1 : 0;
  return std::nullopt;
}

// Exact mode. `before` is the server's line after the previous fair script on
// this lock (only fair scripts change it; a Redis restart empties it), so
// the difference with line_after is exactly what this script did.
std::optional<FairLineMirror::Grant> FairLineMirror::on_exact_script(const Event& e, bool granted,
                                                                    bool latch_replay) {
  exact_ = true;
  Line& line = line_of(lock_id_);
  Waiters& before = line.waiters;
  if (same_line(line, e)) {
    line.token = e.line_token.value;
    return on_unchanged_line(e, before, granted, latch_replay);
  }
  line.version = ++last_version_;
  // The rebuilt line below is e's line, unless it is cut at kMaxLine.
  line.token = e.line_after.size() <= kMaxLine ? e.line_token.value : 0;
  const std::vector<LineEntry>& after = e.line_after.entries();
  // source_[i]: the position in `before` of after[i]'s waiter (kNewWaiter:
  // it just joined); kept_[i]: whether before[i]'s owner is still in line.
  const std::optional<size_t> heads_dropped = match_lines(before, after, line.unique_owners);
  // No deadline (a historical bug): the slot never ends.
  auto deadline_of = [](const LineEntry& entry) {
    return entry.deadline_ms ? deadline_ms_of(*entry.deadline_ms) : kUnknownHighMs;
  };
  auto fill = [&](Waiter& w, size_t i) {
    if (source_[i] == kNewWaiter) {
      w.client = after[i].owner == e.owner ? e.client : -1;
      w.enqueue_event = e.id;
      w.enqueue_us = e.true_us;
      w.op_id = after[i].owner == e.owner ? e.op_id : 0;
    }
    w.maybe_purged = false;
    w.maybe_phantom = false;
    w.deadline_lo_ms = w.deadline_hi_ms = deadline_of(after[i]);
  };
  // A copy of after[i]'s waiter as the new line will hold it (rare paths).
  auto after_waiter = [&](size_t i) {
    Waiter w;
    if (source_[i] != kNewWaiter) w = before[source_[i]];
    else w.owner = owners_.intern(after[i].owner);
    fill(w, i);
    return w;
  };

  const bool has_now = !facts_.script_is(ScriptKind::FairAcquireFailed);
  if (has_now) script_now_ = ClockBounds{e.local_ms, e.local_ms};

  // Waiters removed by this script other than the grantee and a leaver
  // (acquire_failed removes its own owner): purged.
  for (size_t i = 0; i < before.size(); ++i) {
    const Waiter& w = before[i];
    if (kept_[i]) continue;
    if (granted && same_name(w.owner, e.owner)) continue;
    if (facts_.script_is(ScriptKind::FairAcquireFailed) && same_name(w.owner, e.owner)) continue;
    purged_.push_back(w);
  }

  // A script that purges and then changes no deadline must leave a live head.
  const bool refused_poll = facts_.fair_poll() && !facts_.reply_nil;
  const bool purges_only = refused_poll || (facts_.script_is(ScriptKind::FairRelease) && !latch_replay) ||
                           facts_.script_is(ScriptKind::FairForceRelease);
  if (purges_only && !after.empty() && source_[0] != kNewWaiter && deadline_of(after.front()) <= e.local_ms) {
    stale_head_ = after_waiter(0);
  }
  if (refused_poll) {
    for (size_t i = 0; i < after.size(); ++i) {
      if (source_[i] == kNewWaiter) continue;
      const Waiter& old = before[source_[i]];
      if (old.deadline_hi_ms == deadline_of(after[i])) continue;
      // The poller itself, stale by its own now: purged by step 1 and
      // enqueued anew by step 5 in the same script. Judged as a purge.
      if (after[i].owner == e.owner && old.deadline_hi_ms <= e.local_ms) {
        purged_.push_back(old);
        continue;
      }
      Waiter changed = after_waiter(i);
      changed.deadline_lo_ms = old.deadline_hi_ms;
      rewritten_ = changed;
      break;
    }
  }
  // Refused on a free lock although, after the script, the owner heads the
  // line: nobody was ahead of it.
  if (refused_poll && e.holders_after.empty() && !after.empty() && after.front().owner == e.owner)
    refused_free_lock_ = true;

  std::optional<Grant> grant;
  if (granted) {
    Grant g{e.lock, e.owner, e.client, e.id, e.true_us, {}};
    // Everyone ahead of the grantee in the line before (everyone, for a
    // newcomer) who is still in the line was passed over.
    for (size_t i = 0; i < before.size(); ++i) {
      const Waiter& w = before[i];
      if (same_name(w.owner, e.owner)) break;
      if (kept_[i]) g.skipped.push_back(w);
    }
    grant = std::move(g);
  }

  if (heads_dropped) {
    // The new line in place: drop the heads and whatever follows the kept
    // run, then add the newcomers. No kept owner is named twice, and no
    // newcomer is a kept owner (match_lines): only two newcomers can share
    // an owner.
    const size_t k = *heads_dropped;
    const size_t kept = std::min(after.size(), before.size() - k);
    before.erase(before.begin() + static_cast<ptrdiff_t>(k + kept), before.end());
    before.erase(before.begin(), before.begin() + static_cast<ptrdiff_t>(k));
    for (size_t i = 0; i < kept; ++i) fill(before[i], i);
    for (size_t i = kept; i < after.size() && before.size() < kMaxLine; ++i) {
      if (line.unique_owners && std::any_of(before.begin() + static_cast<ptrdiff_t>(kept), before.end(),
                                            [&](const Waiter& w) { return same_name(w.owner, after[i].owner); }))
        line.unique_owners = false;
      before.emplace_back();
      before.back().owner = owners_.intern(after[i].owner);
      fill(before.back(), i);
    }
    return grant;
  }
  // The new line, moving each waiter's record out of `before` (a waiter
  // named twice by the server is copied from its first place).
  taken_.assign(before.size(), kNewWaiter);
  rebuilt_.clear();
  // The checks below see an owner twice only where one waiter is copied
  // twice or a newcomer repeats an owner; a line that named an owner twice
  // already can keep both from distinct places: then it is counted.
  const bool before_unique = line.unique_owners;
  line.unique_owners = true;
  for (size_t i = 0; i < after.size() && rebuilt_.size() < kMaxLine; ++i) {
    const size_t from = source_[i];
    if (from == kNewWaiter) {
      // Newcomers are few per script: a search for an earlier namesake is cheap.
      if (line.unique_owners && std::any_of(rebuilt_.begin(), rebuilt_.end(),
                                            [&](const Waiter& w) { return same_name(w.owner, after[i].owner); }))
        line.unique_owners = false;
      rebuilt_.emplace_back();
      rebuilt_.back().owner = owners_.intern(after[i].owner);
    } else if (taken_[from] != kNewWaiter) {
      line.unique_owners = false;
      rebuilt_.push_back(rebuilt_[taken_[from]]);
    } else {
      taken_[from] = rebuilt_.size();
      rebuilt_.push_back(std::move(before[from]));
    }
    fill(rebuilt_.back(), i);
  }
  before.swap(rebuilt_);
  rebuilt_.clear();
  if (!before_unique && line.unique_owners) line.unique_owners = !names_an_owner_twice(before);
  return grant;
}

std::optional<FairLineMirror::Grant> FairLineMirror::on_event(const Event& e, const EventFacts& facts) {
  facts_ = facts;
  refused_free_lock_ = false;
  lock_id_ = lock_table_.intern(e.lock);
  purged_.clear();
  stale_head_.reset();
  rewritten_.reset();
  if (e.client >= 0 && (e.kind == EventKind::Invoke || e.kind == EventKind::Ok || e.kind == EventKind::Fail ||
                        e.kind == EventKind::Info || e.kind == EventKind::Deliver)) {
    clocks_[e.client] = Observation{sat_sub(e.local_ms, true_ms(e.true_us)), e.true_us};
  }
  switch (e.kind) {
    case EventKind::Invoke:
      if (e.op_id != 0) {
        ops_[e.op_id] = OpClock{e.client, e.lock, is_acquire(e.op), true, e.local_ms};
        while (ops_.size() > kMaxOps) ops_.erase(ops_.begin());
        if (is_acquire(e.op)) waiting_[e.owner] = e.op_id;
      }
      return std::nullopt;
    case EventKind::Ok:
    case EventKind::Fail:
    case EventKind::Info:
      if (e.op_id != 0) {
        auto op = ops_.find(e.op_id);
        if (op != ops_.end()) op->second.pending = false;
        auto it = waiting_.find(e.owner);
        if (it != waiting_.end() && it->second == e.op_id) waiting_.erase(it);
      }
      return std::nullopt;
    case EventKind::Fault:
      if (e.op == Op::ClockJump && e.client >= 0) {
        auto it = clocks_.find(e.client);
        if (it != clocks_.end()) it->second.offset_ms = sat_add(it->second.offset_ms, e.duration_ms);
        if (e.duration_ms < 0) {
          for (auto& [id, op] : ops_)
            if (op.client == e.client && op.lo_ms > kUnknownLowMs) op.lo_ms = sat_add(op.lo_ms, e.duration_ms);
        }
      } else if (e.op == Op::Crash) {
        for (auto& [id, op] : ops_)
          if (op.client == e.target) op.pending = false;
        std::erase_if(waiting_, [&](const auto& kv) {
          auto op = ops_.find(kv.second);
          return op == ops_.end() || op->second.client == e.target;
        });
      } else if (e.op == Op::Pause && e.target >= 0) {
        auto& p = pauses_[e.target];
        p.push_back(Pause{e.true_us, sat_add(e.true_us, ms_to_us(e.duration_ms))});
        if (p.size() > kMaxPauses) p.erase(p.begin());
      } else if (e.op == Op::RedisRestart) {
        lines_.clear();  // recreated with new versions
        locks_.clear();
      }
      return std::nullopt;
    case EventKind::Script:
      break;
    default:
      return std::nullopt;
  }

  // Did the lock exist when the script ran? (Scripts see a frozen clock.)
  LockState& lock = locks_[lock_id_];
  const bool had_holders = !lock.holders.empty();
  std::optional<bool> existed;  // nullopt: cannot tell
  if (!had_holders) existed = false;
  else if (lock.expiry_known) existed = e.server_ms <= lock.expire_at_ms;
  const bool fair_script = facts_.fair_prefix;
  // Only fair scripts need it (most scripts are not).
  const bool held_by_owner_before = fair_script && had_holders && names_contain(lock.holders, e.owner);
  lock.holders = e.holders_after;
  if (e.holders_after.empty()) {
    lock.expiry_known = false;
  } else if ((facts_.acquire_suffix || facts_.try_once_suffix) && facts_.reply_nil &&
             e.lease_ms > 0) {
    lock.expiry_known = true;
    lock.expire_at_ms = sat_add(e.server_ms, e.lease_ms);
  } else if (facts_.renew_suffix && e.reply.is(1) && e.lease_ms > 0) {
    lock.expiry_known = true;
    lock.expire_at_ms = sat_add(e.server_ms, e.lease_ms);
  } else if (facts_.release_suffix && e.reply.is(0)) {
    lock.expiry_known = false;  // reset, unless a latch answered
  }

  if (!fair_script) return std::nullopt;
  if (e.line_known) {
    const bool nil_grant = facts_.fair_poll() && facts_.reply_nil && names_contain(e.holders_after, e.owner) &&
                           !(held_by_owner_before && existed != std::optional<bool>(false));
    const bool latch_replay = facts_.script_is(ScriptKind::FairRelease) && release_seen_before(e);
    return on_exact_script(e, nil_grant, latch_replay);
  }
  exact_ = false;
  Line& bounded = line_of(lock_id_);
  bounded.version = ++last_version_;
  bounded.token = 0;
  bounded.unique_owners = false;  // a phantom may repeat an owner
  Waiters& line = bounded.waiters;

  if (facts_.script_is(ScriptKind::FairAcquireFailed)) {
    auto it = std::find_if(line.begin(), line.end(), [&](const Waiter& w) { return w.owner == e.owner; });
    if (it != line.end()) {
      const bool exact = it->certain();
      for (auto behind = it + 1; behind != line.end(); ++behind) {
        behind->deadline_lo_ms = sat_sub(behind->deadline_lo_ms, e.wait_ms);
        if (exact) behind->deadline_hi_ms = sat_sub(behind->deadline_hi_ms, e.wait_ms);
      }
    }
    std::erase_if(line, [&](const Waiter& w) { return w.owner == e.owner; });
    return std::nullopt;
  }

  const ClockBounds now = now_of_script(e);
  script_now_ = now;
  // A release whose request id was seen before may be answered by its latch
  // before any purge.
  const bool purge_sure = !(facts_.script_is(ScriptKind::FairRelease) && release_seen_before(e));
  const bool poll = facts_.fair_poll();
  // Refused while the lock does not exist (the acquire scripts never delete
  // it, so it did not exist before either).
  if (poll && !facts_.reply_nil && e.holders_after.empty())
    judge_refusal(line, e, now);
  purge(line, now, purge_sure);
  if (poll && e.op_id != 0) {
    // The next poll of this acquire is sent after this one's reply arrived.
    auto op = ops_.find(e.op_id);
    if (op != ops_.end() && op->second.client == e.client)
      op->second.lo_ms = std::max(op->second.lo_ms, client_now_bounds(e.client, e.true_us).lo_ms);
  }
  if (!poll) return std::nullopt;

  const bool nil = facts_.reply_nil;
  const bool holds_now = names_contain(e.holders_after, e.owner);
  // Step 3 (reentry) needs the owner's field on a live lock.
  const bool maybe_reentry = held_by_owner_before && existed != std::optional<bool>(false);
  if (nil && holds_now && !maybe_reentry) {
    // Step 2: granted from the line (or to a newcomer on an empty line).
    Grant g{e.lock, e.owner, e.client, e.id, e.true_us, {}};
    auto it = std::find_if(line.begin(), line.end(), [&](const Waiter& w) { return w.owner == e.owner; });
    const bool owner_certain = it != line.end() && it->certain();
    // Everyone ahead of the owner's entry is gone; without a surely present
    // entry the server's line may also have been empty: those behind may be
    // gone too.
    for (auto a = line.begin(); a != it; ++a)
      if (!a->maybe_phantom) g.skipped.push_back(*a);
    line.erase(line.begin(), it);
    std::erase_if(line, [&](const Waiter& w) { return w.owner == e.owner; });
    for (Waiter& w : line) {
      w.deadline_lo_ms = sat_sub(w.deadline_lo_ms, e.wait_ms);
      w.deadline_hi_ms = sat_sub(w.deadline_hi_ms, e.wait_ms);
      if (!owner_certain) w.maybe_purged = true;
    }
    return g;
  }
  if (nil && holds_now && !existed.has_value() && held_by_owner_before) {
    // Reentry (step 3) or, if the hold had expired, a grant (step 2): the
    // deadlines may have been lowered by wait_ms, and the owner's entries
    // (there should be none) may be gone.
    for (Waiter& w : line) {
      w.deadline_lo_ms = sat_sub(w.deadline_lo_ms, e.wait_ms);
      if (w.owner == e.owner) w.maybe_purged = true;
    }
    return std::nullopt;
  }
  if (facts_.script_is(ScriptKind::FairAcquire) && facts_.reply_integer) {
    const int64_t ttl_ms = *facts_.reply_integer;
    auto mine = std::find_if(line.begin(), line.end(), [&](const Waiter& w) { return w.owner == e.owner; });
    const bool surely_queued =
        std::any_of(line.begin(), line.end(), [&](const Waiter& w) { return w.owner == e.owner && w.certain(); });
    if (surely_queued || line.size() >= kMaxLine) return std::nullopt;  // step 4: nothing changes
    Waiter w{owners_.intern(e.owner), e.client, e.id, e.true_us, 0, 0, e.op_id, false, mine != line.end()};
    // deadline = ttl + wait + now, ttl truncated toward zero in the reply.
    w.deadline_lo_ms =
        now.lo_ms <= kUnknownLowMs ? kUnknownLowMs : sat_sub(sat_add(sat_add(now.lo_ms, ttl_ms), e.wait_ms), 1);
    w.deadline_hi_ms =
        now.hi_ms >= kUnknownHighMs ? kUnknownHighMs : sat_add(sat_add(sat_add(now.hi_ms, ttl_ms), e.wait_ms), 1);
    if (mine == line.end() && !line.empty() && line.back().certain()) {
      // Surely the server's tail: the deadline is exactly the tail's + wait_ms.
      const int64_t lo = sat_add(line.back().deadline_lo_ms, e.wait_ms);
      const int64_t hi = sat_add(line.back().deadline_hi_ms, e.wait_ms);
      if (std::max(lo, w.deadline_lo_ms) <= std::min(hi, w.deadline_hi_ms)) {
        w.deadline_lo_ms = std::max(lo, w.deadline_lo_ms);
        w.deadline_hi_ms = std::min(hi, w.deadline_hi_ms);
      }
    }
    assert(w.deadline_lo_ms <= w.deadline_hi_ms);
    line.push_back(std::move(w));
  }
  return std::nullopt;
}

FairLineMirror::Line& FairLineMirror::line_of(LockId lock) {
  const bool created = lines_.find(lock) == nullptr;
  Line& line = lines_[lock];
  if (created) line.version = ++last_version_;
  return line;
}

bool FairLineMirror::is_waiting(const std::string& owner, const std::string& lock) const {
  auto it = waiting_.find(owner);
  if (it == waiting_.end()) return false;
  auto op = ops_.find(it->second);
  return op != ops_.end() && op->second.lock == lock && op->second.pending;
}

std::optional<int64_t> FairLineMirror::latest_deadline_ahead_ms(const std::string& lock,
                                                                 const std::string& owner) const {
  const Line* found = find_line(lock);
  if (found == nullptr) return std::nullopt;
  std::optional<int64_t> latest;
  for (const Waiter& w : found->waiters) {
    if (w.owner == owner) break;
    if (w.deadline_hi_ms >= kUnknownHighMs) continue;
    auto obs = clocks_.find(w.client);
    const int64_t true_deadline_ms = sat_sub(w.deadline_hi_ms, obs == clocks_.end() ? 0 : obs->second.offset_ms);
    latest = latest ? std::max(*latest, true_deadline_ms) : true_deadline_ms;
  }
  return latest;
}

}  // namespace locksim
