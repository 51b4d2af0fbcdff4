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

std::string failure_trace_file(uint64_t seed) { return "failures/" + std::to_string(seed) + ".jsonl"; }

std::string shrunk_trace_file(uint64_t seed, const std::string& property, size_t nth) {
  return "failures/" + std::to_string(seed) + (nth == 0 ? "" : "." + property) + ".shrunk.jsonl";
}

std::string timeline_file(uint64_t seed, const std::string& property, size_t nth) {
  return "timelines/" + std::to_string(seed) + (nth == 0 ? "" : "." + property) + ".svg";
}

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
  c["base_seed"] = o.base_seed;
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
void append_failures(json& out, const SeedFailure& f, bool drawn) {
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
      e["blamed"] = first->blamed_fault;
      e["cause"] = cause_to_json(first->cause);
      e["violations"] = violations;
      e["unexplained"] = unexplained;
    }
    e["trace"] = trace;
    e["reproduce"] = "locksim replay " + trace;
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
                           double wall_s) {
  json s = json::object();
  s["format"] = kRunSummaryFormat;
  s["version"] = kRunSummaryVersion;
  s["build"] = std::string(trace_build_id());
  s["command"] = command;
  s["configuration"] = campaign_configuration_json(o, r.scenario, r.backend);
  s["shard"] = {{"index", o.shard_index}, {"count", o.shard_count}};
  json failures = json::array();
  for (size_t j = 0; j < r.failures.size(); ++j) {
    append_failures(failures, r.failures[j], j < static_cast<size_t>(std::max(0, o.shrink_seeds)));
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

namespace {

// Reads the fields of an untrusted summary, naming the file and the
// field's path in every complaint ("s0/summary.json: failures[0].seed:
// expected a non-negative integer, got \"22\"").
class SummaryFields {
 public:
  explicit SummaryFields(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw std::runtime_error(name_ + ": " + path + ": " + what);
  }
  const json& at(const json& object, const std::string& path, const char* key) const {
    if (!object.is_object()) fail(path, "expected an object, got " + describe_json_value(object));
    const auto it = object.find(key);
    if (it == object.end()) fail(join(path, key), "missing");
    return *it;
  }
  const json& object(const json& object, const std::string& path, const char* key) const {
    const json& v = at(object, path, key);
    if (!v.is_object()) fail(join(path, key), "expected an object, got " + describe_json_value(v));
    return v;
  }
  uint64_t count(const json& v, const std::string& path, uint64_t max = UINT64_MAX) const {
    if (!v.is_number_unsigned()) fail(path, "expected a non-negative integer, got " + describe_json_value(v));
    const uint64_t n = v.get<uint64_t>();
    if (n > max) fail(path, std::to_string(n) + " is more than " + std::to_string(max));
    return n;
  }
  uint64_t count(const json& object, const std::string& path, const char* key, uint64_t max = UINT64_MAX) const {
    return count(at(object, path, key), join(path, key), max);
  }
  const std::string& text(const json& object, const std::string& path, const char* key) const {
    const json& v = at(object, path, key);
    if (!v.is_string()) fail(join(path, key), "expected a string, got " + describe_json_value(v));
    return v.get_ref<const std::string&>();
  }
  bool flag(const json& object, const std::string& path, const char* key) const {
    const json& v = at(object, path, key);
    if (!v.is_boolean()) fail(join(path, key), "expected true or false, got " + describe_json_value(v));
    return v.get<bool>();
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string name_;
};

bool is_summary_property(const std::string& name) {
  if (name == kDivergenceProperty) return true;
  for (const std::string& p : all_properties())
    if (p == name) return true;
  return false;
}

}  // namespace

void mark_timelines_not_drawn(json& summary, const std::string& why) {
  summary["timelines_not_drawn"] = why;
  for (json& f : summary["failures"]) f["timeline"] = nullptr;
}

void check_summary_json(const json& s, const std::string& name) {
  if (!s.is_object() || s.value("format", json()) != kRunSummaryFormat) {
    throw std::runtime_error(name + ": not a locksim campaign summary (no \"format\":\"" +
                             std::string(kRunSummaryFormat) + "\")");
  }
  if (s.value("version", json()) != kRunSummaryVersion) {
    throw std::runtime_error(name + ": unsupported summary version " + describe_json_value(s.value("version", json())) +
                             " (this build reads version " + std::to_string(kRunSummaryVersion) + ")");
  }
  const SummaryFields f(name);
  f.text(s, "", "build");
  f.text(s, "", "command");
  // configuration: the seed space.
  const json& config = f.object(s, "", "configuration");
  const uint64_t seeds = f.count(config, "configuration", "seeds", 100'000'000);
  if (seeds == 0) f.fail("configuration.seeds", "0 seeds");
  const uint64_t base_seed = f.count(config, "configuration", "base_seed");
  if (base_seed > UINT64_MAX - (seeds - 1)) f.fail("configuration.base_seed", "the last seed would pass 2^64-1");
  f.text(config, "configuration", "backend");
  f.object(config, "configuration", "scenario");
  f.flag(config, "configuration", "keep_going");
  f.flag(config, "configuration", "shrink");
  f.count(config, "configuration", "shrink_seeds", kMaxShrinkSeeds);
  f.flag(config, "configuration", "unexplained_only");
  f.flag(config, "configuration", "fail_vacuous");
  const json& checked = f.at(config, "configuration", "properties");
  if (!checked.is_array() || checked.empty())
    f.fail("configuration.properties", "expected a non-empty array, got " + describe_json_value(checked));
  for (size_t i = 0; i < checked.size(); ++i) {
    if (!checked[i].is_string() || !is_summary_property(checked[i].get<std::string>()))
      f.fail("configuration.properties[" + std::to_string(i) + "]", "not a property: " + describe_json_value(checked[i]));
  }
  const json& fail_on = f.at(config, "configuration", "fail_on");
  if (!fail_on.is_array()) f.fail("configuration.fail_on", "expected an array, got " + describe_json_value(fail_on));
  for (size_t i = 0; i < fail_on.size(); ++i) {
    if (!fail_on[i].is_string() || !is_summary_property(fail_on[i].get<std::string>())) {
      f.fail("configuration.fail_on[" + std::to_string(i) + "]", "not a property: " + describe_json_value(fail_on[i]));
    }
  }
  if (s.contains("timelines_not_drawn")) f.text(s, "", "timelines_not_drawn");
  // shard: which seeds this directory holds (null once merged).
  const json& shard = f.at(s, "", "shard");
  uint64_t shard_index = 0, shard_count = 1;
  if (!shard.is_null()) {
    if (!shard.is_object()) f.fail("shard", "expected an object or null, got " + describe_json_value(shard));
    shard_count = f.count(shard, "shard", "count", kMaxCampaignShards);
    if (shard_count == 0) f.fail("shard.count", "0 shards");
    shard_index = f.count(shard, "shard", "index", shard_count - 1);
  }
  // counts.
  const json& counts = f.object(s, "", "counts");
  const uint64_t planned = f.count(counts, "counts", "seeds_planned");
  const uint64_t expected_planned =
      static_cast<uint64_t>(shard_seed_count(static_cast<int>(seeds), static_cast<int>(shard_index), static_cast<int>(shard_count)));
  if (planned != expected_planned) {
    f.fail("counts.seeds_planned", std::to_string(planned) + ", but " + (shard.is_null() ? "the campaign" : "this shard") +
                                       " has " + std::to_string(expected_planned) + " seeds");
  }
  const uint64_t run = f.count(counts, "counts", "seeds_run", planned);
  const uint64_t seeds_failed = f.count(counts, "counts", "seeds_failed", run);
  f.count(counts, "counts", "events_checked");
  f.count(counts, "counts", "simulated_us", INT64_MAX);
  const uint64_t operations_ok = f.count(counts, "counts", "operations_ok");
  f.count(counts, "counts", "script_errors");
  if (f.flag(s, "", "vacuous") != (run > 0 && operations_ok == 0)) {
    f.fail("vacuous", "does not agree with counts.operations_ok and counts.seeds_run");
  }
  // results: the three kinds of result.
  const json& results = f.object(s, "", "results");
  const uint64_t explained = f.count(results, "results", "explained");
  f.count(results, "results", "unexplained");
  f.count(results, "results", "advisory");
  f.count(results, "results", "unexplained_seeds", run);
  f.count(results, "results", "explained_seeds", run);
  if (f.count(results, "results", "set_aside", explained) != 0 && !f.flag(config, "configuration", "unexplained_only"))
    f.fail("results.set_aside", "explained violations set aside without unexplained_only");
  uint64_t by_kind = 0;
  for (const auto& [kind, n] : f.object(results, "results", "explained_by_kind").items()) {
    by_kind += f.count(n, "results.explained_by_kind." + kind.substr(0, 40));
    if (by_kind > explained) f.fail("results.explained_by_kind", "counts more than results.explained");
  }
  if (by_kind != explained) f.fail("results.explained_by_kind", "does not add up to results.explained");
  // properties.
  for (const auto& [property, p] : f.object(s, "", "properties").items()) {
    const std::string path = "properties." + property;
    if (!is_summary_property(property)) f.fail(path, "not a property");
    const std::string& result = f.text(p, path, "result");
    if (result != "pass" && result != "fail" && result != "advisory" && result != "not checked") {
      f.fail(path + ".result", "unknown result \"" + result.substr(0, 40) + "\"");
    }
    f.count(p, path, "seeds", run);
    f.count(p, path, "violations");
  }
  // failures: in seed order, each (seed, property) once, each seed of this
  // directory's slice, each file name one a campaign writes.
  const json& failures = f.at(s, "", "failures");
  if (!failures.is_array()) f.fail("failures", "expected an array, got " + describe_json_value(failures));
  f.count(counts, "counts", "failures");
  if (counts["failures"].get<uint64_t>() != failures.size()) {
    f.fail("counts.failures", counts["failures"].dump() + ", but \"failures\" lists " + std::to_string(failures.size()));
  }
  std::set<std::pair<uint64_t, std::string>> seen;
  std::set<uint64_t> failing_seeds;
  uint64_t previous_seed = 0;
  for (size_t i = 0; i < failures.size(); ++i) {
    const json& e = failures[i];
    const std::string path = "failures[" + std::to_string(i) + "]";
    const uint64_t seed = f.count(e, path, "seed");
    if (seed < base_seed || seed - base_seed >= seeds) {
      f.fail(path + ".seed", std::to_string(seed) + " is not one of the campaign's seeds (" + std::to_string(base_seed) +
                                 " to " + std::to_string(base_seed + seeds - 1) + ")");
    }
    if ((seed - base_seed) % shard_count != shard_index) {
      f.fail(path + ".seed", std::to_string(seed) + " belongs to shard " + std::to_string((seed - base_seed) % shard_count) +
                                 "/" + std::to_string(shard_count) + ", not this one");
    }
    if (seed < previous_seed) f.fail(path + ".seed", "failures are not in seed order");
    previous_seed = seed;
    const std::string& property = f.text(e, path, "property");
    if (!is_summary_property(property)) f.fail(path + ".property", "not a property: \"" + property.substr(0, 40) + "\"");
    if (!seen.insert({seed, property}).second) f.fail(path, "seed " + std::to_string(seed) + " and " + property + " listed twice");
    failing_seeds.insert(seed);
    f.text(e, path, "explanation");
    f.text(e, path, "blamed");
    const uint64_t violations = f.count(e, path, "violations");
    f.count(e, path, "unexplained", violations);
    const json& cause = f.at(e, path, "cause");
    if (!cause.is_null()) {
      f.flag(cause, path + ".cause", "confirmed");
      f.count(cause, path + ".cause", "reruns");
      f.text(cause, path + ".cause", "status");
      f.text(cause, path + ".cause", "kind");
      const json& faults = f.at(cause, path + ".cause", "faults");
      if (!faults.is_array()) f.fail(path + ".cause.faults", "expected an array, got " + describe_json_value(faults));
    }
    const std::string& trace = f.text(e, path, "trace");
    if (!is_failure_file_name("trace", trace, seed, property)) {
      f.fail(path + ".trace", "\"" + trace.substr(0, 80) + "\" is not " + failure_trace_file(seed));
    }
    for (const char* key : {"shrunk_trace", "timeline"}) {
      const json& v = f.at(e, path, key);
      if (v.is_null()) continue;
      if (!v.is_string() || !is_failure_file_name(key, v.get<std::string>(), seed, property)) {
        f.fail(path + "." + key, describe_json_value(v, 80) + " is not a name a campaign writes for seed " +
                                     std::to_string(seed) + " and " + property);
      }
    }
    const json& cx = f.at(e, path, "counterexample");
    if (!cx.is_null()) {
      const std::string cx_path = path + ".counterexample";
      const std::string& cx_trace = f.text(cx, cx_path, "trace");
      if (!is_failure_file_name("counterexample_trace", cx_trace, seed, property)) {
        f.fail(cx_path + ".trace", "\"" + cx_trace.substr(0, 80) + "\" is not a name a campaign writes");
      }
      f.count(cx, cx_path, "events");
      f.text(cx, cx_path, "violation");
      const json& ids = f.at(cx, cx_path, "event_ids");
      if (!ids.is_array()) f.fail(cx_path + ".event_ids", "expected an array, got " + describe_json_value(ids));
      for (size_t k = 0; k < ids.size(); ++k) f.count(ids[k], cx_path + ".event_ids[" + std::to_string(k) + "]");
    }
  }
  if (failing_seeds.size() != seeds_failed) {
    f.fail("counts.seeds_failed", std::to_string(seeds_failed) + ", but \"failures\" names " +
                                      std::to_string(failing_seeds.size()) + " seed(s)");
  }
  // advisories.
  for (const auto& [property, a] : f.object(s, "", "advisories").items()) {
    const std::string path = "advisories." + property;
    if (!is_summary_property(property)) f.fail(path, "not a property");
    f.count(a, path, "seeds", run);
    f.count(a, path, "reports");
    const uint64_t first = f.count(a, path, "first_seed");
    if (first < base_seed || first - base_seed >= seeds) f.fail(path + ".first_seed", "not one of the campaign's seeds");
    f.text(a, path, "first_report");
  }
  if (s.contains("coverage")) {
    // The counts and firsts of the seeds of this directory's slice.
    const Coverage c = Coverage::from_json(s["coverage"], name, run);
    for (const auto* hits : {&c.items(), &c.states()}) {
      for (const auto& [item, h] : *hits) {
        if (h.first < base_seed || h.first - base_seed >= seeds || (h.first - base_seed) % shard_count != shard_index) {
          f.fail("coverage." + item.substr(0, 80) + ".first",
                 std::to_string(h.first) + " is not one of this directory's seeds");
        }
      }
    }
    if (c.runs() != run) f.fail("coverage.runs", std::to_string(c.runs()) + ", but counts.seeds_run is " + std::to_string(run));
  }
  if (s.contains("merged_from")) {
    const json& from = s["merged_from"];
    if (!from.is_array()) f.fail("merged_from", "expected an array, got " + describe_json_value(from));
    for (size_t i = 0; i < from.size(); ++i)
      if (!from[i].is_string()) f.fail("merged_from[" + std::to_string(i) + "]", "expected a string");
  }
}

}  // namespace locksim
