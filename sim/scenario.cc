#include "sim/scenario.h"

#include <cassert>

#include "impl/client_mutant.h"
#include "model/variant.h"
#include "sim/profiles.h"
#include "traces/lock_ref.h"

namespace locksim {

void validate_scenario(const Scenario& s) {
  if (s.clients < 1 || s.clients > kMaxClients) {
    throw ScenarioError("clients must be in [1, " + std::to_string(kMaxClients) + "], got " +
                        std::to_string(s.clients));
  }
  if (s.locks < 1 || s.locks > kMaxLocks) {
    throw ScenarioError("locks must be in [1, " + std::to_string(kMaxLocks) + "], got " +
                        std::to_string(s.locks));
  }
  if (s.servers < 1 || s.servers > kMaxServers) {
    throw ScenarioError("servers must be in [1, " + std::to_string(kMaxServers) + "], got " +
                        std::to_string(s.servers));
  }
  if (s.restart_delay_ms < 0 || s.restart_delay_ms > kMaxRestartDelayMs) {
    throw ScenarioError("restart delay must be in [0, " + std::to_string(kMaxRestartDelayMs) + "] ms, got " +
                        std::to_string(s.restart_delay_ms));
  }
  if (s.fair_slot_ms < 0 || s.fair_slot_ms > kMaxFairSlotMs) {
    throw ScenarioError("fair slot must be in [0, " + std::to_string(kMaxFairSlotMs) + "] ms, got " +
                        std::to_string(s.fair_slot_ms));
  }
  for (DesignKind k : kinds_needed_by(s.lock_kind)) {
    if (!s.design.provides(k)) {
      throw ScenarioError("the script pack's lock design does not provide the " + std::string(design_kind_name(k)) +
                          " lock kind (lock " + std::string(lock_kind_name(s.lock_kind)) + "); it provides " +
                          design_kinds_text(s.design));
    }
  }
  if (s.backoff != BackoffKind::Exponential && s.lock_kind != ScenarioLockKind::Spin) {
    throw ScenarioError("the back-off is a spin lock option (lock kind spin), not " +
                        std::string(lock_kind_name(s.lock_kind)));
  }
  if (s.lock_kind == ScenarioLockKind::FasterMulti) {
    if (s.values < 1 || s.values > kMaxValues) {
      throw ScenarioError("a faster multi-lock's values must be in [1, " + std::to_string(kMaxValues) + "], got " +
                          std::to_string(s.values));
    }
    if (s.servers != 1) {
      throw ScenarioError("a faster multi-lock runs on one server, got " + std::to_string(s.servers) + " servers");
    }
  } else if (s.values != 0) {
    throw ScenarioError("values are a faster multi-lock option (lock kind faster_multi), not " +
                        std::string(lock_kind_name(s.lock_kind)));
  }
  if (s.validity && s.lock_kind != ScenarioLockKind::RedLock) {
    throw ScenarioError("the validity check is a RedLock option (lock kind redlock), not " +
                        std::string(lock_kind_name(s.lock_kind)));
  }
  if (s.duration_ms < 0 || s.duration_ms > kMaxDurationMs) {
    throw ScenarioError("duration must be in [0, 7 days], got " + std::to_string(s.duration_ms) + " ms");
  }
  if (s.focus && s.focus->only_lock >= s.locks) {
    throw ScenarioError("focus: only_lock " + std::to_string(s.focus->only_lock) + " is not one of the " +
                        std::to_string(s.locks) + " locks");
  }
  if (s.focus && !focus_applies(s.focus->trigger, s.profile, s.lock_kind)) {
    throw ScenarioError("focus trigger " + std::string(focus_trigger_name(s.focus->trigger)) +
                        " cannot fire under profile " + s.profile.name() + " with lock kind " +
                        std::string(lock_kind_name(s.lock_kind)));
  }
}

nlohmann::json scenario_to_json(const Scenario& s) {
  nlohmann::ordered_json j;
  j["seed"] = s.seed;
  j["clients"] = s.clients;
  j["locks"] = s.locks;
  j["servers"] = s.servers;
  j["lock"] = std::string(lock_kind_name(s.lock_kind));
  j["duration_ms"] = s.duration_ms;
  j["profile"] = s.profile.name();
  j["mutant"] = std::string(client_mutant_name(s.mutant));
  j["scripts"] = s.scripts;
  j["model_variant"] = std::string(variant_name(s.model_variant));
  if (s.persistence != Persistence::None) j["persistence"] = std::string(persistence_name(s.persistence));
  if (s.restart_delay_ms != 0) j["restart_delay_ms"] = s.restart_delay_ms;
  if (s.validity) j["validity"] = true;
  if (s.fair_slot_ms != 0) j["fair_slot_ms"] = s.fair_slot_ms;
  if (s.backoff != BackoffKind::Exponential) j["backoff"] = std::string(backoff_name(s.backoff));
  if (s.lock_kind == ScenarioLockKind::FasterMulti) j["values"] = s.values;
  if (s.design != LockDesign{}) j["design"] = design_to_json(s.design);
  if (s.lost_wakeups) j["wakeups"] = "lost";
  if (s.focus) j["focus"] = focus_to_json(*s.focus);
  return nlohmann::json::parse(j.dump());
}

namespace {

constexpr const char* kScenarioFields[] = {"seed",    "clients", "locks",   "servers", "lock",
                                           "duration_ms", "profile", "mutant", "scripts", "model_variant",
                                           "persistence", "restart_delay_ms", "validity", "fair_slot_ms", "design",
                                           "wakeups", "focus", "backoff", "values"};

const nlohmann::json& field(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) throw ScenarioError(std::string("scenario: missing field '") + name + "'");
  return *it;
}

// An integer field, exactly: a JSON integer (not a float such as 4.0 or 2.5,
// not a boolean, not a string) within [min, max]. Never narrowed silently.
int64_t integer_field(const nlohmann::json& j, const char* name, int64_t min, int64_t max) {
  const nlohmann::json& v = field(j, name);
  const std::string where = std::string("scenario: field '") + name + "'";
  if (!v.is_number_integer()) throw ScenarioError(where + " must be an integer");
  const bool too_big = v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(max) : v.get<int64_t>() > max;
  const bool too_small = !v.is_number_unsigned() && v.get<int64_t>() < min;
  if (too_big || too_small) {
    throw ScenarioError(where + " must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                        v.dump());
  }
  return v.get<int64_t>();
}

uint64_t seed_field(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = field(j, name);
  if (!v.is_number_unsigned()) {
    throw ScenarioError(std::string("scenario: field '") + name + "' must be a non-negative integer");
  }
  return v.get<uint64_t>();
}

std::string string_field(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = field(j, name);
  if (!v.is_string()) throw ScenarioError(std::string("scenario: field '") + name + "' must be a string");
  return v.get<std::string>();
}

}  // namespace

Scenario scenario_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw ScenarioError("scenario: not a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* name : kScenarioFields) known = known || key == name;
    if (!known) throw ScenarioError("scenario: unknown field '" + key + "'");
  }
  Scenario s;
  s.seed = seed_field(j, "seed");
  s.clients = static_cast<int>(integer_field(j, "clients", 1, kMaxClients));
  s.locks = static_cast<int>(integer_field(j, "locks", 1, kMaxLocks));
  s.servers = static_cast<int>(integer_field(j, "servers", 1, kMaxServers));
  const std::string lock = string_field(j, "lock");
  if (auto k = lock_kind_from_name(lock)) {
    s.lock_kind = *k;
  } else {
    throw ScenarioError("scenario: unknown lock kind '" + lock + "' (" + lock_kind_names_text() + ")");
  }
  s.duration_ms = integer_field(j, "duration_ms", 0, kMaxDurationMs);
  const std::string profile = string_field(j, "profile");
  if (auto p = Profile::from_name(profile)) {
    s.profile = *p;
  } else {
    throw ScenarioError("scenario: unknown profile '" + profile + "' (" + profile_names_text() + ")");
  }
  const std::string mutant = string_field(j, "mutant");
  if (auto m = client_mutant_from_name(mutant)) {
    s.mutant = *m;
  } else {
    std::string names;
    for (auto known : all_client_mutants()) {
      names += (names.empty() ? "" : ", ") + std::string(client_mutant_name(known));
    }
    throw ScenarioError("scenario: unknown client mutant '" + mutant + "' (" + names + ")");
  }
  s.scripts = string_field(j, "scripts");
  const std::string variant = string_field(j, "model_variant");
  if (auto v = variant_from_name(variant)) {
    s.model_variant = *v;
  } else {
    std::string names;
    for (auto known : all_variants()) names += (names.empty() ? "" : ", ") + std::string(variant_name(known));
    throw ScenarioError("scenario: unknown model variant '" + variant + "' (" + names + ")");
  }
  if (j.contains("persistence")) {
    const std::string name = string_field(j, "persistence");
    auto p = persistence_from_name(name);
    if (!p) throw ScenarioError("scenario: field 'persistence' must be none or always, got '" + name + "'");
    s.persistence = *p;
  }
  if (j.contains("restart_delay_ms")) s.restart_delay_ms = integer_field(j, "restart_delay_ms", 0, kMaxRestartDelayMs);
  if (j.contains("validity")) {
    if (!j["validity"].is_boolean()) throw ScenarioError("scenario: field 'validity' must be a boolean");
    s.validity = j["validity"].get<bool>();
  }
  if (j.contains("fair_slot_ms")) s.fair_slot_ms = integer_field(j, "fair_slot_ms", 0, kMaxFairSlotMs);
  if (j.contains("backoff")) {
    const std::string name = string_field(j, "backoff");
    const auto b = backoff_from_name(name);
    if (!b) throw ScenarioError("scenario: field 'backoff' must be exponential or constant, got '" + name + "'");
    s.backoff = *b;
  }
  if (j.contains("values")) s.values = static_cast<int>(integer_field(j, "values", 0, kMaxValues));
  if (j.contains("design")) {
    try {
      s.design = design_from_json(j["design"], false);
    } catch (const DesignError& e) {
      throw ScenarioError(std::string("scenario: field 'design': ") + e.what());
    }
  }
  if (j.contains("wakeups")) {
    const std::string name = string_field(j, "wakeups");
    if (name != "kept" && name != "lost") {
      throw ScenarioError("scenario: field 'wakeups' must be kept or lost, got '" + name + "'");
    }
    s.lost_wakeups = name == "lost";
  }
  if (j.contains("focus")) {
    try {
      s.focus = focus_from_json(j["focus"]);
    } catch (const FocusError& e) {
      throw ScenarioError(std::string("scenario: field 'focus': ") + e.what());
    }
  }
  validate_scenario(s);
  return s;
}

