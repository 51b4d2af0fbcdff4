#include "properties/campaign.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "impl/client_mutant.h"
#include "impl/script_pack.h"
#include "model/variant.h"
#include "properties/scenario_check.h"
#include "properties/shrink.h"
#include "sim/run.h"

namespace locksim {

Scenario campaign_template(const CampaignOptions& o) {
  Scenario s;
  s.seed = o.base_seed;
  s.clients = o.clients;
  s.locks = o.locks;
  s.lock_kind = o.lock_kind;
  s.duration_ms = o.duration_ms;
  s.profile = o.profile;
  if (!o.mutant.empty() && o.mutant != "none") {
    if (client_mutant_from_name(o.mutant)) {
      s.mutant = o.mutant;
    } else if (auto d = variant_from_name(o.mutant); d && is_design_variant(*d)) {
      throw ScenarioError("'" + o.mutant + "' is a design variant, not a mutant: run it with --scripts impl/variants/" +
                          o.mutant);
    } else if (auto v = variant_from_name(o.mutant); v && *v != ModelVariant::Correct) {
      s.model_variant = o.mutant;
      // Name the mutant's script pack too, so that a trace of this scenario
      // says which scripts ran and `locksim replay` resolves the same variant.
      const std::filesystem::path pack =
          std::filesystem::path(ScriptPack::default_dir()).parent_path() / "mutants" / o.mutant;
      if (o.scripts.empty() && std::filesystem::is_directory(pack)) s.scripts = pack.string();
    } else {
      std::string names;
      for (auto m : all_client_mutants())
        if (m != ClientMutant::None) names += std::string(names.empty() ? "" : ", ") + std::string(client_mutant_name(m));
      for (auto v2 : mutant_variants()) names += ", " + std::string(variant_name(v2));
      throw ScenarioError("unknown mutant '" + o.mutant + "' (" + names + ")");
    }
  }
  if (!o.scripts.empty()) {
    // A campaign runs on the model, never the pack's Lua: the model must be
    // able to stand for the pack, exactly as for `locksim run --backend model`.
    const std::string mutant_variant = s.model_variant;
    s.scripts = o.scripts;
    try {
      resolve_scenario_scripts(&s, "model");
    } catch (const ScriptPackError& e) {
      throw ScenarioError(std::string("bad script pack: ") + e.what());
    }
    if (mutant_variant != "correct" && s.model_variant != mutant_variant)
      throw ScenarioError("--scripts pack models '" + s.model_variant + "' but --mutant is '" + mutant_variant + "'");
  }
  validate_scenario(s);
  return s;
}

CampaignResult run_campaign(const Scenario& tmpl, const CampaignOptions& options, const CampaignProgress& progress,
                            const CheckConfig* config) {
  const CheckConfig cfg = config ? *config : default_check_config();
  CampaignResult r;
  r.scenario = tmpl;
  for (int i = 0; i < options.seeds; ++i) {
    Scenario s = tmpl;
    s.seed = tmpl.seed + static_cast<uint64_t>(i);
    ScenarioVerdict verdict = check_scenario(s, cfg);
    r.seeds_run = i + 1;
    r.events_checked += verdict.summary.events;
    if (progress) progress(i + 1, options.seeds);
    std::set<std::string> advisory_seen;
    for (const Violation& v : verdict.violations) {
      if (options.policy.fail_on.count(v.property) != 0 || !is_advisory_property(v.property)) continue;
      AdvisoryCount& a = r.advisories[v.property];
      if (advisory_seen.insert(v.property).second) ++a.seeds;
      if (a.reports++ == 0) {
        a.first_seed = s.seed;
        a.first_report = v.to_string();
      }
    }
    std::vector<Violation> failing = failing_violations(verdict.violations, options.policy);
    if (failing.empty()) continue;
    SeedFailure f;
    f.seed = s.seed;
    f.events = verdict.summary.events;
    f.violations = std::move(failing);
    if (options.shrink && r.failures.empty()) {
      // Each violated property on its own: the first violation of each.
      std::set<std::string> shrunk_properties;
      for (const Violation& v : f.violations) {
        if (!shrunk_properties.insert(v.property).second) continue;
        f.shrunk.push_back(shrink_scenario(s, v, cfg));
      }
    }
    r.failures.push_back(std::move(f));
    if (!options.keep_going) break;
  }
  return r;
}

std::string format_event(const Event& e) {
  char head[64];
  std::snprintf(head, sizeof head, "#%-4llu %10.3fs ", static_cast<unsigned long long>(e.id),
                static_cast<double>(e.true_us) / 1e6);
  std::string out = head;
  out += std::string(event_kind_name(e.kind));
  if (e.client >= 0) out += " c" + std::to_string(e.client);
  if (e.kind == EventKind::Fault) {
    out += " " + e.op + " target=" + std::to_string(e.target);
    if (e.duration_ms != 0) out += " " + format_ms(e.duration_ms);
    return out;
  }
  if (!e.op.empty() && e.kind != EventKind::Script) out += " " + e.op;
  if (e.kind == EventKind::Script) out += " " + e.script + " -> " + e.reply;
  if (!e.owner.empty()) out += " owner=" + e.owner;
  if (!e.lock.empty()) out += " lock=" + e.lock;
  if (e.op_id != 0) out += " op=" + std::to_string(e.op_id);
  if (e.kind == EventKind::Invoke) {
    if (e.wait_ms >= 0) out += " wait=" + std::to_string(e.wait_ms);
    if (e.lease_ms >= 0) out += " lease=" + std::to_string(e.lease_ms);
  }
  if (e.kind == EventKind::Ok || e.kind == EventKind::Fail) out += " value=" + std::to_string(e.value);
  if (e.kind == EventKind::Script) {
    out += " holders=[";
    for (size_t i = 0; i < e.holders_after.size(); ++i) out += (i ? "," : "") + e.holders_after[i];
    out += "]";
  }
  if (!e.detail.empty()) out += " (" + e.detail + ")";
  return out;
}

namespace {

nlohmann::json counterexample_to_json(const Counterexample& cx) {
  nlohmann::json events = nlohmann::json::array();
  for (const Event& e : cx.events) events.push_back(format_event(e));
  return {{"events", cx.events.size()},
          {"property", cx.violation.property},
          {"violation", cx.violation.to_string()},
          {"blamed_fault", cx.violation.blamed_fault},
          {"history", events}};
}

// Long counterexamples: the first and last 30 events, plus the evidence.
void append_counterexample(std::string& out, const Counterexample& cx) {
  const auto& events = cx.events;
  out += "  shrunk counterexample for " + cx.violation.property + " (" + std::to_string(events.size()) +
         " events):\n";
  const auto& evidence = cx.violation.event_ids;
  size_t elided = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const bool edge = i < 30 || i + 30 >= events.size();
    const bool cited = std::find(evidence.begin(), evidence.end(), events[i].id) != evidence.end();
    if (!edge && !cited) { ++elided; continue; }
    if (elided > 0) { out += "    ... " + std::to_string(elided) + " events elided ...\n"; elided = 0; }
    out += "    " + format_event(events[i]) + "\n";
  }
  out += "  violation: " + cx.violation.to_string() + "\n";
}

}  // namespace

