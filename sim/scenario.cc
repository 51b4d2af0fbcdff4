#include "sim/scenario.h"

#include "impl/client_mutant.h"
#include "model/variant.h"
#include "sim/profiles.h"

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
  if (s.lock_kind != "rlock" && s.lock_kind != "fair" && s.lock_kind != "mixed") {
    throw ScenarioError("unknown lock kind '" + s.lock_kind + "' (rlock, fair, mixed)");
  }
  if (s.duration_ms < 0 || s.duration_ms > 7LL * 24 * 3600 * 1000) {
    throw ScenarioError("duration must be in [0, 7 days], got " + std::to_string(s.duration_ms) + " ms");
  }
  if (!is_profile(s.profile)) {
    std::string names;
    for (const auto& n : profile_names()) names += (names.empty() ? "" : ", ") + n;
    throw ScenarioError("unknown profile '" + s.profile + "' (" + names + ")");
  }
  if (!client_mutant_from_name(s.mutant)) {
    std::string names;
    for (auto m : all_client_mutants()) names += (names.empty() ? "" : ", ") + std::string(client_mutant_name(m));
    throw ScenarioError("unknown client mutant '" + s.mutant + "' (" + names + ")");
  }
  if (!variant_from_name(s.model_variant)) {
    throw ScenarioError("unknown model variant '" + s.model_variant + "'");
  }
}

nlohmann::json scenario_to_json(const Scenario& s) {
  nlohmann::ordered_json j;
  j["seed"] = s.seed;
  j["clients"] = s.clients;
  j["locks"] = s.locks;
  j["servers"] = s.servers;
  j["lock"] = s.lock_kind;
  j["duration_ms"] = s.duration_ms;
  j["profile"] = s.profile;
  j["mutant"] = s.mutant;
  j["scripts"] = s.scripts;
  j["model_variant"] = s.model_variant;
  return nlohmann::json::parse(j.dump());
}

namespace {
template <typename T>
T field(const nlohmann::json& j, const char* name) {
  if (!j.contains(name)) throw ScenarioError(std::string("scenario: missing field '") + name + "'");
  try {
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw ScenarioError(std::string("scenario: field '") + name + "' has the wrong type");
  }
}
}  // namespace

Scenario scenario_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw ScenarioError("scenario: not a JSON object");
  Scenario s;
  s.seed = field<uint64_t>(j, "seed");
  s.clients = field<int>(j, "clients");
  s.locks = field<int>(j, "locks");
  s.servers = field<int>(j, "servers");
  s.lock_kind = field<std::string>(j, "lock");
  s.duration_ms = field<int64_t>(j, "duration_ms");
  s.profile = field<std::string>(j, "profile");
  s.mutant = field<std::string>(j, "mutant");
  s.scripts = field<std::string>(j, "scripts");
  s.model_variant = field<std::string>(j, "model_variant");
  validate_scenario(s);
  return s;
}

std::string lock_name(int index) { return std::string(kKeyPrefix) + "L" + std::to_string(index); }

std::vector<LockRef> scenario_locks(const Scenario& s) {
  std::vector<LockRef> out;
  for (int i = 0; i < s.locks; ++i) {
    LockRef r;
    r.name = lock_name(i);
    const bool fair = s.lock_kind == "fair" || (s.lock_kind == "mixed" && i % 2 == 1);
    r.kind = fair ? LockKind::Fair : LockKind::Reentrant;
    r.server = i % s.servers;
    out.push_back(r);
  }
  return out;
}

}  // namespace locksim
