#include "tools/cli/run_backend.h"

#include "model/variant.h"
#include "sim/live_backend.h"
#include "sim/lua_backend.h"
#include "sim/lua_backend_source.h"
#include "sim/model_backend.h"
#include "sim/model_backend_source.h"
#include "sim/run.h"
#include "tools/cli/commands.h"
#include "tools/cli/live_backend_source.h"

namespace locksim::cli {

RunBackend make_run_backend(BackendKind kind, Scenario* scenario, LuaLimits lua_limits) {
  std::optional<ScriptPack> pack;
  try {
    pack = load_scenario_pack(*scenario);
  } catch (const ScriptPackError& e) {
    throw UsageError(e.what());
  }
  return make_run_backend(kind, scenario, *pack, lua_limits);
}

RunBackend make_run_backend(BackendKind kind, Scenario* scenario, const ScriptPack& pack, LuaLimits lua_limits) {
  RunBackend out;
  try {
    apply_scenario_pack(scenario, pack, kind);
  } catch (const ScenarioError& e) {
    throw UsageError(e.what());
  } catch (const ScriptPackError& e) {
    throw UsageError(e.what());
  }
  out.input_files = pack.files();
  if (kind == BackendKind::Model) {
    out.backend = std::make_unique<ModelBackend>(scenario->servers, scenario->model_variant);
    return out;
  }
  if (kind == BackendKind::Lua) {
    try {
      out.backend = std::make_unique<LuaBackend>(scenario->servers, pack, LuaAllocation::Malloc, lua_limits);
    } catch (const ScriptPackError& e) {
      throw UsageError(std::string("bad script pack: ") + e.what());
    }
    return out;
  }
  std::vector<ServerControl*> controls;
  try {
    for (int s = 0; s < scenario->servers; ++s) {
      out.servers.push_back(std::make_unique<RedisServer>());
      controls.push_back(out.servers.back().get());
    }
  } catch (const RedisError& e) {
    throw EnvironmentError(std::string("cannot start the live backend: ") + e.what());
  }
  auto live = std::make_unique<LiveBackend>(controls, pack, kKeyPrefix);
  live->set_replica_factory([] { return std::make_unique<RedisServer>(); });  // --profile failover
  out.backend = std::move(live);
  return out;
}

std::unique_ptr<BackendSource> make_backend_source(BackendKind kind, const ScriptPack* pack, int servers,
                                                   std::optional<ModelVariant> fixed_variant, LuaLimits lua_limits) {
  switch (kind) {
    case BackendKind::Model:
      return std::make_unique<ModelBackendSource>(fixed_variant);
    case BackendKind::Lua:
      return std::make_unique<LuaBackendSource>(*pack, lua_limits);
    case BackendKind::Live: {
      auto live = std::make_unique<LiveBackendSource>(*pack);
      live->start(servers);
      return live;
    }
  }
  return nullptr;
}

BackendKind default_backend_for(const Scenario& scenario, const ScriptPack& pack) {
  return model_stands_for(scenario, pack) ? BackendKind::Model : BackendKind::Lua;
}

}  // namespace locksim::cli
