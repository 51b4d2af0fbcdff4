#include "model/script_call.h"

#include <array>
#include <cassert>
#include <charconv>

namespace locksim {

namespace {
constexpr std::array<std::string_view, kScriptKindCount> kNames = {
    "rlock_acquire",  "rlock_release",  "rlock_renew",
    "rlock_force_release", "fair_acquire", "fair_try_once",
    "fair_release",   "fair_acquire_failed", "fair_force_release",
    "spin_release",   "spin_force_release",
    "faster_multi_acquire", "faster_multi_release", "faster_multi_renew", "faster_multi_force_release",
};
}  // namespace

std::string_view script_name(ScriptKind kind) {
  const auto i = static_cast<size_t>(kind);
  assert(i < kNames.size());
  return kNames[i];
}

std::optional<ScriptKind> script_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<ScriptKind>(i);
  }
  return std::nullopt;
}

std::vector<ScriptKind> all_script_kinds() {
  std::vector<ScriptKind> out;
  for (int i = 0; i < kScriptKindCount; ++i) out.push_back(static_cast<ScriptKind>(i));
  return out;
}

const std::vector<std::string>& param_names() {
  static const std::vector<std::string> kParams = {
      "lock", "owner", "channel", "channel_prefix", "line", "deadlines", "latch",
      "message", "lease_ms", "wait_ms", "now_ms", "latch_ttl_ms", "token", "values"};
  return kParams;
}

bool param_is_integer(std::string_view name) {
  return name == "lease_ms" || name == "wait_ms" || name == "now_ms" || name == "latch_ttl_ms";
}

std::optional<int64_t> param_integer(const ScriptParams& p, std::string_view name) {
  if (name == "lease_ms") return p.lease_ms;
  if (name == "wait_ms") return p.wait_ms;
  if (name == "now_ms") return p.now_ms;
  if (name == "latch_ttl_ms") return p.latch_ttl_ms;
  return std::nullopt;
}

int param_index(std::string_view name) {
  const auto& names = param_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

void append_param_value(const ScriptParams& p, int index, std::string* out) {
  auto append_int = [out](int64_t v) {
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    assert(ec == std::errc());
    out->append(buf, end);
  };
  switch (index) {  // the order of param_names()
    case 0: out->append(p.lock); return;
    case 1: out->append(p.owner); return;
    case 2: out->append(p.channel); return;
    case 3: out->append(p.channel_prefix); return;
    case 4: out->append(p.line); return;
    case 5: out->append(p.deadlines); return;
    case 6: out->append(p.latch); return;
    case 7: out->append(p.message); return;
    case 8: append_int(p.lease_ms); return;
    case 9: append_int(p.wait_ms); return;
    case 10: append_int(p.now_ms); return;
    case 11: append_int(p.latch_ttl_ms); return;
    case 12: out->append(p.token); return;
    case 13: out->append(p.values); return;
    default: assert(false && "unknown parameter index");
  }
}

std::optional<std::string> param_value(const ScriptParams& p, std::string_view name) {
  if (auto v = param_integer(p, name)) return std::to_string(*v);
  if (name == "lock") return p.lock;
  if (name == "owner") return p.owner;
  if (name == "channel") return p.channel;
  if (name == "channel_prefix") return p.channel_prefix;
  if (name == "line") return p.line;
  if (name == "deadlines") return p.deadlines;
  if (name == "latch") return p.latch;
  if (name == "message") return p.message;
  if (name == "token") return p.token;
  if (name == "values") return p.values;
  return std::nullopt;
}

}  // namespace locksim
