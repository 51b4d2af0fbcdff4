// locksim explore: its flags as typed (ExploreArgs), parsed by
// validate_explore() into an ExploreRequest (pure: no pack loaded), and
// run_explore_command(), which resolves the pack once, explores, prints and
// writes the runs directory (cmd_explore.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/verdict_policy.h"
#include "search/campaign.h"
#include "search/explore.h"
#include "sim/backend_kind.h"
#include "tools/cli/commands.h"
#include "tools/cli/memory_limit_option.h"

namespace locksim::cli {

struct ExploreArgs {
  int clients = 2;
  int locks = 1;
  int servers = 1;
  std::string lock = "rlock";
  std::string persistence = "none";
  int64_t restart_delay_ms = 0;
  int64_t fair_slot_ms = -1;  // not given: the pack's "settings" (fair_slot_ms), else 0
  bool validity = false;      // RedLock: the client checks its validity
  std::string backoff = "exponential";  // spin lock: its waiters' back-off
  int values = -1;                      // faster multi-lock: values per group; -1: not given (3)
  std::string scripts;
  std::string mutant = "none";
  std::string ops = "lock,unlock";
  int64_t hold_ms = 10;
  int64_t latency_us = 1'000;
  int64_t drain_ms = 60'000;
  std::string faults = "none";
  int max_faults = 1;
  int64_t pause_ms = 31'000;
  int64_t jump_ms = 31'000;
  bool dfs = false;
  bool random_walk = false;
  uint64_t walks = 1'000;
  uint64_t seed = 1;
  int64_t max_depth = 1'000'000;
  uint64_t max_states = 10'000'000;
  uint64_t max_memory_mb = 4'096;
  int workers = 1;
  std::string backend;  // "" = the default for the pack
  std::vector<std::string> fail_on;
  bool unexplained_only = false;
  bool confirm_live = false;
  bool json = false;
  std::string out_dir;
  MemoryLimitFlag memory_limit;
};

struct ExploreRequest {
  ExploreArgs args;                    // as typed: the command line again, the outputs
  CampaignOptions campaign;            // the scenario, named as a campaign names it
  std::optional<BackendKind> backend;  // model or lua; nullopt: the default for the pack
  std::vector<ExploreFault> faults;
  VerdictPolicy policy;
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit (a copy's at most 128 MiB)
};

// Throws UsageError (exit 2, one line).
ExploreRequest validate_explore(const ExploreArgs& args);
int run_explore_command(const ExploreRequest& request, const ProgramName& program);

}  // namespace locksim::cli
