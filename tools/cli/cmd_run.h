// locksim run: its flags as typed (RunArgs), parsed by validate_run() into
// a RunRequest (pure: no pack loaded, no file written), and run_run(),
// which resolves the pack once, runs and writes the trace (cmd_run.cc).
#pragma once

#include <optional>
#include <string>

#include "properties/property_selection.h"
#include "search/campaign.h"
#include "sim/backend_kind.h"
#include "tools/cli/commands.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/property_options.h"
#include "tools/cli/scenario_flags.h"

namespace locksim::cli {

struct RunArgs {
  uint64_t seed = 0;
  std::string backend;  // empty: the model when it stands for the pack, else lua
  ScenarioFlags scenario;
  std::string trace;
  PropertyOptions properties;
  MemoryLimitFlag memory_limit;
};

struct RunRequest {
  CampaignOptions campaign;            // one seed: the scenario, named as a campaign names it
  std::optional<BackendKind> backend;  // nullopt: the default for the pack
  std::string trace;
  PropertySelection properties;
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit
};

// Throws UsageError (exit 2, one line).
RunRequest validate_run(const RunArgs& args);
int run_run(const RunRequest& request, const ProgramName& program);

}  // namespace locksim::cli
