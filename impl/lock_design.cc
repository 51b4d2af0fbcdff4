#include "impl/lock_design.h"

#include <array>
#include <cassert>
#include <utility>

namespace locksim {

namespace {

constexpr std::array<std::pair<DesignKind, std::string_view>, kDesignKindCount> kKindNames = {{
    {DesignKind::Rlock, "rlock"},
    {DesignKind::Fair, "fair"},
    {DesignKind::Multi, "multi"},
    {DesignKind::Redlock, "redlock"},
}};

std::string shown(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 60) + "...";
  return s;
}

int64_t bounded_ms(const nlohmann::json& v, const std::string& where, int64_t min, int64_t max) {
  if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > max) {
    throw DesignError(where + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                      "], got " + shown(v));
  }
  return v.get<int64_t>();
}

WakeUp wake_from_json(const nlohmann::json& v) {
  const std::string here = "\"wake_up\"";
  if (!v.is_object()) {
    throw DesignError(here + " must be an object: {\"mode\": \"pubsub\"} or {\"mode\": \"poll\", \"interval_ms\": "
                             "100, \"jitter_ms\": 20}, got " + shown(v));
  }
  for (const auto& [key, value] : v.items()) {
    (void)value;
    if (key != "mode" && key != "interval_ms" && key != "jitter_ms") {
      throw DesignError(here + ": unknown field \"" + key.substr(0, 40) + "\" (known: mode, interval_ms, jitter_ms)");
    }
  }
  if (!v.contains("mode") || !v["mode"].is_string()) {
    throw DesignError(here + ": \"mode\" must be \"pubsub\" or \"poll\"");
  }
  WakeUp w;
  const std::string mode = v["mode"].get<std::string>();
  if (mode == "pubsub") {
    if (v.contains("interval_ms") || v.contains("jitter_ms")) {
      throw DesignError(here + ": a pub/sub wake-up takes no interval_ms or jitter_ms (they are for \"poll\")");
    }
    return w;
  }
  if (mode != "poll") throw DesignError(here + ": \"mode\" must be \"pubsub\" or \"poll\", got " + shown(v["mode"]));
  w.mode = WakeMode::Poll;
  if (!v.contains("interval_ms")) throw DesignError(here + ": a polling wake-up needs \"interval_ms\"");
  w.interval_ms = bounded_ms(v["interval_ms"], here + ": \"interval_ms\"", 1, kMaxPollIntervalMs);
  if (v.contains("jitter_ms")) w.jitter_ms = bounded_ms(v["jitter_ms"], here + ": \"jitter_ms\"", 0, kMaxPollJitterMs);
  return w;
}

}  // namespace

std::string_view holder_read_name(HolderRead h) {
  switch (h) {
    case HolderRead::HashFields: return "hash_fields";
    case HolderRead::StringValue: return "string_value";
    case HolderRead::Script: return "script";
  }
  return "?";
}

std::string_view token_mode_name(TokenMode t) {
  return t == TokenMode::PerOwner ? "per_owner" : "fresh_per_acquire";
}

std::string_view design_kind_name(DesignKind k) {
  for (const auto& [kind, name] : kKindNames)
    if (kind == k) return name;
  return "?";
}

std::optional<DesignKind> design_kind_from_name(std::string_view name) {
  for (const auto& [kind, n] : kKindNames)
    if (n == name) return kind;
  return std::nullopt;
}

