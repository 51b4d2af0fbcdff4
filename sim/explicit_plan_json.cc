#include "sim/explicit_plan_json.h"

#include <algorithm>
#include <cassert>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace locksim {

namespace {

using nlohmann::json;

constexpr std::array<std::pair<FaultKind, const char*>, 7> kFaultKinds{{
    {FaultKind::Crash, "crash"},
    {FaultKind::Pause, "pause"},
    {FaultKind::ClientClockJump, "client_clock_jump"},
    {FaultKind::ServerClockJump, "server_clock_jump"},
    {FaultKind::Partition, "partition"},
    {FaultKind::RedisRestart, "redis_restart"},
    {FaultKind::Failover, "failover"},
}};

constexpr std::array<std::pair<ExplicitOp::Kind, const char*>, 6> kOpKinds{{
    {ExplicitOp::Kind::Lock, "lock"},
    {ExplicitOp::Kind::TryLock, "try_lock"},
    {ExplicitOp::Kind::TryOnce, "try_once"},
    {ExplicitOp::Kind::Unlock, "unlock"},
    {ExplicitOp::Kind::ForceUnlock, "force_unlock"},
    {ExplicitOp::Kind::UnlockIfHeld, "unlock_if_held"},
}};

template <typename Kind, size_t N>
const char* kind_name(const std::array<std::pair<Kind, const char*>, N>& names, Kind kind) {
  for (const auto& [k, name] : names)
    if (k == kind) return name;
  return "?";
}

template <typename Kind, size_t N>
Kind kind_from(const std::array<std::pair<Kind, const char*>, N>& names, const json& value, const std::string& where) {
  if (value.is_string()) {
    for (const auto& [k, name] : names)
      if (value.get<std::string>() == name) return k;
  }
  std::string known;
  for (const auto& [k, name] : names) known += std::string(known.empty() ? "" : ", ") + name;
  throw ScenarioError("plan: " + where + ": unknown kind " + value.dump() + " (" + known + ")");
}

// The object `j` with exactly `keys`; throws naming `where`.
void expect_keys(const json& j, std::initializer_list<const char*> keys, const std::string& where) {
  if (!j.is_object()) throw ScenarioError("plan: " + where + " must be an object");
  for (const char* key : keys)
    if (!j.contains(key)) throw ScenarioError("plan: " + where + " has no \"" + key + "\"");
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    if (std::find_if(keys.begin(), keys.end(), [&key](const char* k) { return key == k; }) == keys.end())
      throw ScenarioError("plan: " + where + ": unknown key \"" + key + "\"");
  }
}

int64_t get_int(const json& j, const char* key, int64_t min, int64_t max, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_number_integer()) throw ScenarioError("plan: " + where + "." + key + " must be an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw ScenarioError("plan: " + where + "." + key + " is out of range");
  const int64_t value = v.get<int64_t>();
  if (value < min || value > max)
    throw ScenarioError("plan: " + where + "." + key + " = " + std::to_string(value) + " is outside [" +
                        std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

const json& get_array(const json& j, const char* key, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_array()) throw ScenarioError("plan: " + where + "." + key + " must be an array");
  return v;
}

// Bounds on what a plan may hold: generous for any shrunk counterexample,
// small enough that a hostile header cannot make a run unbounded.
constexpr int64_t kMaxPlanTimeUs = kMaxDurationMs * 1000 * 4;
constexpr int64_t kMaxPlanSpanMs = kMaxDurationMs * 4;
constexpr size_t kMaxPlanEntries = 1'000'000;
constexpr int64_t kMaxScheduleLatencyUs = 10'000'000;
constexpr int64_t kMaxSchedulePick = 1 << 16;

}  // namespace

