#include "reports/campaign_text.h"
#include "reports/run_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "search/shrink_divergence.h"
#include "reports/run_files.h"
#include "traces/bounded_json.h"
#include "traces/trace_format.h"

namespace locksim {

using nlohmann::json;

std::vector<std::string> violated_properties(const SeedFailure& f) {
  std::vector<std::string> order;
  if (f.divergence) order.push_back(kDivergenceProperty);
  for (const Violation& v : f.violations) {
    if (std::find(order.begin(), order.end(), v.property) == order.end()) order.push_back(v.property);
  }
  return order;
}

const Counterexample* counterexample_for(const SeedFailure& f, const std::string& property) {
  for (const Counterexample& cx : f.shrunk)
    if (cx.violation.property == property) return &cx;
  return nullptr;
}

bool has_timeline(const SeedFailure& f, const std::string& property) {
  return property != kDivergenceProperty || counterexample_for(f, property) != nullptr;
}

json campaign_configuration_json(const CampaignOptions& o, const Scenario& tmpl, const std::string& backend) {
  json c = json::object();
  c["seeds"] = o.seeds;
  c["base_seed"] = o.scenario.seed;
  c["backend"] = backend;
  if (!o.reference_scripts.empty()) c["reference_scripts"] = o.reference_scripts;
  c["scenario"] = scenario_to_json(tmpl);
  c["keep_going"] = o.keep_going;
  c["shrink"] = o.shrink;
  c["shrink_seeds"] = o.shrink_seeds;
  c["properties"] = o.properties.names();  // checked, in checker order
  c["fail_on"] = o.policy.fail_on;  // a std::set: sorted
  c["unexplained_only"] = o.policy.unexplained_only;
  c["fail_vacuous"] = o.policy.fail_vacuous;
  if (o.guided) {
    c["guided"] = {{"corpus", o.guided_corpus_digest.empty() ? json() : json(o.guided_corpus_digest)}};
  }
  return c;
}

namespace {

// One failure entry per (seed, property) of a failing seed, in the order of
// violated_properties(): the divergence first, then the properties in the
// order they were first violated.
void append_failures(json& out, const SeedFailure& f, bool drawn, const std::string& program) {
  const std::string trace = failure_trace_file(f.seed);
  const std::vector<std::string> order = violated_properties(f);
  for (size_t nth = 0; nth < order.size(); ++nth) {
    const std::string& property = order[nth];
    json e = json::object();
    e["seed"] = f.seed;
    e["property"] = property;
    if (property == kDivergenceProperty) {
      e["explanation"] = "the " + f.divergence->actual_backend + " history differs from the " +
                         f.divergence->expected_backend + "'s at event " + std::to_string(f.divergence->index) +
                         ": " + f.divergence->expected_backend + " " + f.divergence->expected_line + " vs " +
                         f.divergence->actual_backend + " " + f.divergence->actual_line;
      e["blamed"] = "";
      e["cause"] = nullptr;
      e["violations"] = 1;
      e["unexplained"] = 1;
      e["divergence"] = {{"event", f.divergence->index},
                         {f.divergence->expected_backend, f.divergence->expected_line},
                         {f.divergence->actual_backend, f.divergence->actual_line}};
    } else {
      const Violation* first = nullptr;
      int violations = 0, unexplained = 0;
      for (const Violation& v : f.violations) {
        if (v.property != property) continue;
        if (first == nullptr) first = &v;
        ++violations;
        unexplained += !v.explained();
      }
      e["explanation"] = first->to_string();
      e["blamed"] = first->stated_blame();
      e["cause"] = cause_to_json(first->cause);
      e["violations"] = violations;
      e["unexplained"] = unexplained;
    }
    e["trace"] = trace;
    e["reproduce"] = program + " replay " + trace;
    e["shrunk_trace"] = nullptr;
    e["timeline"] = drawn && has_timeline(f, property) ? json(timeline_file(f.seed, property, nth)) : json();
    e["counterexample"] = nullptr;
    if (const Counterexample* cx = counterexample_for(f, property)) {
      const std::string cx_trace = cx->plan ? shrunk_trace_file(f.seed, property, nth) : trace;
      if (cx->plan) e["shrunk_trace"] = cx_trace;
      e["counterexample"] = {{"trace", cx_trace},
                             {"events", cx->events.size()},
                             {"extent", counterexample_extent(*cx)},
                             {"violation", cx->violation.to_string()},
                             {"event_ids", cx->violation.event_ids},
                             {"also_violates", cx->other_properties}};
    }
    out.push_back(std::move(e));
  }
}

}  // namespace

json campaign_summary_json(const CampaignOptions& o, const CampaignResult& r, const std::string& command,
                           double wall_s, const std::string& program) {
  json s = json::object();
  s["format"] = kRunSummaryFormat;
  s["version"] = kRunSummaryVersion;
  s["build"] = std::string(trace_build_id());
  s["command"] = command;
  s["configuration"] = campaign_configuration_json(o, r.scenario, r.backend);
  s["shard"] = {{"index", o.shard_index}, {"count", o.shard_count}};
  json failures = json::array();
  for (size_t j = 0; j < r.failures.size(); ++j) {
    append_failures(failures, r.failures[j], j < static_cast<size_t>(std::max(0, o.shrink_seeds)), program);
  }
  const double simulated_s = static_cast<double>(r.simulated_us) / 1e6;
  s["counts"] = {{"seeds_planned", r.seeds_planned},
                 {"seeds_run", r.seeds_run},
                 {"seeds_failed", r.failures.size()},
                 {"failures", failures.size()},
                 {"events_checked", r.events_checked},
                 {"simulated_us", r.simulated_us},
                 {"operations_ok", r.operations_ok},
                 {"script_errors", r.script_errors}};
  s["vacuous"] = r.vacuous();
  s["results"] = result_tally_to_json(r);
  // Per property: failing seeds and violations (failing ones; advisory
  // properties the policy does not fail on: their reports).
  json properties = json::object();
  for (const std::string& p : all_properties()) {
    int seeds_failed = 0, violations = 0;
    for (const SeedFailure& f : r.failures) {
      int n = 0;
      for (const Violation& v : f.violations) n += v.property == p;
      seeds_failed += n > 0;
      violations += n;
    }
    std::string result = seeds_failed > 0 ? "fail" : "pass";
    if (o.policy.fail_on.count(p) == 0) {
      auto a = r.advisories.find(p);
      seeds_failed = a == r.advisories.end() ? 0 : a->second.seeds;
      violations = a == r.advisories.end() ? 0 : a->second.reports;
      result = is_advisory_property(p) ? "advisory" : "not checked";
    }
    if (!o.properties.has(p)) result = "not checked";  // --properties, --skip-property: its checker did not run
    properties[p] = {{"result", result}, {"seeds", seeds_failed}, {"violations", violations}};
  }
  if (r.backend == "both") {
    int diverged = 0;
    for (const SeedFailure& f : r.failures) diverged += f.divergence.has_value();
    properties["divergence"] = {{"result", diverged > 0 ? "fail" : "pass"}, {"seeds", diverged}, {"violations", diverged}};
  }
  s["properties"] = std::move(properties);
  s["rates"] = {{"failing_seed_fraction",
                 r.seeds_run == 0 ? 0.0 : static_cast<double>(r.failures.size()) / r.seeds_run}};
  s["timings"] = {{"wall_s", wall_s},
                  {"seeds_per_s", wall_s > 0 ? r.seeds_run / wall_s : 0.0},
                  {"simulated_s_per_wall_s", wall_s > 0 ? simulated_s / wall_s : 0.0}};
  s["failures"] = std::move(failures);
  json advisories = json::object();
  for (const auto& [name, a] : r.advisories)
    advisories[name] = {{"seeds", a.seeds}, {"reports", a.reports}, {"first_seed", a.first_seed},
                        {"first_report", a.first_report}};
  s["advisories"] = std::move(advisories);
  s["coverage"] = r.coverage.to_json();
  return s;
}

void mark_timelines_not_drawn(json& summary, const std::string& why) {
  summary["timelines_not_drawn"] = why;
  for (json& f : summary["failures"]) f["timeline"] = nullptr;
}

}  // namespace locksim
