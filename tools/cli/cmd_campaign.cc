// locksim campaign: runs N seeded scenarios (seed i = --base-seed + i) on the
// model backend, checks each history with the CheckerSuite as it streams, and
// stops at the first seed with a violation: prints the seed, the violation and
// the shrunk counterexample (properties/shrink.h). Progress goes to stderr.
// --mutant takes a client mutant (impl/client_mutant.h) or a script mutant
// (model/variant.h, run as its ModelVariant); --scripts DIR takes a script
// pack and runs the ModelVariant its manifest names.
// Exit: 0 no property failed, 1 a property failed, 2 bad input.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "properties/campaign.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

struct CampaignArgs {
  CampaignOptions options;
  bool json = false;
  bool no_shrink = false;
};

int run_campaign_command(CampaignArgs& args) {
  CampaignOptions& o = args.options;
  if (o.seeds < 1 || o.seeds > 100'000'000) throw UsageError("--seeds must be between 1 and 100000000");
  if (args.no_shrink) o.shrink = false;
  Scenario tmpl;
  try {
    tmpl = campaign_template(o);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  int last_percent = -1;
  CampaignResult r = run_campaign(tmpl, o, [&](int done, int total) {
    const int percent = static_cast<int>(100LL * done / total);
    if (percent != last_percent || done == total) {
      last_percent = percent;
      std::fprintf(stderr, "\rcampaign: %d/%d seeds", done, total);
      if (done == total) std::fprintf(stderr, "\n");
      std::fflush(stderr);
    }
  });
  if (r.seeds_run < o.seeds) std::fprintf(stderr, "\n");
  if (args.json) {
    std::printf("%s\n", campaign_result_to_json(r).dump().c_str());
  } else {
    std::printf("%s", format_campaign_result(r).c_str());
  }
  return r.failed() ? 1 : 0;
}

}  // namespace

void add_campaign_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CampaignArgs>();
  CLI::App* cmd = app.add_subcommand("campaign", "run seeded scenarios and check every property");
  cmd->add_option("--seeds", args->options.seeds, "number of seeds to run")->required();
  cmd->add_option("--profile", args->options.profile, "fault profile: none, safe, pauses, skew, hostile");
  cmd->add_option("--lock", args->options.lock_kind, "lock kind: rlock, fair, mixed");
  cmd->add_option("--mutant", args->options.mutant, "client or script mutant to run (see locksim mutants --list)");
  cmd->add_option("--scripts", args->options.scripts, "script pack dir (its model_variant is run on the model)");
  cmd->add_option("--base-seed", args->options.base_seed, "seed of the first run");
  cmd->add_option("--clients", args->options.clients, "clients per scenario");
  cmd->add_option("--locks", args->options.locks, "locks per scenario");
  cmd->add_option("--duration-ms", args->options.duration_ms, "workload duration per scenario");
  cmd->add_flag("--no-shrink", args->no_shrink, "report the failing seed without shrinking");
  cmd->add_flag("--json", args->json, "print the result as JSON");
  cmd->callback([args, exit_code] { *exit_code = run_campaign_command(*args); });
}

}  // namespace locksim::cli