json explicit_plan_to_json(const ExplicitPlan& plan) {
  json faults = json::array();
  for (const FaultAction& f : plan.faults.actions) {
    json a = json::object();
    a["at_us"] = f.at_us;
    a["kind"] = kind_name(kFaultKinds, f.kind);
    a["target"] = f.target;
    a["duration_ms"] = f.duration_ms;
    a["restart_after_ms"] = f.restart_after_ms;
    faults.push_back(std::move(a));
  }
  json tasks = json::array();
  for (const ExplicitTask& t : plan.tasks) {
    json ops = json::array();
    for (const ExplicitOp& op : t.ops) {
      json o = json::object();
      o["kind"] = kind_name(kOpKinds, op.kind);
      o["lock"] = op.lock;
      o["wait_ms"] = op.wait_ms;
      o["lease_ms"] = op.lease_ms;
      o["delay_us"] = op.delay_us;
      ops.push_back(std::move(o));
    }
    json task = json::object();
    task["client"] = t.client;
    task["incarnation"] = t.incarnation;
    task["task"] = t.task;
    task["ops"] = std::move(ops);
    tasks.push_back(std::move(task));
  }
  json j = json::object();
  j["drain_ms"] = plan.drain_ms;
  j["faults"] = std::move(faults);
  j["tasks"] = std::move(tasks);
  if (plan.faults.losses.lost && !plan.schedule) {
    json losses = json::array();
    for (const std::string& key : *plan.faults.losses.lost) {  // sorted: the text is deterministic
      const size_t first = key.find('|');
      const size_t last = key.rfind('|');
      assert(first != std::string::npos && last > first);
      json l = json::object();
      l["client"] = std::stoi(key.substr(0, first));
      l["message"] = key.substr(first + 1, last - first - 1);
      l["ordinal"] = std::stoull(key.substr(last + 1));
      losses.push_back(std::move(l));
    }
    j["losses"] = std::move(losses);
  }
  if (plan.schedule) {
    const Schedule& sc = *plan.schedule;
    json fates = json::array();
    for (const ScheduledFate& f : sc.fates) {
      json o = json::object();
      o["client"] = f.client;
      o["message"] = f.message;
      o["lost"] = f.lost;
      o["arrive_us"] = f.arrive_us;
      fates.push_back(std::move(o));
    }
    json picks = json::array();
    for (const ScheduledPick& p : sc.picks) {
      json o = json::object();
      o["tie"] = p.tie;
      o["pick"] = p.pick;
      picks.push_back(std::move(o));
    }
    json schedule = json::object();
    schedule["latency_us"] = sc.latency_us;
    schedule["fates"] = std::move(fates);
    schedule["picks"] = std::move(picks);
    j["schedule"] = std::move(schedule);
  }
  return j;
}

namespace {

bool get_bool(const json& j, const char* key, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_boolean()) throw ScenarioError("plan: " + where + "." + key + " must be true or false");
  return v.get<bool>();
}

Schedule schedule_from_json(const Scenario& scenario, const json& j) {
  expect_keys(j, {"latency_us", "fates", "picks"}, "schedule");
  Schedule sc;
  sc.latency_us = get_int(j, "latency_us", 1, kMaxScheduleLatencyUs, "schedule");
  const json& fates = get_array(j, "fates", "schedule");
  if (fates.size() > kMaxPlanEntries) throw ScenarioError("plan: schedule: too many fates");
  for (size_t i = 0; i < fates.size(); ++i) {
    const std::string where = "schedule.fates[" + std::to_string(i) + "]";
    const json& o = fates[i];
    expect_keys(o, {"client", "message", "lost", "arrive_us"}, where);
    ScheduledFate f;
    f.client = static_cast<int>(get_int(o, "client", 0, scenario.clients - 1, where));
    f.message = static_cast<uint64_t>(get_int(o, "message", 0, std::numeric_limits<int64_t>::max(), where));
    f.lost = get_bool(o, "lost", where);
    f.arrive_us = get_int(o, "arrive_us", -1, kMaxPlanTimeUs, where);
    if (f.lost != (f.arrive_us < 0)) {
      throw ScenarioError("plan: " + where + ": a lost message has arrive_us -1, a late one its arrival");
    }
    if (!sc.fates.empty() && std::make_pair(f.client, f.message) <=
                                 std::make_pair(sc.fates.back().client, sc.fates.back().message)) {
      throw ScenarioError("plan: " + where + ": fates must be sorted by (client, message), each once");
    }
    sc.fates.push_back(f);
  }
  const json& picks = get_array(j, "picks", "schedule");
  if (picks.size() > kMaxPlanEntries) throw ScenarioError("plan: schedule: too many picks");
  for (size_t i = 0; i < picks.size(); ++i) {
    const std::string where = "schedule.picks[" + std::to_string(i) + "]";
    const json& o = picks[i];
    expect_keys(o, {"tie", "pick"}, where);
    ScheduledPick p;
    p.tie = static_cast<uint64_t>(get_int(o, "tie", 0, std::numeric_limits<int64_t>::max(), where));
    p.pick = static_cast<uint32_t>(get_int(o, "pick", 1, kMaxSchedulePick, where));
    if (!sc.picks.empty() && p.tie <= sc.picks.back().tie) {
      throw ScenarioError("plan: " + where + ": picks must be sorted by tie, each once");
    }
    sc.picks.push_back(p);
  }
  return sc;
}

}  // namespace