nlohmann::json seed_failure_to_json(const SeedFailure& f) {
  nlohmann::json j;
  j["seed"] = f.seed;
  j["events"] = f.events;
  j["violations"] = nlohmann::json::array();
  for (const Violation& v : f.violations) j["violations"].push_back(violation_to_json(v));
  if (!f.shrunk.empty()) {
    j["counterexamples"] = nlohmann::json::array();
    for (const Counterexample& cx : f.shrunk) j["counterexamples"].push_back(counterexample_to_json(cx));
  }
  return j;
}

nlohmann::json campaign_result_to_json(const CampaignResult& r) {
  nlohmann::json j;
  j["scenario"] = scenario_to_json(r.scenario);
  j["seeds_run"] = r.seeds_run;
  j["events_checked"] = r.events_checked;
  j["ok"] = !r.failed();
  j["failures"] = nlohmann::json::array();
  for (const SeedFailure& f : r.failures) j["failures"].push_back(seed_failure_to_json(f));
  j["advisories"] = nlohmann::json::object();
  for (const auto& [name, a] : r.advisories)
    j["advisories"][name] = {{"seeds", a.seeds}, {"reports", a.reports}, {"first_seed", a.first_seed},
                             {"first_report", a.first_report}};
  return j;
}

std::string format_campaign_result(const CampaignResult& r) {
  std::string out;
  for (const auto& [name, a] : r.advisories) {
    out += name + " (advisory, not failing; --fail-on " + name + " makes it fail): " + std::to_string(a.reports) +
           " report(s) in " + std::to_string(a.seeds) + " seed(s); first at seed " + std::to_string(a.first_seed) +
           ": " + a.first_report + "\n";
  }
  if (!r.failed()) {
    out += "ok: " + std::to_string(r.seeds_run) + " seeds, " + std::to_string(r.events_checked) +
           " events, no property failed\n";
    return out;
  }
  for (const SeedFailure& f : r.failures) {
    out += "FAILED at seed " + std::to_string(f.seed) + " (" + std::to_string(f.events) + " events): " +
           std::to_string(f.violations.size()) + " violation(s)\n";
    for (const Violation& v : f.violations) out += "  violation: " + v.to_string() + "\n";
    for (const Counterexample& cx : f.shrunk) append_counterexample(out, cx);
  }
  out += "failed: " + std::to_string(r.failures.size()) + " of " + std::to_string(r.seeds_run) + " seeds\n";
  return out;
}

}  // namespace locksim
