// locksim campaign: its flags as typed (CampaignArgs), parsed by
// validate_campaign() into a CampaignRequest (pure: every flag parsed into
// its type, every combination checked; no pack loaded), and
// run_campaign_command(), which resolves the script pack once into the
// template, the workers and the files never to write over, runs the seeds
// and writes the runs directory (cmd_campaign.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/campaign.h"
#include "tools/cli/commands.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/property_options.h"
#include "tools/cli/scenario_flags.h"

namespace locksim::cli {

struct CampaignArgs {
  int seeds = 100;
  uint64_t base_seed = 1;
  int workers = 1;
  int shrink_seeds = CampaignOptions{}.shrink_seeds;
  bool keep_going = false;
  int cause_reruns = kDefaultCauseReruns;
  bool guided = false;
  bool focus = false;  // --focus (sim/focus.h)
  bool unexplained_only = false;
  bool allow_vacuous = false;
  bool no_shrink = false;
  std::string backend;  // as typed
  bool backend_given = false;  // else: the default for the pack
  std::string reference;       // --reference PACK: the reference runs this pack's Lua
  bool match_variant = false;  // a model reference: the pack's model variant
  bool json = false;
  ScenarioFlags scenario;
  std::string out_dir;
  bool out_given = false;
  std::string shard;  // "I/N" as typed; empty: the whole seed space
  std::vector<std::string> fail_on;
  std::string corpus_file;  // --corpus: a guided campaign's start
  bool corpus_given = false;
  PropertyOptions properties;
  MemoryLimitFlag memory_limit;
};

struct CampaignRequest {
  CampaignOptions options;                 // the backend decided once the pack is loaded
  std::optional<CampaignBackend> backend;  // nullopt: the model when it stands for the pack, else lua
  bool match_variant = false;
  std::string reference;
  bool json = false;
  std::string out_dir;                     // empty: a new runs/<UTC time>-<profile>-<lock>/
  std::string corpus_file;
  std::vector<std::string> fail_on;        // as typed, for the command line recorded
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit
  std::string memory_limit;                // as typed, for the command line recorded; empty: the default
};

// Throws UsageError (exit 2, one line).
CampaignRequest validate_campaign(const CampaignArgs& args);
int run_campaign_command(const CampaignRequest& request, const ProgramName& program);

}  // namespace locksim::cli
