// RunBackend: the Backend a `locksim run` / `locksim replay` needs for a
// scenario. "model": a ModelBackend with the scenario's model variant. "lua":
// a LuaBackend running the scenario's script pack in process. "live": one
// RedisServer per simulated server (started here, stopped when the
// RunBackend is destroyed) and a LiveBackend over the scenario's script pack.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "impl/script_pack.h"
#include "model/variant.h"
#include "search/campaign_backend.h"
#include "sim/backend.h"
#include "sim/backend_source.h"
#include "sim/lua_backend.h"
#include "sim/scenario.h"
#include "tools/server/redis_server.h"

namespace locksim::cli {

struct RunBackend {
  std::vector<std::unique_ptr<RedisServer>> servers;
  std::unique_ptr<Backend> backend;
  std::vector<std::string> input_files;  // the script pack's files: never an output
};

// Throws UsageError for an unusable combination (e.g. a pack the model
// cannot stand for on the model backend, a Lua script the lua backend
// cannot compile), EnvironmentError when a live server cannot be started,
// RedisError when a live server fails later. `scenario` gets its design and
// model_variant from `pack`, the scenario's pack, loaded once by the caller.
// `lua_limits`: the lua backend's budget and memory limit (--memory-limit).
RunBackend make_run_backend(BackendKind kind, Scenario* scenario, const ScriptPack& pack,
                            LuaLimits lua_limits = LuaBackend::default_limits());
// The same, loading the scenario's pack (a pack that does not load: UsageError).
RunBackend make_run_backend(BackendKind kind, Scenario* scenario,
                            LuaLimits lua_limits = LuaBackend::default_limits());

// A BackendSource (sim/backend_source.h) of `kind`: the model (with
// `fixed_variant`, else each scenario's own), the pack's Lua in process, or
// the pack's Lua on `servers` redis-servers started here. Throws
// ScriptPackError, RedisError.
std::unique_ptr<BackendSource> make_backend_source(BackendKind kind, const ScriptPack* pack, int servers,
                                                   std::optional<ModelVariant> fixed_variant = std::nullopt,
                                                   LuaLimits lua_limits = LuaBackend::default_limits());

// The backend a scenario runs on when none is named: the model when it
// stands for the scenario's pack (`pack`, loaded by the caller), else the
// lua backend (the pack's own Lua, in process).
BackendKind default_backend_for(const Scenario& scenario, const ScriptPack& pack);

}  // namespace locksim::cli