ExplicitPlan explicit_plan_from_json(const Scenario& scenario, const json& j) {
  const bool scheduled = j.is_object() && j.contains("schedule");
  const bool pinned = j.is_object() && j.contains("losses");
  if (scheduled && pinned) throw ScenarioError("plan: a plan with a schedule has no \"losses\" (its schedule decides every message)");
  if (scheduled) {
    expect_keys(j, {"drain_ms", "faults", "tasks", "schedule"}, "the plan");
  } else if (pinned) {
    expect_keys(j, {"drain_ms", "faults", "tasks", "losses"}, "the plan");
  } else {
    expect_keys(j, {"drain_ms", "faults", "tasks"}, "the plan");
  }
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = scenario_fault_plan(scenario, scenario.servers);
  plan.faults.actions.clear();
  plan.drain_ms = get_int(j, "drain_ms", 0, kMaxPlanSpanMs, "plan");
  const int64_t max_lock = static_cast<int64_t>(scenario_locks(scenario).size()) - 1;
  const json& faults = get_array(j, "faults", "plan");
  if (faults.size() > kMaxPlanEntries) throw ScenarioError("plan: too many faults");
  int64_t previous_at_us = 0;
  for (size_t i = 0; i < faults.size(); ++i) {
    const std::string where = "faults[" + std::to_string(i) + "]";
    const json& a = faults[i];
    expect_keys(a, {"at_us", "kind", "target", "duration_ms", "restart_after_ms"}, where);
    FaultAction f;
    f.kind = kind_from(kFaultKinds, a.at("kind"), where);
    f.at_us = get_int(a, "at_us", previous_at_us, kMaxPlanTimeUs, where);
    previous_at_us = f.at_us;  // sorted by time, as the simulator schedules them
    const bool server_fault = f.kind == FaultKind::ServerClockJump || f.kind == FaultKind::RedisRestart ||
                              f.kind == FaultKind::Failover;
    f.target = static_cast<int>(
        get_int(a, "target", 0, (server_fault ? scenario.servers : scenario.clients) - 1, where));
    // A pause or partition lasts a length of time; a clock jump may go back.
    const bool lasts = f.kind == FaultKind::Pause || f.kind == FaultKind::Partition;
    f.duration_ms = get_int(a, "duration_ms", lasts ? 0 : -kMaxPlanSpanMs, kMaxPlanSpanMs, where);
    f.restart_after_ms = get_int(a, "restart_after_ms", -1, kMaxPlanSpanMs, where);
    plan.faults.actions.push_back(f);
  }
  const json& tasks = get_array(j, "tasks", "plan");
  if (tasks.size() > kMaxPlanEntries) throw ScenarioError("plan: too many tasks");
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string where = "tasks[" + std::to_string(i) + "]";
    const json& t = tasks[i];
    expect_keys(t, {"client", "incarnation", "task", "ops"}, where);
    ExplicitTask task;
    task.client = static_cast<int>(get_int(t, "client", 0, scenario.clients - 1, where));
    task.incarnation = static_cast<int>(get_int(t, "incarnation", 0, std::numeric_limits<int>::max(), where));
    task.task = static_cast<int>(get_int(t, "task", 0, std::numeric_limits<int>::max(), where));
    const json& ops = get_array(t, "ops", where);
    if (ops.size() > kMaxPlanEntries) throw ScenarioError("plan: " + where + " has too many ops");
    for (size_t k = 0; k < ops.size(); ++k) {
      const std::string at = where + ".ops[" + std::to_string(k) + "]";
      const json& o = ops[k];
      expect_keys(o, {"kind", "lock", "wait_ms", "lease_ms", "delay_us"}, at);
      ExplicitOp op;
      op.kind = kind_from(kOpKinds, o.at("kind"), at);
      op.lock = static_cast<int>(get_int(o, "lock", 0, max_lock, at));
      op.wait_ms = get_int(o, "wait_ms", -1, kMaxPlanSpanMs, at);
      op.lease_ms = get_int(o, "lease_ms", -1, kMaxPlanSpanMs, at);
      // -1: the watchdog keeps the lease; otherwise a lease of at least 1 ms.
      if (op.lease_ms == 0) throw ScenarioError("plan: " + at + ": lease_ms is 0 (-1 for the watchdog, or >= 1)");
      op.delay_us = get_int(o, "delay_us", 0, kMaxPlanTimeUs, at);
      task.ops.push_back(op);
    }
    plan.tasks.push_back(std::move(task));
  }
  if (pinned) {
    const json& losses = get_array(j, "losses", "plan");
    if (losses.size() > kMaxPlanEntries) throw ScenarioError("plan: too many losses");
    plan.faults.losses.lost.emplace();
    for (size_t i = 0; i < losses.size(); ++i) {
      const std::string where = "losses[" + std::to_string(i) + "]";
      const json& l = losses[i];
      expect_keys(l, {"client", "message", "ordinal"}, where);
      const int client = static_cast<int>(get_int(l, "client", 0, scenario.clients - 1, where));
      const json& message = l.at("message");
      if (!message.is_string() || message.get<std::string>().empty() || message.get<std::string>().size() > 4096)
        throw ScenarioError("plan: " + where + ".message must be a non-empty string of at most 4096 bytes");
      const int64_t ordinal = get_int(l, "ordinal", 1, std::numeric_limits<int64_t>::max(), where);
      plan.faults.losses.lost->insert(loss_key(client, message.get<std::string>(), static_cast<uint64_t>(ordinal)));
    }
  }
  if (j.contains("schedule")) {
    plan.schedule = schedule_from_json(scenario, j.at("schedule"));
    plan.faults.link = LinkProfile{plan.schedule->latency_us, plan.schedule->latency_us, 0.0, 0, 0.0};
  }
  return plan;
}

}  // namespace locksim
