// ModelBackend: the Backend of sim/backend.h over the in-memory reference
// model (redis/store.h + model/scripts.h). One Store per server; the server
// clock in µs becomes Redis's ms by floor division. A ModelVariant selects
// deliberately broken scripts (mutants) for checking the checkers.
//
// Contract: as Backend. execute_into() also sets ExecResult::line_token for
// fair scripts; a caller that already holds the line of token T (e.g. in its
// own form) may enter with out->line_token = T: if the line is still T,
// out->line_after is then left as it was instead of being copied again. Server time may go backwards only across restart()
// or wipe() (the model, like Redis, assumes a monotonic clock otherwise).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "redis/store.h"
#include "model/variant.h"
#include "sim/backend.h"
#include "sim/line_cache.h"

namespace locksim {

class ModelBackend final : public Backend {
 public:
  explicit ModelBackend(int server_count = 1, ModelVariant variant = ModelVariant::Correct);

  std::string name() const override { return "model"; }
  int server_count() const override { return static_cast<int>(stores_.size()); }
  ExecResult execute(int server, const ScriptCall& call, int64_t server_now_us) override;
  void execute_into(int server, const ScriptCall& call, int64_t server_now_us, ExecResult* out) override;
  std::vector<KeyState> snapshot(int server, int64_t server_now_us) override;
  void restart(int server) override;
  bool digest(int server, int64_t server_now_us, StateDigest* out) override;
  void script_coverage(const std::vector<ScriptKind>& kinds, std::vector<std::string>* covered,
                       std::vector<std::string>* universe) const override;
  std::unique_ptr<Backend> new_replicas() const override {
    return std::make_unique<ModelBackend>(server_count(), variant_);
  }

  ModelVariant variant() const { return variant_; }
  // Deletes every key of every server (FLUSHALL).
  void wipe();

 private:
  Store& store(int server);
  ModelVariant variant_;
  std::vector<Store> stores_;
  LineCache lines_;  // line_after, read only when it changed
  uint64_t branches_ = 0;  // every branch taken since made or wiped (model/script_branches.h)
};


}  // namespace locksim
