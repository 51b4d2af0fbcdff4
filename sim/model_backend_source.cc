#include "sim/model_backend_source.h"

namespace locksim {

ModelVariant ModelBackendSource::variant_for(const Scenario& scenario) const {
  if (fixed_variant_) return *fixed_variant_;
  if (auto named = variant_from_name(scenario.model_variant)) return *named;
  throw ScenarioError("unknown model variant '" + scenario.model_variant + "'");
}

Backend& ModelBackendSource::fresh(const Scenario& scenario) {
  backend_ = std::make_unique<ModelBackend>(scenario.servers, variant_for(scenario));
  return *backend_;
}

std::unique_ptr<Backend> ModelBackendSource::make_copyable(const Scenario& scenario) {
  return std::make_unique<ModelBackend>(scenario.servers, variant_for(scenario));
}

}  // namespace locksim
