// ModelBackendSource: the BackendSource (sim/backend_source.h) of the
// embedded model. Every fresh() builds a new ModelBackend with the
// scenario's servers and model variant, or with the variant fixed at
// construction (a `campaign --backend both` compares every pack with the
// correct model, whatever variant the pack names). Cheap: no process, no I/O.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "model/variant.h"
#include "sim/backend_source.h"
#include "sim/model_backend.h"

namespace locksim {

class ModelBackendSource final : public BackendSource {
 public:
  explicit ModelBackendSource(std::optional<ModelVariant> fixed_variant = std::nullopt)
      : fixed_variant_(fixed_variant) {}
  std::string kind() const override { return "model"; }
  // Throws ScenarioError for an unknown model variant name.
  Backend& fresh(const Scenario& scenario) override;
  std::unique_ptr<Backend> make_copyable(const Scenario& scenario) override;

 private:
  ModelVariant variant_for(const Scenario& scenario) const;
  std::optional<ModelVariant> fixed_variant_;
  std::unique_ptr<ModelBackend> backend_;
};

}  // namespace locksim
