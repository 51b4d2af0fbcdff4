#include "properties/fault_log.h"

#include <cstdio>
#include <cstdlib>

#include "properties/saturating_time.h"
#include "properties/violation.h"

namespace locksim {

namespace {
int64_t floor_ms(int64_t true_us) { return true_us >= 0 ? true_us / 1000 : -((-true_us + 999) / 1000); }
}  // namespace

void FaultLog::push(PerClient& c, ClientFault f) {
  c.recent.push_back(std::move(f));
  if (c.recent.size() > kFaultsPerClient) c.recent.erase(c.recent.begin());
}

void FaultLog::on_event(const Event& e) {
  if (e.kind == EventKind::Fault) {
    if (e.op == Op::ClockJump && e.client < 0) {
      server_recent_.push_back({"server_clock_jump", e.id, e.true_us, e.duration_ms, "", e.server, 0});
    } else if (e.op == Op::RedisRestart) {
      server_recent_.push_back({"redis_restart", e.id, e.true_us, e.duration_ms, e.detail, e.target, 0});
    } else if (e.op == Op::Failover) {
      server_recent_.push_back({"failover", e.id, e.true_us, e.duration_ms, e.detail, e.target, e.value});
    }
    if (server_recent_.size() > kFaultsPerClient) server_recent_.erase(server_recent_.begin());

    const int who = e.op == Op::ClockJump ? e.client : e.target;
    if (who < 0) return;
    PerClient& c = clients_[who];
    if (e.op == Op::Pause) {
      c.paused_total_ms = sat_add(c.paused_total_ms, e.duration_ms > 0 ? e.duration_ms : 0);
      push(c, {"pause", e.id, e.true_us, e.duration_ms, ""});
    } else if (e.op == Op::Partition) {
      push(c, {"partition", e.id, e.true_us, e.duration_ms, ""});
    } else if (e.op == Op::ClockJump) {
      if (c.has_offset) c.offset_ms = sat_add(c.offset_ms, e.duration_ms);
      push(c, {"clock_jump", e.id, e.true_us, e.duration_ms, ""});
    } else if (e.op == Op::Crash) {
      push(c, {"crash", e.id, e.true_us, 0, ""});
    } else if (e.op == Op::Lost) {
      push(c, {"lost", e.id, e.true_us, 0, e.detail});
    }
    return;
  }
  if (e.client < 0) return;
  if (e.kind == EventKind::Info && e.detail == "timeout") {
    push(clients_[e.client], {"lost_reply", e.id, e.true_us, 0, ""});
  }
  if (e.kind == EventKind::Invoke || e.kind == EventKind::Ok || e.kind == EventKind::Fail) {
    PerClient& c = clients_[e.client];
    c.has_offset = true;
    c.offset_ms = sat_sub(sat_sub(e.local_ms, clock_epoch_ms_), floor_ms(e.true_us));
  }
}

std::vector<ClientFault> FaultLog::faults_between(int client, int64_t from_us, int64_t to_us) const {
  std::vector<ClientFault> out;
  auto it = clients_.find(client);
  if (it == clients_.end()) return out;
  for (const ClientFault& f : it->second.recent) {
    const int64_t end_us =
        (f.kind == "pause" || f.kind == "partition") ? sat_add(f.true_us, ms_to_us(f.duration_ms)) : f.true_us;
    if (end_us >= from_us && f.true_us <= to_us) out.push_back(f);
  }
  return out;
}

std::vector<ClientFault> FaultLog::server_faults_between(int64_t from_us, int64_t to_us) const {
  std::vector<ClientFault> out;
  for (const ClientFault& f : server_recent_) {
    // A restart that left the server down overlaps the interval when its down time does.
    const int64_t end_us = f.kind == "redis_restart" ? sat_add(f.true_us, ms_to_us(f.duration_ms)) : f.true_us;
    if (end_us >= from_us && f.true_us <= to_us) out.push_back(f);
  }
  return out;
}

bool resets_server_state(const Event& e) {
  return e.kind == EventKind::Fault && (e.op == Op::RedisRestart || e.op == Op::Failover);
}

std::string format_true_s(int64_t true_us) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(true_us) / 1e6);
  return buf;
}

std::string describe_server_fault(const ClientFault& f) {
  const std::string who = "server " + std::to_string(f.server);
  const std::string at = " at " + format_true_s(f.true_us);
  if (f.kind == "redis_restart") {
    const bool kept = f.detail.find("persistence always") != std::string::npos;
    std::string out = who + " restarted " + (kept ? "with persistence (appendfsync always)" : "without persistence") + at;
    if (f.duration_ms > 0) out += " and stayed down " + format_ms(f.duration_ms);
    return out;
  }
  if (f.kind == "failover") {
    return who + " failed over to its replica" + at + " (replication lag " + format_ms(f.duration_ms) + ", " +
           std::to_string(f.value) + " scripts not replicated)";
  }
  if (f.kind == "server_clock_jump") {
    return who + "'s clock jumped " + format_ms(sat_abs(f.duration_ms)) +
           (f.duration_ms < 0 ? " backward" : " forward") + at;
  }
  return who + " " + f.kind + at;
}

std::string describe_client_fault(int client, const ClientFault& f) {
  const std::string who = "client " + std::to_string(client);
  const std::string at = " at event #" + std::to_string(f.event_id);
  if (f.kind == "pause") return who + " paused for " + format_ms(f.duration_ms) + at;
  if (f.kind == "partition") return who + " partitioned for " + format_ms(f.duration_ms) + at;
  if (f.kind == "clock_jump") return who + "'s clock jumped " + format_ms(f.duration_ms) + at;
  if (f.kind == "crash") return who + " crashed" + at;
  if (f.kind == "lost") return who + " lost a message (" + f.detail + ")" + at;
  if (f.kind == "lost_reply") return who + " timed out waiting for a reply" + at;
  return who + " " + f.kind + at;
}

int64_t FaultLog::paused_total_ms(int client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? 0 : it->second.paused_total_ms;
}

std::optional<int64_t> FaultLog::clock_offset_ms(int client) const {
  auto it = clients_.find(client);
  if (it == clients_.end() || !it->second.has_offset) return std::nullopt;
  return it->second.offset_ms;
}

std::optional<int> FaultLog::most_skewed_client() const {
  std::optional<int> best;
  int64_t best_abs = 0;
  for (const auto& [client, c] : clients_) {
    if (!c.has_offset) continue;
    const int64_t a = std::llabs(c.offset_ms);
    if (a > best_abs) { best_abs = a; best = client; }
  }
  return best;
}

}  // namespace locksim
