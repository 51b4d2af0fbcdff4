#include "properties/cause.h"

#include <algorithm>
#include <set>
#include <utility>

#include "properties/fault_log.h"
#include "properties/violation.h"
#include "traces/byte_text.h"

namespace locksim {

bool FaultScope::has_client(int c) const {
  if (clients == Who::All) return true;
  if (clients == Who::None) return false;
  return std::find(client_list.begin(), client_list.end(), c) != client_list.end();
}

bool FaultScope::has_server(int s) const {
  if (!servers) return false;
  return server_list.empty() || std::find(server_list.begin(), server_list.end(), s) != server_list.end();
}

std::string_view cause_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::Pause: return "pause";
    case FaultKind::Partition: return "partition";
    case FaultKind::Crash: return "crash";
    case FaultKind::ClientClockJump: return "client_clock_jump";
    case FaultKind::ClientClockSkew: return "client_clock_skew";
    case FaultKind::ServerClockJump: return "server_clock_jump";
    case FaultKind::ServerClockDrift: return "server_clock_drift";
    case FaultKind::RedisRestart: return "redis_restart";
    case FaultKind::Failover: return "failover";
    case FaultKind::LostRequest: return "lost_request";
    case FaultKind::LostReply: return "lost_reply";
    case FaultKind::LostMessage: return "lost_message";
    case FaultKind::LostSubscribe: return "lost_subscribe";
    case FaultKind::SlowLink: return "slow_link";
    case FaultKind::RequestTimeout: break;  // never a cause
  }
  return "fault";
}

std::string_view cause_status_name(CauseStatus status) {
  switch (status) {
    case CauseStatus::NotSearched: return "not_searched";
    case CauseStatus::Confirmed: return "confirmed";
    case CauseStatus::Persists: return "persists";
    case CauseStatus::Unconfirmed: return "unconfirmed";
    case CauseStatus::NoScope: return "no_scope";
  }
  return "not_searched";
}

namespace {
std::string event_ref(uint64_t id) { return "#" + std::to_string(id); }
}  // namespace

std::string CauseFault::detail() const {
  switch (kind) {
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe: return lost.empty() ? note : lost.text();
    case FaultKind::RedisRestart: return persistence == Persistence::Always ? "persistence always" : note;
    case FaultKind::Failover: return note;
    case FaultKind::SlowLink: return std::string(op_name(op)) + " " + lock.name();
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift: return "drift " + std::to_string(drift_ppm) + " ppm";
    case FaultKind::Crash:
    case FaultKind::Pause:
    case FaultKind::Partition:
    case FaultKind::ClientClockJump:
    case FaultKind::ServerClockJump:
    case FaultKind::RequestTimeout: return "";
  }
  return "";
}

std::string CauseFault::text() const {
  const std::string who = "client " + std::to_string(client);
  const std::string srv = "server " + std::to_string(server);
  const std::string at = " at event " + event_ref(event_id) + " (" + format_true_s(true_us) + ")";
  const std::string detail = this->detail();
  const bool keeps_data = persistence == Persistence::Always;
  switch (kind) {
    case FaultKind::Pause: return who + " paused " + format_ms(duration_ms) + at;
    case FaultKind::Partition: return who + " partitioned " + format_ms(duration_ms) + at;
    case FaultKind::Crash: return who + " crashed" + at;
    case FaultKind::ClientClockJump: return who + "'s clock jumped " + format_ms(duration_ms) + at;
    case FaultKind::ClientClockSkew: return who + "'s clock (offset " + format_ms(duration_ms) + ", " + detail + ")";
    case FaultKind::ServerClockJump:
      return srv + "'s clock jumped " + format_ms(duration_ms < 0 ? -duration_ms : duration_ms) +
             (duration_ms < 0 ? " backward" : " forward") + at;
    case FaultKind::ServerClockDrift: return srv + "'s clock drift (" + detail + ")";
    case FaultKind::RedisRestart:
      return srv + " restarted " + (keeps_data ? "with persistence" : "without persistence") +
             (duration_ms > 0 ? ", down " + format_ms(duration_ms) : std::string()) + at;
    case FaultKind::Failover: return srv + " failed over to its replica" + at + " (" + detail + ")";
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
      return std::string(kind == FaultKind::LostRequest ? "lost request " : "lost reply ") + event_ref(event_id) +
             " (" + detail + ", " + who + ", " + format_true_s(true_us) +
             "; the client waited out its request timeout)";
    case FaultKind::LostMessage: return "lost message " + event_ref(event_id) + " (" + detail + " to " + who + ")";
    case FaultKind::LostSubscribe:
      return "lost subscription " + event_ref(event_id) + " (" + detail + ", " + who + ")";
    case FaultKind::SlowLink:
      return who + "'s slow link: its " + detail + " was answered \"held\" at event " + event_ref(event_id) + ", " +
             format_ms(duration_ms) + " after it took a " + format_ms(lease_ms) + " lease";
    case FaultKind::RequestTimeout: break;  // never a cause
  }
  return "fault" + at;
}

