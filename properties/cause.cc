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

std::string_view cause_kind_name(CauseKind kind) {
  switch (kind) {
    case CauseKind::Pause: return "pause";
    case CauseKind::Partition: return "partition";
    case CauseKind::Crash: return "crash";
    case CauseKind::ClientClockJump: return "client_clock_jump";
    case CauseKind::ClientClockSkew: return "client_clock_skew";
    case CauseKind::ServerClockJump: return "server_clock_jump";
    case CauseKind::ServerClockDrift: return "server_clock_drift";
    case CauseKind::RedisRestart: return "redis_restart";
    case CauseKind::Failover: return "failover";
    case CauseKind::LostRequest: return "lost_request";
    case CauseKind::LostReply: return "lost_reply";
    case CauseKind::LostMessage: return "lost_message";
    case CauseKind::LostSubscribe: return "lost_subscribe";
    case CauseKind::SlowLink: return "slow_link";
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
bool keeps_data(const std::string& detail) { return detail.find("persistence always") != std::string::npos; }
}  // namespace

std::string CauseFault::text() const {
  const std::string who = "client " + std::to_string(client);
  const std::string srv = "server " + std::to_string(server);
  const std::string at = " at event " + event_ref(event_id) + " (" + format_true_s(true_us) + ")";
  switch (kind) {
    case CauseKind::Pause: return who + " paused " + format_ms(duration_ms) + at;
    case CauseKind::Partition: return who + " partitioned " + format_ms(duration_ms) + at;
    case CauseKind::Crash: return who + " crashed" + at;
    case CauseKind::ClientClockJump: return who + "'s clock jumped " + format_ms(duration_ms) + at;
    case CauseKind::ClientClockSkew: return who + "'s clock (offset " + format_ms(duration_ms) + ", " + detail + ")";
    case CauseKind::ServerClockJump:
      return srv + "'s clock jumped " + format_ms(duration_ms < 0 ? -duration_ms : duration_ms) +
             (duration_ms < 0 ? " backward" : " forward") + at;
    case CauseKind::ServerClockDrift: return srv + "'s clock drift (" + detail + ")";
    case CauseKind::RedisRestart:
      return srv + " restarted " + (keeps_data(detail) ? "with persistence" : "without persistence") +
             (duration_ms > 0 ? ", down " + format_ms(duration_ms) : std::string()) + at;
    case CauseKind::Failover: return srv + " failed over to its replica" + at + " (" + detail + ")";
    case CauseKind::LostRequest:
    case CauseKind::LostReply:
      return std::string(kind == CauseKind::LostRequest ? "lost request " : "lost reply ") + event_ref(event_id) +
             " (" + detail + ", " + who + ", " + format_true_s(true_us) +
             "; the client waited out its request timeout)";
    case CauseKind::LostMessage: return "lost message " + event_ref(event_id) + " (" + detail + " to " + who + ")";
    case CauseKind::LostSubscribe:
      return "lost subscription " + event_ref(event_id) + " (" + detail + ", " + who + ")";
    case CauseKind::SlowLink:
      return who + "'s slow link: its " + detail + " was answered \"held\" at event " + event_ref(event_id) + ", " +
             format_ms(duration_ms) + " after it took a " + format_ms(lease_ms) + " lease";
  }
  return "fault" + at;
}

std::string CauseFault::label() const {
  switch (kind) {
    case CauseKind::Pause: return "pause";
    case CauseKind::Partition: return "partition";
    case CauseKind::Crash: return "crash";
    case CauseKind::ClientClockJump: return "client clock jump";
    case CauseKind::ClientClockSkew: return "clock skew";
    case CauseKind::ServerClockJump: return "server clock jump";
    case CauseKind::ServerClockDrift: return "server clock drift";
    case CauseKind::RedisRestart:
      if (keeps_data(detail)) return duration_ms > 0 ? "restart (server down)" : "restart with persistence";
      return "restart without persistence";
    case CauseKind::Failover: return "failover";
    case CauseKind::LostRequest: return "lost request + request timeout";
    case CauseKind::LostReply: return "lost reply + request timeout";
    case CauseKind::LostMessage: return "lost wake-up message";
    case CauseKind::LostSubscribe: return "lost subscription";
    case CauseKind::SlowLink: return "link delay > lease";
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
      return "unconfirmed (" + runs + "): " + note + (faults_text.empty() ? "" : "; best so far: " + faults_text);
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
                      {"detail", visible_text(f.detail)},
                      {"text", visible_text(f.text())}});
    if (f.kind == CauseKind::SlowLink) faults.back()["lease_ms"] = f.lease_ms;
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
