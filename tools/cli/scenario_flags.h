// ScenarioFlags: the flags that describe a scenario, registered the same way
// (names, units, defaults, help) on every command that runs scenarios
// (`run`, `campaign`), so a scenario written for one runs on the other.
//
//   --clients N  --locks K  --servers M  --lock KIND  --profile NAME
//   --duration-ms D | --duration-s S  --persistence none|always
//   --restart-delay-ms D  --fair-slot-ms S  --validity  --backoff KIND  --values N  --scripts DIR
//   --mutant NAME (client or script mutant)
//
// apply() parses them into CampaignOptions::scenario (which
// campaign_template() resolves, for one seed or many) and throws UsageError
// for a value that does not parse. command_text() writes them back as flags, shell
// quoted, leaving out each one at its default.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "search/campaign.h"

namespace locksim::cli {

struct ScenarioFlags {
  int clients = 4;
  int locks = 1;
  int servers = 1;
  std::string lock = "rlock";
  std::string profile = "safe";
  int64_t duration_ms = 60'000;
  double duration_s = -1;  // given with --duration-s (replaces duration_ms)
  std::string persistence = "none";
  int64_t restart_delay_ms = 0;
  int64_t fair_slot_ms = -1;  // not given: the pack's settings, else 0
  bool validity = false;
  std::string backoff = "exponential";
  int values = -1;  // faster multi-lock: values per group; -1: not given (kDefaultValues)
  std::string scripts;
  std::string mutant = "none";

  void apply(CampaignOptions* options) const;
};

void add_scenario_flags(CLI::App* cmd, ScenarioFlags* flags);

// The options of a CampaignOptions that ScenarioFlags set, as flags for a
// command line (each at its default left out), shell quoted.
std::string scenario_command_text(const CampaignOptions& options);

// The values of --lock, --mutant and --persistence, read from their names
// (here and on commands with their own flags, like explore); UsageError,
// naming the option, for a name that is none.
ScenarioLockKind lock_kind_option(const std::string& name);
Mutant mutant_option(const std::string& name);
Persistence persistence_option(const std::string& name);
BackoffKind backoff_option(const std::string& name);

// `text` as one shell word (single quotes where needed).
std::string shell_word(const std::string& text);

}  // namespace locksim::cli
