// locksim check TRACE: its flags as typed (CheckArgs), parsed by
// validate_check() into a CheckRequest (pure: no file read), and
// run_check(), which reads the trace and prints (cmd_check.cc).
#pragma once

#include <string>
#include <vector>

#include "properties/cause_search.h"
#include "properties/property_selection.h"
#include "properties/verdict_policy.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/property_options.h"
#include "tools/cli/violation_choice.h"

namespace locksim::cli {

struct CheckArgs {
  std::string path;
  bool json = false;
  bool unexplained_only = false;
  bool allow_vacuous = false;
  int cause_reruns = kDefaultCauseReruns;
  std::vector<std::string> fail_on;
  PropertyOptions properties;
  std::string property;  // --property: list (and fail on) this property's violations only
  MemoryLimitFlag memory_limit;
};

struct CheckRequest {
  std::string path;
  bool json = false;
  bool allow_vacuous = false;
  int cause_reruns = kDefaultCauseReruns;
  VerdictPolicy policy;
  PropertySelection selection;
  ViolationChoice only;  // its property: the only one listed; empty: every one
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit: the cause search's re-runs
};

// Throws UsageError (exit 2, one line).
CheckRequest validate_check(const CheckArgs& args);
int run_check(const CheckRequest& request);

}  // namespace locksim::cli
