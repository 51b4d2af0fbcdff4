// The lua measurement (tools/bench/bench_measure.h): rlock pairs on the lua
// backend, then the same safe fair campaign of our pack seed by seed on the
// lua backend and on live redis-servers, alternating.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "search/campaign.h"
#include "sim/bench_scenarios.h"
#include "sim/lua_backend.h"
#include "sim/lua_backend_source.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"
#include "tools/cli/live_backend_source.h"

namespace locksim {

namespace {

// Wall seconds of a one-seed campaign (no shrinking) on `worker`.
double campaign_seed_s(const Scenario& tmpl, const CampaignOptions& o, CampaignWorker& worker, uint64_t* events) {
  std::vector<CampaignWorker> workers;
  workers.push_back(std::move(worker));
  const WallTimer timer;
  const CampaignResult r = run_campaign(tmpl, o, workers);
  const double wall_s = timer.elapsed_s();
  worker = std::move(workers.front());
  *events += r.events_checked;
  return wall_s;
}

}  // namespace

void measure_lua(const BenchSizes& sizes, BenchReport* report) {
  const ScriptPack pack = ScriptPack::load(ScriptPack::default_dir());
  {
    LuaBackend backend(1, pack);
    const WallTimer timer;
    const uint64_t scripts = run_rlock_pairs(backend, sizes.lua_pairs, kBenchStartUs, [&] { backend.wipe(); });
    const double wall_s = timer.elapsed_s();
    char detail[200];
    std::snprintf(detail, sizeof detail, "lua: %llu rlock acquire+release scripts of impl/lua in %.2f s",
                  static_cast<unsigned long long>(scripts), wall_s);
    report->set("lua_execs_per_s", static_cast<double>(scripts) / wall_s, detail);
  }

  CampaignOptions o;
  o.seeds = 1;
  o.scenario.profile = Profile::named("safe");
  o.scenario.lock_kind = ScenarioLockKind::Fair;
  o.scenario.duration_ms = sizes.lua_fair_duration_ms;
  o.shrink = false;
  o.keep_going = true;
  CampaignWorker lua;
  CampaignWorker live;
  try {
    lua.checked = std::make_unique<LuaBackendSource>(pack);
    auto source = std::make_unique<cli::LiveBackendSource>(pack);
    source->start(1);  // before the clock starts, as a live campaign's workers do
    live.checked = std::move(source);
  } catch (const RedisError& e) {
    report->set_null("lua_vs_live_fair_campaign", std::string("no live redis-server on the virtual clock: ") + e.what());
    return;
  }
  double lua_s = 0, live_s = 0;
  uint64_t lua_events = 0, live_events = 0;
  for (int i = 0; i < sizes.lua_fair_seeds; ++i) {
    o.scenario.seed = static_cast<uint64_t>(1 + i);
    const Scenario tmpl = campaign_template(o);
    const double l = campaign_seed_s(tmpl, o, lua, &lua_events);
    const double v = campaign_seed_s(tmpl, o, live, &live_events);
    lua_s += l;
    live_s += v;
  }
  char detail[320];
  std::snprintf(detail, sizeof detail,
                "campaign --profile safe --lock fair --duration-ms %lld, seeds 1-%d one at a time: lua %.2f seeds/s "
                "(%.2f s), live %.2f seeds/s (%.2f s), %llu events each side",
                static_cast<long long>(o.scenario.duration_ms), sizes.lua_fair_seeds, sizes.lua_fair_seeds / lua_s, lua_s,
                sizes.lua_fair_seeds / live_s, live_s, static_cast<unsigned long long>(lua_events));
  if (lua_events != live_events) {
    report->set_null("lua_vs_live_fair_campaign",
                     "the lua and live campaigns checked different numbers of events (" + std::to_string(lua_events) +
                         " vs " + std::to_string(live_events) + "): not the same runs");
    return;
  }
  report->set("lua_vs_live_fair_campaign", live_s / lua_s, detail);
}

}  // namespace locksim
