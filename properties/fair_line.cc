#include "properties/fair_line.h"

#include <algorithm>

#include "properties/checker.h"

namespace locksim {

namespace {
int64_t true_ms(int64_t true_us) { return true_us >= 0 ? true_us / 1000 : -((-true_us + 999) / 1000); }
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

int64_t FairLineMirror::client_now_ms(int client, int64_t true_us) const {
  auto it = offset_ms_.find(client);
  return true_ms(true_us) + (it == offset_ms_.end() ? 0 : it->second);
}

std::optional<FairLineMirror::Grant> FairLineMirror::on_event(const Event& e) {
  refused_free_lock_ = false;
  if (e.client >= 0 && (e.kind == EventKind::Invoke || e.kind == EventKind::Ok || e.kind == EventKind::Fail)) {
    offset_ms_[e.client] = e.local_ms - true_ms(e.true_us);
  }
  switch (e.kind) {
    case EventKind::Invoke:
      if (is_acquire_op(e)) pending_[e.owner] = {e.op_id, e.client, e.lock};
      return std::nullopt;
    case EventKind::Ok:
    case EventKind::Fail:
    case EventKind::Info:
      if (e.op_id != 0) {
        auto it = pending_.find(e.owner);
        if (it != pending_.end() && it->second.op_id == e.op_id) pending_.erase(it);
      }
      return std::nullopt;
    case EventKind::Fault:
      if (e.op == "clock_jump" && e.client >= 0) {
        auto it = offset_ms_.find(e.client);
        if (it != offset_ms_.end()) it->second += e.duration_ms;
      } else if (e.op == "crash") {
        std::erase_if(pending_, [&](const auto& kv) { return kv.second.client == e.target; });
      } else if (e.op == "redis_restart") {
        lines_.clear();
        holders_.clear();
      }
      return std::nullopt;
    case EventKind::Script:
      break;
    default:
      return std::nullopt;
  }

  std::vector<std::string> before = std::move(holders_[e.lock]);
  holders_[e.lock] = e.holders_after;
  const bool fair_acquire = e.script == "fair_acquire";
  const bool fair_try = e.script == "fair_try_once";
  const bool fair_failed = e.script == "fair_acquire_failed";
  if (!fair_acquire && !fair_try && !fair_failed && e.script.rfind("fair_", 0) != 0) return std::nullopt;
  std::deque<Waiter>& line = lines_[e.lock];

  if (fair_failed) {
    auto it = std::find_if(line.begin(), line.end(), [&](const Waiter& w) { return w.owner == e.owner; });
    if (it != line.end()) {
      for (auto behind = it + 1; behind != line.end(); ++behind) behind->deadline_ms -= e.wait_ms;
      line.erase(it);
    }
    return std::nullopt;
  }
  // Purge stale heads as the server does (first step of every fair script
  // but acquire_failed), by the requesting client's clock.
  const int64_t now_ms = client_now_ms(e.client, e.true_us);
  if (fair_acquire && e.holders_after.empty() && !reply_is_nil(e)) {
    // Where does the owner stand once the server purged the stale heads?
    // Judged only when clear: heads stale by more than the margin are surely
    // purged; a head within the margin of its deadline leaves it open.
    size_t i = 0;
    while (i < line.size() && line[i].deadline_ms <= now_ms - stale_margin_ms_) ++i;
    const bool clear = i == line.size() || line[i].deadline_ms > now_ms + stale_margin_ms_;
    refused_free_lock_ = clear && (i == line.size() || line[i].owner == e.owner);
  }
  while (!line.empty() && line.front().deadline_ms <= now_ms) line.pop_front();
  if (!fair_acquire && !fair_try) return std::nullopt;

  const bool granted = e.reply == "nil" && contains(e.holders_after, e.owner) && !contains(before, e.owner);
  if (granted) {
    Grant g{e.lock, e.owner, e.client, e.id, e.true_us, {}};
    auto it = std::find_if(line.begin(), line.end(), [&](const Waiter& w) { return w.owner == e.owner; });
    if (it != line.end()) {
      // Everyone ahead of the new holder must have left the server's line.
      g.skipped.assign(line.begin(), it);
      line.erase(line.begin(), it + 1);
    }
    // Otherwise the owner was granted without (mirrored) waiting: either the
    // server's line was empty after purging, or the mirror lost track of it
    // (it was purged while the mirror still held it as waiting, and joined
    // again). Nothing is judged; mirrored waiters stay until purged.

    for (Waiter& w : line) w.deadline_ms -= e.wait_ms;
    return g;
  }
  int64_t ttl_ms = 0;
  if (fair_acquire && reply_integer(e, &ttl_ms)) {
    const bool queued = std::any_of(line.begin(), line.end(), [&](const Waiter& w) { return w.owner == e.owner; });
    if (!queued && line.size() < kMaxLine) {
      line.push_back(Waiter{e.owner, e.client, e.id, e.true_us, now_ms + ttl_ms + e.wait_ms, e.op_id});
    }
  }
  return std::nullopt;
}

bool FairLineMirror::is_waiting(const std::string& owner, const std::string& lock) const {
  auto it = pending_.find(owner);
  return it != pending_.end() && it->second.lock == lock;
}

std::optional<int64_t> FairLineMirror::latest_deadline_ahead_ms(const std::string& lock,
                                                                 const std::string& owner) const {
  auto it = lines_.find(lock);
  if (it == lines_.end()) return std::nullopt;
  std::optional<int64_t> latest;
  for (const Waiter& w : it->second) {
    if (w.owner == owner) break;
    auto off = offset_ms_.find(w.client);
    const int64_t true_deadline_ms = w.deadline_ms - (off == offset_ms_.end() ? 0 : off->second);
    latest = latest ? std::max(*latest, true_deadline_ms) : true_deadline_ms;
  }
  return latest;
}

}  // namespace locksim
