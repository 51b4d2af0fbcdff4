// locksim shrink TRACE [--property P] [--violation N] [-o OUT] [--memory-limit SIZE]: a trace's
// violation shrunk, as a campaign shrinks a failing seed, and written as a
// replayable trace (cmd_shrink.cc). ShrinkArgs as typed; validate_shrink()
// parses them (pure); run_shrink() does the work.
#pragma once

#include <string>

#include "tools/cli/commands.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/violation_choice.h"

namespace locksim::cli {

struct ShrinkArgs {
  std::string trace;
  std::string property;
  int64_t violation = 0;
  std::string out;  // empty: beside the trace, <name>.<property>.shrunk.jsonl
  bool out_given = false;
  MemoryLimitFlag memory_limit;
};

struct ShrinkRequest {
  std::string trace;
  ViolationChoice choice;
  std::string out;
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit: the re-runs on the lua backend
  std::string memory_limit;  // as typed, for the replay command printed; empty: the default
};

// The default output for `trace` and the violation's property:
// "runs/x/7.jsonl" -> "runs/x/7.<property>.shrunk.jsonl".
std::string default_shrink_output(const std::string& trace, const std::string& property);

// Throws UsageError (exit 2, one line).
ShrinkRequest validate_shrink(const ShrinkArgs& args);
int run_shrink(const ShrinkRequest& request, const ProgramName& program);

}  // namespace locksim::cli
