// locksim replay FILE [--backend B] [--property P]: its flags as typed
// (ReplayArgs), parsed by validate_replay() (pure), and run_replay(), which
// re-runs the trace and compares (cmd_replay.cc).
#pragma once

#include <optional>
#include <string>

#include "search/campaign_backend.h"
#include "tools/cli/commands.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/violation_choice.h"

namespace locksim::cli {

struct ReplayArgs {
  std::string path;
  std::string backend;   // empty: the header's
  std::string property;  // list only its violations after the verdict
  MemoryLimitFlag memory_limit;
};

struct ReplayRequest {
  std::string path;
  std::optional<BackendKind> backend;  // nullopt: the one the header names
  ViolationChoice only;
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit
};

ReplayRequest validate_replay(const ReplayArgs& args);
int run_replay(const ReplayRequest& request, const ProgramName& program);

}  // namespace locksim::cli
