// The campaign measurement: seeds per second of the README's default
// campaign (safe faults, mixed locks, 2 locks, 4 clients, 60 s each) on one
// worker, every seed run (keep going, no shrinking).
#include <cstdio>

#include "properties/campaign.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

void measure_campaign(const BenchSizes& sizes, BenchReport* report) {
  CampaignOptions o;
  o.seeds = sizes.campaign_seeds;
  o.profile = "safe";
  o.lock_kind = "mixed";
  o.locks = 2;
  o.shrink = false;
  o.keep_going = true;
  const Scenario tmpl = campaign_template(o);
  const WallTimer timer;
  const CampaignResult r = run_campaign(tmpl, o);
  const double wall_s = timer.elapsed_s();
  char detail[200];
  std::snprintf(detail, sizeof detail, "campaign --seeds %d --profile safe --lock mixed --locks 2: %.2f s, %llu events",
                r.seeds_run, wall_s, static_cast<unsigned long long>(r.events_checked));
  report->set("campaign_seeds_per_s_1w", static_cast<double>(r.seeds_run) / wall_s, detail);
  // CampaignOptions has no worker count yet: a 2-worker rate cannot be measured.
  report->set_null("campaign_seeds_per_s_2w", "campaign workers not built yet (campaigns run on one thread)");
}

}  // namespace locksim
