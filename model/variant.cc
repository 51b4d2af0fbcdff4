#include "model/variant.h"

#include <array>
#include <cassert>

namespace locksim {

namespace {
constexpr std::array<std::string_view, 13> kNames = {
    "correct",          "renew_no_owner_check", "release_no_owner_check", "reentry_no_expiry_reset",
    "fair_no_stale_purge", "fair_same_deadline", "release_no_publish",  "fair_ttl_from_deadline",
    "fair_no_acquire_failed", "fair_wait_for_head", "faster_multi_release_frees_early",
    "faster_multi_expiry_inverted", "faster_multi_renew_unheld",
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

bool is_design_variant(ModelVariant variant) {
  assert(static_cast<size_t>(variant) < kNames.size());
  return variant == ModelVariant::FairWaitForHead;
}

bool is_faster_multi_mutant(ModelVariant variant) {
  return variant == ModelVariant::FasterMultiReleaseFreesEarly || variant == ModelVariant::FasterMultiExpiryInverted ||
         variant == ModelVariant::FasterMultiRenewUnheld;
}

std::vector<ModelVariant> mutant_variants() {
  std::vector<ModelVariant> out;
  for (ModelVariant v : all_variants()) {
    if (v != ModelVariant::Correct && !is_design_variant(v)) out.push_back(v);
  }
  return out;
}

std::vector<ModelVariant> faster_multi_mutant_variants() {
  std::vector<ModelVariant> out;
  for (ModelVariant v : all_variants()) {
    if (is_faster_multi_mutant(v)) out.push_back(v);
  }
  return out;
}

std::vector<ModelVariant> design_variants() {
  std::vector<ModelVariant> out;
  for (ModelVariant v : all_variants()) {
    if (is_design_variant(v)) out.push_back(v);
  }
  return out;
}

}  // namespace locksim
