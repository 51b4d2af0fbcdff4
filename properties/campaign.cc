#include "properties/campaign.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "impl/client_mutant.h"
#include "impl/script_pack.h"
#include "model/variant.h"
#include "properties/scenario_check.h"
#include "properties/shrink.h"

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
      for (auto v2 : all_variants())
        if (v2 != ModelVariant::Correct) names += ", " + std::string(variant_name(v2));
      throw ScenarioError("unknown mutant '" + o.mutant + "' (" + names + ")");
    }
  }
  if (!o.scripts.empty()) {
    try {
      ScriptPack pack = ScriptPack::load(o.scripts);
      s.scripts = o.scripts;
      if (auto v = pack.model_variant()) {
        if (s.model_variant != "correct" && s.model_variant != variant_name(*v))
          throw ScenarioError("--scripts pack models '" + std::string(variant_name(*v)) + "' but --mutant is '" +
                              s.model_variant + "'");
        s.model_variant = std::string(variant_name(*v));
      }
    } catch (const ScriptPackError& e) {
      throw ScenarioError(std::string("bad script pack: ") + e.what());
    }
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
    if (verdict.ok()) continue;
    r.failing_seed = s.seed;
    r.violation = verdict.violations.front();
    r.failing_events = verdict.summary.events;
    if (options.shrink) r.shrunk = shrink_scenario(s, *r.violation, cfg);
    break;
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

nlohmann::json campaign_result_to_json(const CampaignResult& r) {
  nlohmann::json j;
  j["scenario"] = scenario_to_json(r.scenario);
  j["seeds_run"] = r.seeds_run;
  j["events_checked"] = r.events_checked;
  j["ok"] = !r.failed();
  if (r.failed()) {
    j["failing_seed"] = *r.failing_seed;
    j["failing_events"] = r.failing_events;
    j["violation"] = {{"property", r.violation->property},
                      {"lock", r.violation->lock},
                      {"message", r.violation->message},
                      {"event_ids", r.violation->event_ids},
                      {"true_us", r.violation->true_us},
                      {"owners", r.violation->owners},
                      {"blamed_fault", r.violation->blamed_fault}};
    if (r.shrunk) {
      nlohmann::json events = nlohmann::json::array();
      for (const Event& e : r.shrunk->events) events.push_back(format_event(e));
      j["counterexample"] = {{"events", r.shrunk->events.size()},
                             {"violation", r.shrunk->violation.to_string()},
                             {"blamed_fault", r.shrunk->violation.blamed_fault},
                             {"history", events}};
    }
  }
  return j;
}

std::string format_campaign_result(const CampaignResult& r) {
  std::string out;
  if (!r.failed()) {
    out += "ok: " + std::to_string(r.seeds_run) + " seeds, " + std::to_string(r.events_checked) +
           " events, no property failed\n";
    return out;
  }
  out += "FAILED at seed " + std::to_string(*r.failing_seed) + " (" + std::to_string(r.failing_events) +
         " events, after " + std::to_string(r.seeds_run) + " seeds)\n";
  out += "violation: " + r.violation->to_string() + "\n";
  if (r.shrunk) {
    const auto& events = r.shrunk->events;
    out += "shrunk counterexample (" + std::to_string(events.size()) + " events):\n";
    // Long counterexamples: the first and last 30 events, plus the evidence.
    const auto& evidence = r.shrunk->violation.event_ids;
    size_t elided = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      const bool edge = i < 30 || i + 30 >= events.size();
      const bool cited = std::find(evidence.begin(), evidence.end(), events[i].id) != evidence.end();
      if (!edge && !cited) { ++elided; continue; }
      if (elided > 0) { out += "  ... " + std::to_string(elided) + " events elided ...\n"; elided = 0; }
      out += "  " + format_event(events[i]) + "\n";
    }
    out += "violation: " + r.shrunk->violation.to_string() + "\n";
  }
  return out;
}

}  // namespace locksim
