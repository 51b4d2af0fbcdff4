#include "sim/model_backend_source.h"

namespace locksim {

Backend& ModelBackendSource::fresh(const Scenario& scenario) {
  ModelVariant variant = ModelVariant::Correct;
  if (fixed_variant_) {
    variant = *fixed_variant_;
  } else if (auto named = variant_from_name(scenario.model_variant)) {
    variant = *named;
  } else {
    throw ScenarioError("unknown model variant '" + scenario.model_variant + "'");
  }
  backend_ = std::make_unique<ModelBackend>(scenario.servers, variant);
  return *backend_;
}

}  // namespace locksim
