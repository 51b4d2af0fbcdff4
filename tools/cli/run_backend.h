// RunBackend: the Backend a `locksim run` / `locksim replay` needs for a
// scenario. "model": a ModelBackend with the scenario's model variant. "live":
// one RedisServer per simulated server (started here, stopped when the
// RunBackend is destroyed) and a LiveBackend over the scenario's script pack.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/backend.h"
#include "sim/scenario.h"
#include "tools/server/redis_server.h"

namespace locksim::cli {

struct RunBackend {
  std::vector<std::unique_ptr<RedisServer>> servers;
  std::unique_ptr<Backend> backend;
  std::vector<std::string> input_files;  // the script pack's files: never an output
};

// Throws UsageError for an unusable combination (e.g. a live-only pack on the
// model backend), RedisError / ScriptPackError when a live server or the pack
// fails. `scenario` gets its model_variant resolved from the pack.
RunBackend make_run_backend(const std::string& kind, Scenario* scenario);

}  // namespace locksim::cli
