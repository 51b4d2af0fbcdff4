#include "properties/mutant_suite.h"

#include <chrono>

#include "impl/client_mutant.h"
#include "model/variant.h"
#include "properties/scenario_check.h"
#include "properties/shrink.h"

namespace locksim {

namespace {

CampaignOptions tmpl(const std::string& lock_kind, const std::string& profile) {
  CampaignOptions o;
  o.lock_kind = lock_kind;
  o.profile = profile;
  o.clients = 4;
  o.duration_ms = 60'000;
  return o;
}

// The workload that exposes each mutant. Most show without any fault; the
// ones that need a non-owner to act on a lock (stale renewals, releases of
// an expired hold) need holders paused past their lease; the stale-purge
// mutant needs waiters that vanish without acquire_failed (lost replies).
CampaignOptions template_for(const std::string& name) {
  if (name == "renew_no_owner_check" || name == "release_no_owner_check") return tmpl("rlock", "pauses");
  if (name == "fair_no_stale_purge") return tmpl("fair", "safe");
  if (name == "fair_giveup_no_acquire_failed" || name == "fair_same_deadline") return tmpl("fair", "none");
  return tmpl("rlock", "none");
}

}  // namespace

std::vector<MutantSpec> mutant_specs() {
  std::vector<MutantSpec> out;
  for (ClientMutant m : all_client_mutants()) {
    if (m == ClientMutant::None) continue;
    const std::string name(client_mutant_name(m));
    CampaignOptions o = template_for(name);
    o.mutant = name;
    out.push_back(MutantSpec{name, true, o});
  }
  for (ModelVariant v : all_variants()) {
    if (v == ModelVariant::Correct) continue;
    const std::string name(variant_name(v));
    CampaignOptions o = template_for(name);
    o.mutant = name;
    out.push_back(MutantSpec{name, false, o});
  }
  return out;
}

MutantResult run_mutant(const MutantSpec& spec, int max_seeds, bool shrink) {
  // After the first catching seed, up to this many more catching seeds are
  // shrunk too and the shortest counterexample kept (shrinking is a local
  // search; different starting histories reach different minima).
  constexpr int kExtraCatches = 4;
  constexpr int kExtraSeeds = 40;
  const auto started = std::chrono::steady_clock::now();
  MutantResult r;
  r.name = spec.name;
  const CheckConfig cfg = default_check_config();
  const Scenario base = campaign_template(spec.tmpl);
  int extra_catches = 0;
  int first_catch = -1;
  for (int i = 0; i < max_seeds; ++i) {
    if (first_catch >= 0 && (!shrink || extra_catches >= kExtraCatches || i > first_catch + kExtraSeeds)) break;
    Scenario s = base;
    s.seed = base.seed + static_cast<uint64_t>(i);
    if (first_catch < 0) r.seeds = i + 1;
    const ScenarioVerdict verdict = check_scenario(s, cfg);
    for (const Violation& v : verdict.violations) {
      if (!v.blamed_fault.empty()) continue;  // the profile's own doing
      if (first_catch >= 0) extra_catches++;
      if (first_catch < 0) {
        first_catch = i;
        r.caught = true;
        r.property = v.property;
        r.violation = v.to_string();
        r.counterexample_events = v.detected_at_event + 1;
      }
      if (shrink) {
        Counterexample cx = shrink_scenario(s, v, cfg, /*blame_mutant=*/true);
        if (!r.counterexample || cx.events.size() < r.counterexample_events) {
          r.counterexample_events = cx.events.size();
          r.property = cx.violation.property;
          r.violation = cx.violation.to_string();
          r.counterexample = std::move(cx);
        }
      }
      break;
    }
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

nlohmann::json mutant_results_to_json(const std::vector<MutantResult>& results) {
  nlohmann::json list = nlohmann::json::array();
  for (const MutantResult& r : results) {
    nlohmann::json j;
    j["name"] = r.name;
    j["caught"] = r.caught;
    j["property"] = r.caught ? nlohmann::json(r.property) : nlohmann::json(nullptr);
    j["seeds"] = r.seeds;
    j["wall_s"] = r.wall_s;
    j["counterexample_events"] = r.counterexample_events;
    list.push_back(j);
  }
  return nlohmann::json{{"mutants", list}};
}

}  // namespace locksim
