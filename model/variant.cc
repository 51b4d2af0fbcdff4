#include "model/variant.h"

#include <array>
#include <cassert>

namespace locksim {

namespace {
constexpr std::array<std::string_view, 8> kNames = {
    "correct",          "renew_no_owner_check", "release_no_owner_check", "reentry_no_expiry_reset",
    "fair_no_stale_purge", "fair_same_deadline", "release_no_publish",  "fair_ttl_from_deadline",
};
}  // namespace

std::string_view variant_name(ModelVariant variant) {
  const auto i = static_cast<size_t>(variant);
  assert(i < kNames.size());
  return kNames[i];
}

std::optional<ModelVariant> variant_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<ModelVariant>(i);
  }
  return std::nullopt;
}

std::vector<ModelVariant> all_variants() {
  std::vector<ModelVariant> out;
  for (size_t i = 0; i < kNames.size(); ++i) out.push_back(static_cast<ModelVariant>(i));
  return out;
}

}  // namespace locksim
