#include "sim/model_backend_source.h"

namespace locksim {

ModelVariant ModelBackendSource::variant_for(const Scenario& scenario) const {
  return fixed_variant_ ? *fixed_variant_ : scenario.model_variant;
}

Backend& ModelBackendSource::fresh(const Scenario& scenario) {
  backend_ = std::make_unique<ModelBackend>(scenario.servers, variant_for(scenario));
  return *backend_;
}

std::unique_ptr<Backend> ModelBackendSource::make_copyable(const Scenario& scenario) {
  return std::make_unique<ModelBackend>(scenario.servers, variant_for(scenario));
}

}  // namespace locksim
