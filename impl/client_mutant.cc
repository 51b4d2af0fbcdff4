#include "impl/client_mutant.h"

#include <array>
#include <cassert>

namespace locksim {

namespace {
constexpr std::array<std::string_view, 8> kNames = {
    "none", "watchdog_not_cancelled", "watchdog_period_lease",
    "lease_unit_seconds", "fair_giveup_no_acquire_failed", "unlock_no_wake",
    "watchdog_first_thread_entry", "backoff_no_growth",
};
}  // namespace

std::string_view client_mutant_name(ClientMutant mutant) {
  const auto i = static_cast<size_t>(mutant);
  assert(i < kNames.size());
  return kNames[i];
}

std::optional<ClientMutant> client_mutant_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<ClientMutant>(i);
  }
  return std::nullopt;
}

std::vector<ClientMutant> all_client_mutants() {
  std::vector<ClientMutant> out;
  for (size_t i = 0; i < kNames.size(); ++i) out.push_back(static_cast<ClientMutant>(i));
  return out;
}

}  // namespace locksim
