// The campaign measurement: seeds per second of the README's default
// campaign (safe faults, mixed locks, 2 locks, 4 clients, 60 s each) on one
// worker and on 2, every seed run (keep going, no shrinking).
#include <cstdio>

#include "search/campaign.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

namespace {

// Runs the campaign on `workers` model workers; seeds per wall second.
double seeds_per_s(CampaignOptions o, int workers, std::string* detail) {
  o.workers = workers;
  const Scenario tmpl = campaign_template(o);
  const WallTimer timer;
  const CampaignResult r = run_campaign(tmpl, o);
  const double wall_s = timer.elapsed_s();
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "campaign --seeds %d --profile safe --lock mixed --locks 2 --workers %d: %.2f s, %llu events",
                r.seeds_run, workers, wall_s, static_cast<unsigned long long>(r.events_checked));
  *detail = buf;
  return static_cast<double>(r.seeds_run) / wall_s;
}

}  // namespace

CampaignOptions readme_campaign_options(int seeds) {
  CampaignOptions o;
  o.seeds = seeds;
  o.scenario.profile = Profile::named("safe");
  o.scenario.lock_kind = ScenarioLockKind::Mixed;
  o.scenario.locks = 2;
  o.shrink = false;
  o.keep_going = true;
  return o;
}

void measure_campaign(const BenchSizes& sizes, BenchReport* report) {
  const CampaignOptions o = readme_campaign_options(sizes.campaign_seeds);
  std::string detail;
  const double one = seeds_per_s(o, 1, &detail);
  report->set("campaign_seeds_per_s_1w", one, detail);
  const double two = seeds_per_s(o, 2, &detail);
  report->set("campaign_seeds_per_s_2w", two, detail);
}

}  // namespace locksim
