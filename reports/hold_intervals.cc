#include "reports/hold_intervals.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace locksim {

std::string format_duration_us(int64_t span_us) {
  char buf[48];
  const double abs_us = static_cast<double>(span_us < 0 ? -span_us : span_us);
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

// a + b, held at the int64 bounds (traces may name any time and lease).
int64_t saturating_add(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}


bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_acquire_op(const std::string& op) { return op == "lock" || op == "try_lock"; }

bool holds(const Event& e, const std::string& owner) {
  return std::find(e.holders_after.begin(), e.holders_after.end(), owner) != e.holders_after.end();
}

constexpr int64_t kExpiryUnknown = INT64_MAX;

// The single pass: state per lock key, per (lock, owner), per operation and
// per client, each bounded by what is open at one time.
class Deriver {
 public:
  Deriver(HoldIntervals* out, uint64_t first_id) : out_(*out), first_id_(first_id) {}

  void on_event(const Event& e) {
    expire_leases_before(e.true_us);
    note_actors(e);
    switch (e.kind) {
      case EventKind::Invoke: on_invoke(e); break;
      case EventKind::Ok:
      case EventKind::Fail:
      case EventKind::Info: on_completion(e); break;
      case EventKind::Script: on_script(e); break;
      case EventKind::Deliver: on_deliver(e); break;
      case EventKind::Fault: on_fault(e); break;
      case EventKind::Verdict: break;
    }
    last_us_ = e.true_us;
    last_id_ = e.id;
  }

  void finish() {
    // Bars still open end at the horizon: the last event, or later when a
    // fault is announced to last longer (a pause past the end of the window).
    int64_t horizon_us = last_us_;
    for (const FaultSpan& f : out_.faults) horizon_us = std::max(horizon_us, f.end_us);
    expire_leases_before(horizon_us == INT64_MAX ? INT64_MAX : horizon_us + 1);  // no overflow at the end of time
    for (auto& [key, index] : hold_of_) close_hold(index, horizon_us, last_id_, BelievedHold::End::Open);
    hold_of_.clear();
    for (auto& [op_id, index] : wait_of_) {
      Wait& w = out_.waits[index];
      w.end_us = horizon_us;
      w.end_event = last_id_;
      w.open = true;
    }
    wait_of_.clear();
    for (auto& [key, index] : lease_of_) {
      Lease& l = out_.leases[index];
      l.end_us = horizon_us;
      l.end_event = last_id_;
      l.end = Lease::End::Open;
    }
    lease_of_.clear();
    for (auto& [client, indexes] : open_fault_) {
      for (size_t index : indexes) {
        FaultSpan& f = out_.faults[index];
        if (f.end_us <= f.start_us) f.end_us = horizon_us;  // crashed: down to the end
      }
    }
    open_fault_.clear();
    out_.end_us = horizon_us;
    out_.clients.assign(clients_.begin(), clients_.end());
    out_.servers.assign(servers_.begin(), servers_.end());
    find_overlaps();
  }

 private:
  using LeaseKey = std::pair<int, std::string>;  // server, lock key
  using HoldKey = std::pair<std::string, std::string>;  // lock, owner

  void note_actors(const Event& e) {
    if (e.client >= 0) clients_.insert(e.client);
    if (e.kind == EventKind::Script && e.server >= 0) servers_.insert(e.server);
    if (e.kind == EventKind::Fault) {
      if (is_server_fault(e)) {
        servers_.insert(server_of_fault(e));
      } else if (e.target >= 0) {
        clients_.insert(e.target);
      }
    }
  }

  static bool is_server_fault(const Event& e) {
    return e.op == "redis_restart" || e.op == "failover" || (e.op == "clock_jump" && e.client < 0);
  }
  static int server_of_fault(const Event& e) { return e.server >= 0 ? e.server : std::max(e.target, 0); }
  static int client_of(const Event& e) { return e.kind == EventKind::Fault && e.target >= 0 ? e.target : e.client; }

  // --- client side: waits and believed holds -------------------------------

  void on_invoke(const Event& e) {
    if (is_acquire_op(e.op)) {
      Wait w;
      w.client = e.client;
      w.owner = e.owner;
      w.lock = e.lock;
      w.op = e.op;
      w.start_us = w.end_us = e.true_us;
      w.start_event = w.end_event = e.id;
      wait_of_[e.op_id] = out_.waits.size();
      out_.waits.push_back(std::move(w));
    } else if (e.op == "unlock") {
      const HoldKey key{e.lock, e.owner};
      auto count = count_of_.find(key);
      if (count == count_of_.end()) {
        // Held from before the window (we never saw its acquire): draw it from the start.
        if (!hold_of_.count(key)) open_hold(e, out_.first_us, first_id_, false);
        close_hold(hold_of_[key], e.true_us, e.id, BelievedHold::End::Released);
        hold_of_.erase(key);
        return;
      }
      if (--count->second > 0) return;
      count_of_.erase(count);
      auto it = hold_of_.find(key);
      if (it != hold_of_.end()) {
        close_hold(it->second, e.true_us, e.id, BelievedHold::End::Released);
        hold_of_.erase(it);
      }
    }
  }

  void on_completion(const Event& e) {
    if (auto w = wait_of_.find(e.op_id); e.op_id != 0 && w != wait_of_.end() && is_acquire_op(e.op)) {
      Wait& wait = out_.waits[w->second];
      wait.end_us = e.true_us;
      wait.end_event = e.id;
      wait.acquired = e.kind == EventKind::Ok && e.value == 1;
      wait_of_.erase(w);
    }
    if (e.kind == EventKind::Ok && is_acquire_op(e.op) && e.value == 1) {
      const HoldKey key{e.lock, e.owner};
      if (count_of_[key]++ == 0 && !hold_of_.count(key)) open_hold(e, e.true_us, e.id, true);
    } else if (e.kind == EventKind::Info && (e.op == "hold_lost" || e.op == "validity_end")) {
      const HoldKey key{e.lock, e.owner};
      count_of_.erase(key);
      if (auto it = hold_of_.find(key); it != hold_of_.end()) {
        close_hold(it->second, e.true_us, e.id, BelievedHold::End::Lost);
        hold_of_.erase(it);
      }
    }
  }

  void open_hold(const Event& e, int64_t start_us, uint64_t start_id, bool known) {
    BelievedHold h;
    h.client = e.client;
    h.owner = e.owner;
    h.lock = e.lock;
    h.start_us = h.end_us = start_us;
    h.start_event = h.end_event = start_id;
    h.start_known = known;
    hold_of_[{e.lock, e.owner}] = out_.holds.size();
    out_.holds.push_back(std::move(h));
  }

  void close_hold(size_t index, int64_t end_us, uint64_t end_id, BelievedHold::End how) {
    BelievedHold& h = out_.holds[index];
    h.end_us = end_us;
    h.end_event = end_id;
    h.end = how;
  }

  void on_deliver(const Event& e) {
    IntervalTick tick{e.true_us, e.id, "message"};
    for (const std::string& p : e.published) tick.label += " " + p.substr(p.rfind(' ') + 1);
    Wait* best = nullptr;
    for (auto& [op_id, index] : wait_of_) {
      Wait& w = out_.waits[index];
      if (w.client != e.client) continue;
      bool names_lock = false;
      for (const std::string& p : e.published) names_lock |= p.find("{" + w.lock) != std::string::npos;
      if (names_lock || best == nullptr) best = &w;
      if (names_lock) break;
    }
    if (best != nullptr && best->wakeups.size() < 64) best->wakeups.push_back(tick);
  }

  // --- faults --------------------------------------------------------------

  void on_fault(const Event& e) {
    FaultSpan f;
    f.kind = e.op;
    f.start_us = f.end_us = e.true_us;
    f.start_event = e.id;
    if (is_server_fault(e)) {
      f.server = server_of_fault(e);
      f.instant = true;
      on_server_fault(e, f);
      out_.faults.push_back(std::move(f));
      return;
    }
    const int c = client_of(e);
    f.client = c;
    if (e.op == "pause" || e.op == "partition") {
      f.end_us = e.true_us + e.duration_ms * 1000;  // as announced, until resume/heal says when
      f.label = e.op + " " + format_duration_us(e.duration_ms * 1000);
      open_fault_[{c, e.op == "pause" ? "resume" : "heal"}].push_back(out_.faults.size());
    } else if (e.op == "resume" || e.op == "heal") {
      // One resume ends every pause of the client (a later pause can extend an earlier one).
      if (auto it = open_fault_.find({c, e.op}); it != open_fault_.end()) {
        for (size_t index : it->second) {
          FaultSpan& open = out_.faults[index];
          open.end_us = e.true_us;
          open.end_event = e.id;
        }
        open_fault_.erase(it);
      }
      return;  // drawn as the end of its span
    } else if (e.op == "crash") {
      f.label = "crashed";
      open_fault_[{c, "restart"}].push_back(out_.faults.size());
      for (auto it = hold_of_.begin(); it != hold_of_.end();) {
        if (out_.holds[it->second].client != c) {
          ++it;
          continue;
        }
        close_hold(it->second, e.true_us, e.id, BelievedHold::End::Crashed);
        count_of_.erase(it->first);
        it = hold_of_.erase(it);
      }
      for (auto it = wait_of_.begin(); it != wait_of_.end();) {
        Wait& w = out_.waits[it->second];
        if (w.client != c) {
          ++it;
          continue;
        }
        w.end_us = e.true_us;
        w.end_event = e.id;
        w.crashed = true;
        it = wait_of_.erase(it);
      }
    } else if (e.op == "restart") {
      if (auto it = open_fault_.find({c, "restart"}); it != open_fault_.end()) {
        for (size_t index : it->second) {
          FaultSpan& open = out_.faults[index];
          open.end_us = e.true_us;
          open.end_event = e.id;
          open.label = "crashed, down " + format_duration_us(e.true_us - open.start_us);
        }
        open_fault_.erase(it);
      }
      return;
    } else if (e.op == "clock_jump") {
      f.instant = true;
      f.label = std::string("clock ") + (e.duration_ms >= 0 ? "+" : "") + format_duration_us(e.duration_ms * 1000);
    } else if (e.op == "lost") {
      f.instant = true;
      f.label = "lost " + e.detail.substr(0, e.detail.find(' '));
    } else {
      f.instant = true;
      f.label = e.op;
    }
    out_.faults.push_back(std::move(f));
  }

  void on_server_fault(const Event& e, FaultSpan& f) {
    const int s = f.server;
    if (e.op == "clock_jump") {
      f.kind = "server_clock_jump";
      f.label = std::string("clock ") + (e.duration_ms >= 0 ? "+" : "") + format_duration_us(e.duration_ms * 1000);
      server_offset_us_[s] += e.duration_ms * 1000;
      // A forward jump can put an expiry in the past: the key is gone now.
      for (auto it = lease_of_.begin(); it != lease_of_.end();) {
        if (it->first.first == s && expiry_us(out_.leases[it->second]) <= e.true_us) {
          end_lease(it->second, e.true_us, e.id, Lease::End::Expired);
          it = lease_of_.erase(it);
        } else {
          ++it;
        }
      }
      return;
    }
    last_reset_[s] = {e.true_us, e.id, e.op};
    if (e.op == "failover") {
      f.label = "failover (lag " + format_duration_us(e.duration_ms * 1000) + ")";
      return;  // the lease may have survived: later scripts tell
    }
    const bool kept = e.detail.find("persistence always") != std::string::npos;
    f.label = kept ? "restart (data kept)" : "restart, data lost";
    if (e.duration_ms > 0) {
      f.instant = false;
      f.end_us = e.true_us + e.duration_ms * 1000;
      f.label += ", down " + format_duration_us(e.duration_ms * 1000);
    }
    if (kept) return;
    for (auto it = lease_of_.begin(); it != lease_of_.end();) {
      if (it->first.first == s) {
        end_lease(it->second, e.true_us, e.id, Lease::End::ServerReset);
        out_.leases[it->second].reset_by = e.op;
        it = lease_of_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // --- server side: leases -------------------------------------------------

  int64_t expiry_us(const Lease& l) const {
    if (l.expire_server_ms == kExpiryUnknown) return INT64_MAX;
    auto offset = server_offset_us_.find(l.server);
    // Saturating: a trace may name any expiry (a lease of 2^62 ms).
    int64_t expire_us = 0;
    if (__builtin_mul_overflow(l.expire_server_ms, int64_t{1000}, &expire_us)) {
      return l.expire_server_ms > 0 ? INT64_MAX : INT64_MIN;
    }
    int64_t local_us = 0;
    if (__builtin_sub_overflow(expire_us, offset == server_offset_us_.end() ? 0 : offset->second, &local_us)) {
      return expire_us > 0 ? INT64_MAX : INT64_MIN;
    }
    return local_us;
  }

  void expire_leases_before(int64_t now_us) {
    for (auto it = lease_of_.begin(); it != lease_of_.end();) {
      const int64_t at_us = expiry_us(out_.leases[it->second]);
      if (at_us < now_us) {
        end_lease(it->second, at_us, 0, Lease::End::Expired);
        it = lease_of_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void end_lease(size_t index, int64_t end_us, uint64_t end_id, Lease::End how) {
    Lease& l = out_.leases[index];
    l.end_us = std::max(end_us, l.start_us);
    l.end_event = end_id;
    l.end = how;
  }

  void on_script(const Event& e) {
    if (e.lock.empty() || e.server < 0 || ends_with(e.script, "_acquire_failed")) return;
    server_offset_us_[e.server] = e.server_ms * 1000 - e.true_us;
    const bool acquired = (ends_with(e.script, "_acquire") || ends_with(e.script, "_try_once")) && e.reply == "nil";
    const bool force = ends_with(e.script, "force_release");
    const bool release = ends_with(e.script, "_release") && !force;
    const bool sets_expiry = acquired || (ends_with(e.script, "_renew") && e.reply == "1") ||
                             (release && e.reply == "0");
    const LeaseKey key{e.server, e.lock};
    if (auto it = lease_of_.find(key); it != lease_of_.end()) {
      Lease& l = out_.leases[it->second];
      if (!holds(e, l.owner)) {
        if ((release || force) && e.reply == "1") {
          end_lease(it->second, e.true_us, e.id, Lease::End::Deleted);
        } else if (auto reset = last_reset_.find(e.server);
                   reset != last_reset_.end() && reset->second.true_us >= l.start_us) {
          end_lease(it->second, reset->second.true_us, reset->second.event_id, Lease::End::ServerReset);
          l.reset_by = reset->second.op;
        } else {
          end_lease(it->second, e.true_us, e.id, Lease::End::Replaced);
        }
        lease_of_.erase(it);
      } else if (sets_expiry) {
        if (l.renewals.size() < 256) {
          l.renewals.push_back({e.true_us, e.id, ends_with(e.script, "_renew") ? "renew" : (release ? "release -> 0" : "reentry")});
        }
        l.expire_server_ms = saturating_add(e.server_ms, e.lease_ms);
        l.lease_ms = e.lease_ms;
        return;
      } else {
        return;
      }
    }
    if (e.holders_after.empty()) return;
    Lease l;
    l.server = e.server;
    l.lock = e.lock;
    l.owner = holds(e, e.owner) ? e.owner : e.holders_after.front();
    l.start_us = l.end_us = e.true_us;
    l.start_event = e.id;
    l.start_known = acquired && l.owner == e.owner;
    if (sets_expiry && l.owner == e.owner) {
      l.expire_server_ms = saturating_add(e.server_ms, e.lease_ms);
      l.lease_ms = e.lease_ms;
    } else {
      l.expire_server_ms = kExpiryUnknown;
    }
    lease_of_[key] = out_.leases.size();
    out_.leases.push_back(std::move(l));
  }

  // Pairs of believed holds of one lock by different owners that overlap in
  // true time, each pair once, sweeping the holds of a lock by start.
  void find_overlaps() {
    std::map<std::string, std::vector<size_t>> by_lock;
    for (size_t i = 0; i < out_.holds.size(); ++i) by_lock[out_.holds[i].lock].push_back(i);
    for (auto& [lock, indexes] : by_lock) {
      std::stable_sort(indexes.begin(), indexes.end(),
                       [&](size_t a, size_t b) { return out_.holds[a].start_us < out_.holds[b].start_us; });
      std::vector<size_t> active;
      for (size_t i : indexes) {
        const BelievedHold& h = out_.holds[i];
        // A hold still open at the horizon overlaps one that starts there too.
        std::erase_if(active, [&](size_t a) {
          return out_.holds[a].end != BelievedHold::End::Open && out_.holds[a].end_us <= h.start_us;
        });
        for (size_t a : active) {
          const BelievedHold& g = out_.holds[a];
          if (g.owner == h.owner || out_.overlaps.size() >= 256) continue;
          out_.overlaps.push_back({a, i, h.start_us, std::min(g.end_us, h.end_us)});
        }
        active.push_back(i);
      }
    }
  }

  HoldIntervals& out_;
  const uint64_t first_id_;
  int64_t last_us_ = 0;
  uint64_t last_id_ = 0;
  std::set<int> clients_;
  std::set<int> servers_;
  std::map<HoldKey, int64_t> count_of_;
  std::map<HoldKey, size_t> hold_of_;
  std::map<uint64_t, size_t> wait_of_;  // op_id -> wait
  std::map<LeaseKey, size_t> lease_of_;
  std::map<int, int64_t> server_offset_us_;  // server clock minus true time, from its latest script
  struct Reset {
    int64_t true_us = 0;
    uint64_t event_id = 0;
    std::string op;  // redis_restart / failover
  };
  std::map<int, Reset> last_reset_;  // server -> its latest restart or failover
  std::map<std::pair<int, std::string>, std::vector<size_t>> open_fault_;  // (client, closing op) -> spans
};

}  // namespace

HoldIntervals derive_hold_intervals(const std::vector<Event>& events) {
  HoldIntervals out;
  if (events.empty()) return out;
  out.first_us = events.front().true_us;
  out.last_us = events.back().true_us;
  Deriver d(&out, events.front().id);
  for (const Event& e : events) d.on_event(e);
  d.finish();
  return out;
}

}  // namespace locksim
