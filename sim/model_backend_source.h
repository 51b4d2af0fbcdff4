// ModelBackendSource: the BackendSource (sim/backend_source.h) of the
// embedded model. Every fresh() builds a new ModelBackend with the
// scenario's servers and model variant, or with the variant fixed at
// construction (a `campaign --backend both` compares every pack with the
// correct model, whatever variant the pack names). Cheap: no process, no I/O.
// SourceOrModel: a caller's backend source, or the model when it gave none
// (the searches' re-runs: shrinking, the proven causes).
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
  Backend& fresh(const Scenario& scenario) override;
  std::unique_ptr<Backend> make_copyable(const Scenario& scenario) override;

 private:
  ModelVariant variant_for(const Scenario& scenario) const;
  std::optional<ModelVariant> fixed_variant_;
  std::unique_ptr<ModelBackend> backend_;
};

class SourceOrModel {
 public:
  // `source` null: the model (of `fixed_variant`, else each scenario's).
  explicit SourceOrModel(BackendSource* source, std::optional<ModelVariant> fixed_variant = std::nullopt)
      : source_(source), model_(fixed_variant) {}
  SourceOrModel(const SourceOrModel&) = delete;
  SourceOrModel& operator=(const SourceOrModel&) = delete;
  Backend& fresh(const Scenario& scenario) { return (source_ != nullptr ? *source_ : model_).fresh(scenario); }

 private:
  BackendSource* source_;
  ModelBackendSource model_;
};

}  // namespace locksim