std::string design_kinds_text(const LockDesign& d) {
  std::string out;
  for (const auto& [kind, name] : kKindNames)
    if (d.provides(kind)) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::vector<DesignKind> kinds_needed_by(ScenarioLockKind lock_kind) {
  switch (lock_kind) {
    case ScenarioLockKind::Rlock:
    case ScenarioLockKind::Spin:  // the reentrant lock's acquire and renewal, and spin_release
    case ScenarioLockKind::FasterMulti:  // its own scripts, on a hash read as ours
      return {DesignKind::Rlock};
    case ScenarioLockKind::Fair:
      return {DesignKind::Fair};
    case ScenarioLockKind::Mixed:
      return {DesignKind::Rlock, DesignKind::Fair};
    case ScenarioLockKind::Multi:
      return {DesignKind::Multi};
    case ScenarioLockKind::RedLock:
      return {DesignKind::Redlock};
  }
  return {};
}

nlohmann::json design_to_json(const LockDesign& d) {
  nlohmann::ordered_json j;
  j["holders"] = std::string(holder_read_name(d.holders));
  j["reentrant"] = d.reentrant;
  nlohmann::ordered_json w;
  if (d.wake.mode == WakeMode::PubSub) {
    w["mode"] = "pubsub";
  } else if (d.wake.mode == WakeMode::Backoff) {  // a spin scenario's checkers, never a pack's
    w["mode"] = "backoff";
    w["backoff"] = std::string(backoff_name(d.wake.backoff));
  } else {
    w["mode"] = "poll";
    w["interval_ms"] = d.wake.interval_ms;
    w["jitter_ms"] = d.wake.jitter_ms;
  }
  j["wake_up"] = w;
  j["token"] = std::string(token_mode_name(d.token));
  nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
  for (const auto& [kind, name] : kKindNames)
    if (d.provides(kind)) kinds.push_back(std::string(name));
  j["kinds"] = kinds;
  return nlohmann::json::parse(j.dump());
}

LockDesign design_from_json(const nlohmann::json& j, bool manifest) {
  if (!j.is_object()) throw DesignError("must be an object, got " + shown(j));
  LockDesign d;
  for (const auto& [key, v] : j.items()) {
    if (key == "holders") {
      if (manifest && v.is_object()) {
        d.holders = HolderRead::Script;  // the script entry itself is the pack's to read
      } else if (v == "hash_fields") {
        d.holders = HolderRead::HashFields;
      } else if (v == "string_value") {
        d.holders = HolderRead::StringValue;
      } else if (!manifest && v == "script") {
        d.holders = HolderRead::Script;
      } else {
        throw DesignError(std::string("\"holders\" must be \"hash_fields\", \"string_value\" or ") +
                          (manifest ? "a read script ({\"file\": ..., \"keys\": [...], \"argv\": [...]})"
                                    : "\"script\"") +
                          ", got " + shown(v));
      }
    } else if (key == "reentrant") {
      if (!v.is_boolean()) throw DesignError("\"reentrant\" must be true or false, got " + shown(v));
      d.reentrant = v.get<bool>();
    } else if (key == "wake_up") {
      d.wake = wake_from_json(v);
    } else if (key == "token") {
      if (v == "per_owner") {
        d.token = TokenMode::PerOwner;
      } else if (v == "fresh_per_acquire") {
        d.token = TokenMode::FreshPerAcquire;
      } else {
        throw DesignError("\"token\" must be \"per_owner\" or \"fresh_per_acquire\", got " + shown(v));
      }
    } else if (key == "kinds") {
      if (!v.is_array() || v.empty()) {
        throw DesignError("\"kinds\" must be a non-empty list of lock kinds (rlock, fair, multi, redlock), got " +
                          shown(v));
      }
      d.kinds = 0;
      for (const auto& item : v) {
        const auto kind = item.is_string() ? design_kind_from_name(item.get<std::string>()) : std::nullopt;
        if (!kind) throw DesignError("\"kinds\": unknown lock kind " + shown(item) + " (known: rlock, fair, multi, redlock)");
        const uint8_t bit = static_cast<uint8_t>(1u << static_cast<int>(*kind));
        if (d.kinds & bit) throw DesignError("\"kinds\": " + shown(item) + " is listed twice");
        d.kinds |= bit;
      }
    } else {
      throw DesignError("unknown field \"" + key.substr(0, 40) +
                        "\" (known: holders, reentrant, wake_up, token, kinds)");
    }
  }
  if (!d.reentrant && d.provides(DesignKind::Fair)) {
    throw DesignError("\"kinds\": the fair kind is the fair-lock protocol of the lock semantics (a hold count "
                      "per owner, a waiting line), so a lock declared \"reentrant\": false cannot provide \"fair\"");
  }
  return d;
}

int64_t poll_sleep_ms(const WakeUp& w, uint64_t draw) {
  assert(w.mode == WakeMode::Poll && w.interval_ms >= 1 && w.jitter_ms >= 0);
  if (w.jitter_ms == 0) return w.interval_ms;
  // splitmix64's finaliser: neighbouring draws (rounds 1, 2, ...) spread out.
  uint64_t z = draw + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return w.interval_ms + static_cast<int64_t>(z % static_cast<uint64_t>(w.jitter_ms + 1));
}

}  // namespace locksim