std::string lock_name(int index) { return std::string(kKeyPrefix) + "L" + std::to_string(index); }

std::vector<GroupRef> scenario_groups(const Scenario& s) {
  std::vector<GroupRef> out;
  if (!is_group_kind(s.lock_kind)) return out;
  for (int i = 0; i < s.locks; ++i) {
    GroupRef g;
    g.name = lock_name(i);
    g.kind = s.lock_kind == ScenarioLockKind::RedLock ? GroupKind::RedLock : GroupKind::Multi;
    for (int m = 0; m < s.servers; ++m) {
      g.members.push_back(LockSpec{LockRef::member_of(g.name, m).name(), LockKind::Reentrant, m, {}});
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<LockSpec> scenario_locks(const Scenario& s) {
  std::vector<LockSpec> out;
  if (is_group_kind(s.lock_kind)) {
    for (int i = 0; i < s.locks; ++i) out.push_back(LockSpec{lock_name(i), LockKind::Reentrant, 0, {}});
    return out;
  }
  for (int i = 0; i < s.locks; ++i) {
    LockSpec r;
    r.name = lock_name(i);
    const bool fair = s.lock_kind == ScenarioLockKind::Fair || (s.lock_kind == ScenarioLockKind::Mixed && i % 2 == 1);
    r.kind = fair ? LockKind::Fair : s.lock_kind == ScenarioLockKind::Spin ? LockKind::Spin : LockKind::Reentrant;
    r.server = i % s.servers;
    if (s.lock_kind == ScenarioLockKind::FasterMulti) {
      r.kind = LockKind::FasterMulti;
      for (int v = 0; v < s.values; ++v) r.values.push_back(v);
    }
    out.push_back(r);
  }
  return out;
}

std::vector<int> operation_values(int values, int client, int task) {
  assert(values >= 1 && client >= 0 && task >= 0);
  const int taken = values == 1 ? 1 : values - 1;
  std::vector<int> out;
  for (int i = 0; i < taken; ++i) out.push_back((client + task + i) % values);
  return out;
}

LockSpec operation_lock(const LockSpec& lock, int client, int task) {
  if (lock.kind != LockKind::FasterMulti) return lock;
  LockSpec out = lock;
  out.values = operation_values(static_cast<int>(lock.values.size()), client, task);
  return out;
}

}  // namespace locksim
