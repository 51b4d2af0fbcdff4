#include "impl/mutant.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <vector>

namespace locksim {

Mutant Mutant::of(ClientMutant client) {
  Mutant m;
  m.client_ = client;
  return m;
}

namespace {

[[maybe_unused]] bool is_script_mutant(ModelVariant v) {
  const std::vector<ModelVariant> mutants = mutant_variants();
  return std::find(mutants.begin(), mutants.end(), v) != mutants.end();
}

}  // namespace

Mutant Mutant::of(ModelVariant script) {
  assert(script == ModelVariant::Correct || is_script_mutant(script));
  Mutant m;
  m.script_ = script;
  return m;
}

std::string Mutant::name() const {
  if (client_ != ClientMutant::None) return std::string(client_mutant_name(client_));
  if (script_ != ModelVariant::Correct) return std::string(variant_name(script_));
  return "none";
}

Mutant parse_mutant(std::string_view name) {
  if (name.empty() || name == "none") return Mutant();
  if (auto client = client_mutant_from_name(name)) return Mutant::of(*client);
  if (auto variant = variant_from_name(name); variant && *variant != ModelVariant::Correct) {
    if (is_design_variant(*variant)) {
      throw std::invalid_argument("'" + std::string(name) +
                                  "' is a design variant, not a mutant: run it with --scripts impl/variants/" +
                                  std::string(name));
    }
    return Mutant::of(*variant);
  }
  std::string names;
  for (ClientMutant m : all_client_mutants()) {
    if (m != ClientMutant::None) names += std::string(names.empty() ? "" : ", ") + std::string(client_mutant_name(m));
  }
  for (ModelVariant v : mutant_variants()) names += ", " + std::string(variant_name(v));
  throw std::invalid_argument("unknown mutant '" + std::string(name) + "' (" + names + ")");
}

}  // namespace locksim