std::string CauseFault::label() const {
  switch (kind) {
    case FaultKind::Pause: return "pause";
    case FaultKind::Partition: return "partition";
    case FaultKind::Crash: return "crash";
    case FaultKind::ClientClockJump: return "client clock jump";
    case FaultKind::ClientClockSkew: return "clock skew";
    case FaultKind::ServerClockJump: return "server clock jump";
    case FaultKind::ServerClockDrift: return "server clock drift";
    case FaultKind::RedisRestart:
      if (persistence == Persistence::Always) return duration_ms > 0 ? "restart (server down)" : "restart with persistence";
      return "restart without persistence";
    case FaultKind::Failover: return "failover";
    case FaultKind::LostRequest: return "lost request + request timeout";
    case FaultKind::LostReply: return "lost reply + request timeout";
    case FaultKind::LostMessage: return "lost wake-up message";
    case FaultKind::LostSubscribe: return "lost subscription";
    case FaultKind::SlowLink: return "link delay > lease";
    case FaultKind::RequestTimeout: break;  // never a cause
  }
  return "fault";
}

std::string Cause::kind() const {
  if (!confirmed()) return "";
  std::set<std::string> labels;
  for (const CauseFault& f : faults) labels.insert(f.label());
  std::string out;
  for (const std::string& l : labels) out += (out.empty() ? "" : " + ") + l;
  return out;
}

std::string Cause::text() const {
  std::string faults_text;
  for (const CauseFault& f : faults) faults_text += (faults_text.empty() ? "" : "; ") + f.text();
  const std::string runs = std::to_string(reruns) + " re-run" + (reruns == 1 ? "" : "s");
  switch (status) {
    case CauseStatus::Confirmed:
      return "confirmed by " + runs + " (without " +
             (faults.size() == 1 ? "it the run no longer violates" : "all of them the run no longer violates, without fewer it still does") +
             "): " + faults_text;
    case CauseStatus::Persists:
      return "unexplained: the plan still violates without any of the faults the property permits (" + runs + ")";
    case CauseStatus::Unconfirmed:
      return "unexplained, not confirmed (" + runs + "): " + note + (faults_text.empty() ? "" : "; best so far: " + faults_text);
    case CauseStatus::NoScope: return "unexplained: no fault permits this violation";
    case CauseStatus::NotSearched: return "unexplained: not re-run" + (note.empty() ? "" : " (" + note + ")");
  }
  return "";
}

nlohmann::json cause_to_json(const Cause& cause) {
  nlohmann::json faults = nlohmann::json::array();
  for (const CauseFault& f : cause.faults) {
    faults.push_back({{"kind", cause_kind_name(f.kind)},
                      {"event", f.event_id},
                      {"true_us", f.true_us},
                      {"client", f.client},
                      {"server", f.server},
                      {"duration_ms", f.duration_ms},
                      {"detail", visible_text(f.detail())},
                      {"text", visible_text(f.text())}});
    if (f.kind == FaultKind::SlowLink) faults.back()["lease_ms"] = f.lease_ms;
  }
  return {{"faults", std::move(faults)},   {"confirmed", cause.confirmed()},
          {"status", cause_status_name(cause.status)}, {"kind", cause.kind()},
          {"reruns", cause.reruns},          {"note", visible_text(cause.note)}};
}

void ResultTally::add(const ResultTally& o) {
  unexplained += o.unexplained;
  explained += o.explained;
  advisory += o.advisory;
  for (const auto& [k, n] : o.explained_by_kind) explained_by_kind[k] += n;
}

std::string ResultTally::kinds_text() const {
  std::vector<std::pair<std::string, uint64_t>> kinds(explained_by_kind.begin(), explained_by_kind.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [k, n] : kinds) out += (out.empty() ? "" : ", ") + k + ": " + std::to_string(n);
  return out;
}

}  // namespace locksim
