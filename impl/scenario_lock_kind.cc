#include "impl/scenario_lock_kind.h"

#include <utility>

namespace locksim {

namespace {

constexpr std::pair<ScenarioLockKind, std::string_view> kNames[] = {
    {ScenarioLockKind::Rlock, "rlock"}, {ScenarioLockKind::Fair, "fair"},       {ScenarioLockKind::Mixed, "mixed"},
    {ScenarioLockKind::Multi, "multi"}, {ScenarioLockKind::RedLock, "redlock"}, {ScenarioLockKind::Spin, "spin"},
    {ScenarioLockKind::FasterMulti, "faster_multi"},
};

}  // namespace

std::string_view lock_kind_name(ScenarioLockKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "?";
}

std::optional<ScenarioLockKind> lock_kind_from_name(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (n == name) return k;
  return std::nullopt;
}

std::vector<ScenarioLockKind> all_lock_kinds() {
  std::vector<ScenarioLockKind> out;
  for (const auto& [k, name] : kNames) out.push_back(k);
  return out;
}

const char* lock_kind_names_text() { return "rlock, fair, mixed, multi, redlock, spin, faster_multi"; }

}  // namespace locksim
