// ModelBackend: the Backend of sim/backend.h over the in-memory reference
// model (model/store.h + model/scripts.h). One Store per server; the server
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
#include <unordered_map>
#include <vector>

#include "model/store.h"
#include "model/variant.h"
#include "sim/backend.h"

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
  // line_after entries parked while execute_into runs non-fair scripts, so
  // the next fair script reuses their buffers.
  std::vector<LineWaiter> parked_line_;
  // The last line read per (server, line key): read again only when
  // Store::line_version changed. One entry per fair lock name seen.
  struct CachedLine {
    bool filled = false;
    uint64_t token = 0;  // ExecResult::line_token, new at every re-read
    std::string deadlines;
    Store::LineVersion version;
    std::vector<LineWaiter> waiters;
  };
  std::vector<std::unordered_map<std::string, CachedLine, KeyHash>> line_cache_;  // by server; never iterated
  uint64_t next_line_token_ = 0;
};

// Server time in µs -> Redis ms (floor division, also for negative times).
int64_t server_ms_of_us(int64_t server_now_us);

}  // namespace locksim
