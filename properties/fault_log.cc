#include "properties/fault_log.h"

#include <cassert>
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
    const std::optional<FaultKind> kind = fault_kind_of(e);
    if (!kind) return;  // restart, resume, heal, delayed: no fault of their own
    ClientFault f;
    f.kind = *kind;
    f.event_id = e.id;
    f.true_us = e.true_us;
    switch (*kind) {
      case FaultKind::ServerClockJump:
      case FaultKind::RedisRestart:
      case FaultKind::Failover:
        f.duration_ms = e.duration_ms;
        f.server = *kind == FaultKind::ServerClockJump ? e.server : e.target;
        if (*kind == FaultKind::RedisRestart) f.persistence = e.persistence;
        if (*kind == FaultKind::Failover) f.value = e.value;
        server_recent_.push_back(std::move(f));
        if (server_recent_.size() > kFaultsPerClient) server_recent_.erase(server_recent_.begin());
        return;
      case FaultKind::Crash:
        break;
      case FaultKind::Pause:
      case FaultKind::Partition:
      case FaultKind::ClientClockJump:
        f.duration_ms = e.duration_ms;
        break;
      case FaultKind::LostRequest:
      case FaultKind::LostReply:
      case FaultKind::LostMessage:
      case FaultKind::LostSubscribe:
        f.lost = e.lost;
        if (e.lost.is_call()) f.lost_script = script_from_name(e.lost.script);
        f.note = e.detail;
        break;
      case FaultKind::RequestTimeout:
      case FaultKind::ClientClockSkew:
      case FaultKind::ServerClockDrift:
      case FaultKind::SlowLink:
        assert(false && "not a Fault event's kind");
        return;
    }
    const int who = *kind == FaultKind::ClientClockJump ? e.client : e.target;
    if (who < 0) return;
    PerClient& c = clients_[who];
    if (*kind == FaultKind::Pause) c.paused_total_ms = sat_add(c.paused_total_ms, e.duration_ms > 0 ? e.duration_ms : 0);
    if (*kind == FaultKind::ClientClockJump && c.has_offset) c.offset_ms = sat_add(c.offset_ms, e.duration_ms);
    push(c, std::move(f));
    return;
  }
  if (e.client < 0) return;
  if (e.kind == EventKind::Info && e.reason == EndReason::Timeout) {
    ClientFault f;
    f.kind = FaultKind::RequestTimeout;
    f.event_id = e.id;
    f.true_us = e.true_us;
    push(clients_[e.client], std::move(f));
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
    const int64_t end_us = (f.kind == FaultKind::Pause || f.kind == FaultKind::Partition)
                               ? sat_add(f.true_us, ms_to_us(f.duration_ms))
                               : f.true_us;
    if (end_us >= from_us && f.true_us <= to_us) out.push_back(f);
  }
  return out;
}

std::vector<ClientFault> FaultLog::server_faults_between(int64_t from_us, int64_t to_us) const {
  std::vector<ClientFault> out;
  for (const ClientFault& f : server_recent_) {
    // A restart that left the server down overlaps the interval when its down time does.
    const int64_t end_us = f.kind == FaultKind::RedisRestart ? sat_add(f.true_us, ms_to_us(f.duration_ms)) : f.true_us;
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

std::string_view fault_log_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::Crash: return "crash";
    case FaultKind::Pause: return "pause";
    case FaultKind::Partition: return "partition";
    case FaultKind::ClientClockJump: return "clock_jump";
    case FaultKind::ServerClockJump: return "server_clock_jump";
    case FaultKind::RedisRestart: return "redis_restart";
    case FaultKind::Failover: return "failover";
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe: return "lost";
    case FaultKind::RequestTimeout: return "lost_reply";
    case FaultKind::ClientClockSkew: return "client_clock_skew";
    case FaultKind::ServerClockDrift: return "server_clock_drift";
    case FaultKind::SlowLink: return "slow_link";
  }
  return "fault";
}

std::string describe_server_fault(const ClientFault& f) {
  const std::string who = "server " + std::to_string(f.server);
  const std::string at = " at " + format_true_s(f.true_us);
  switch (f.kind) {
    case FaultKind::RedisRestart: {
      const bool kept = f.persistence == Persistence::Always;
      std::string out =
          who + " restarted " + (kept ? "with persistence (appendfsync always)" : "without persistence") + at;
      if (f.duration_ms > 0) out += " and stayed down " + format_ms(f.duration_ms);
      return out;
    }
    case FaultKind::Failover:
      return who + " failed over to its replica" + at + " (replication lag " + format_ms(f.duration_ms) + ", " +
             std::to_string(f.value) + " scripts not replicated)";
    case FaultKind::ServerClockJump:
      return who + "'s clock jumped " + format_ms(sat_abs(f.duration_ms)) +
             (f.duration_ms < 0 ? " backward" : " forward") + at;
    case FaultKind::Crash:
    case FaultKind::Pause:
    case FaultKind::Partition:
    case FaultKind::ClientClockJump:
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe:
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink:
      break;  // not a server's fault in the log
  }
  return who + " " + std::string(fault_log_name(f.kind)) + at;
}

std::string describe_client_fault(int client, const ClientFault& f) {
  const std::string who = "client " + std::to_string(client);
  const std::string at = " at event #" + std::to_string(f.event_id);
  switch (f.kind) {
    case FaultKind::Pause: return who + " paused for " + format_ms(f.duration_ms) + at;
    case FaultKind::Partition: return who + " partitioned for " + format_ms(f.duration_ms) + at;
    case FaultKind::ClientClockJump: return who + "'s clock jumped " + format_ms(f.duration_ms) + at;
    case FaultKind::Crash: return who + " crashed" + at;
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe:
      return who + " lost a message (" + (f.lost.empty() ? f.note : f.lost.text()) + ")" + at;
    case FaultKind::RequestTimeout: return who + " timed out waiting for a reply" + at;
    case FaultKind::ServerClockJump:
    case FaultKind::RedisRestart:
    case FaultKind::Failover:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink:
      break;  // not a client's fault in the log
  }
  return who + " " + std::string(fault_log_name(f.kind)) + at;
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
