#include "reports/summary_check.h"

#include <set>
#include <stdexcept>

#include "properties/coverage.h"
#include "properties/violation.h"
#include "reports/run_files.h"
#include "reports/run_summary.h"
#include "search/shard_split.h"
#include "search/shrink_divergence.h"
#include "traces/bounded_json.h"

namespace locksim {

using nlohmann::json;

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

// What the sections of a summary agree on: the campaign's seed space, this
// directory's slice of it, and how many of its seeds ran and failed.
struct SummarySpace {
  uint64_t seeds = 0;
  uint64_t base_seed = 0;
  uint64_t shard_index = 0;
  uint64_t shard_count = 1;
  bool merged = true;  // shard is null
  uint64_t run = 0;
  uint64_t seeds_failed = 0;
  bool is_campaign_seed(uint64_t seed) const { return seed >= base_seed && seed - base_seed < seeds; }
};

void check_property_list(const SummaryFields& f, const json& list, const std::string& path, bool non_empty) {
  if (!list.is_array() || (non_empty && list.empty()))
    f.fail(path, std::string(non_empty ? "expected a non-empty array, got " : "expected an array, got ") +
                     describe_json_value(list));
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string() || !is_summary_property(list[i].get<std::string>()))
      f.fail(path + "[" + std::to_string(i) + "]", "not a property: " + describe_json_value(list[i]));
  }
}

// configuration: the seed space and the campaign's choices.
const json& check_configuration(const SummaryFields& f, const json& s, SummarySpace* space) {
  const json& config = f.object(s, "", "configuration");
  space->seeds = f.count(config, "configuration", "seeds", 100'000'000);
  if (space->seeds == 0) f.fail("configuration.seeds", "0 seeds");
  space->base_seed = f.count(config, "configuration", "base_seed");
  if (space->base_seed > UINT64_MAX - (space->seeds - 1))
    f.fail("configuration.base_seed", "the last seed would pass 2^64-1");
  f.text(config, "configuration", "backend");
  f.object(config, "configuration", "scenario");
  f.flag(config, "configuration", "keep_going");
  f.flag(config, "configuration", "shrink");
  f.count(config, "configuration", "shrink_seeds", kMaxShrinkSeeds);
  f.flag(config, "configuration", "unexplained_only");
  f.flag(config, "configuration", "fail_vacuous");
  check_property_list(f, f.at(config, "configuration", "properties"), "configuration.properties", true);
  check_property_list(f, f.at(config, "configuration", "fail_on"), "configuration.fail_on", false);
  return config;
}

// shard: which seeds this directory holds (null once merged).
void check_shard(const SummaryFields& f, const json& s, SummarySpace* space) {
  const json& shard = f.at(s, "", "shard");
  space->merged = shard.is_null();
  if (space->merged) return;
  if (!shard.is_object()) f.fail("shard", "expected an object or null, got " + describe_json_value(shard));
  space->shard_count = f.count(shard, "shard", "count", kMaxCampaignShards);
  if (space->shard_count == 0) f.fail("shard.count", "0 shards");
  space->shard_index = f.count(shard, "shard", "index", space->shard_count - 1);
}

const json& check_counts(const SummaryFields& f, const json& s, SummarySpace* space) {
  const json& counts = f.object(s, "", "counts");
  const uint64_t planned = f.count(counts, "counts", "seeds_planned");
  const uint64_t expected_planned = static_cast<uint64_t>(shard_seed_count(
      static_cast<int>(space->seeds), static_cast<int>(space->shard_index), static_cast<int>(space->shard_count)));
  if (planned != expected_planned) {
    f.fail("counts.seeds_planned", std::to_string(planned) + ", but " + (space->merged ? "the campaign" : "this shard") +
                                       " has " + std::to_string(expected_planned) + " seeds");
  }
  space->run = f.count(counts, "counts", "seeds_run", planned);
  space->seeds_failed = f.count(counts, "counts", "seeds_failed", space->run);
  f.count(counts, "counts", "events_checked");
  f.count(counts, "counts", "simulated_us", INT64_MAX);
  const uint64_t operations_ok = f.count(counts, "counts", "operations_ok");
  f.count(counts, "counts", "script_errors");
  if (f.flag(s, "", "vacuous") != (space->run > 0 && operations_ok == 0)) {
    f.fail("vacuous", "does not agree with counts.operations_ok and counts.seeds_run");
  }
  return counts;
}

// results: the three kinds of result; properties: each one's result.
void check_results(const SummaryFields& f, const json& s, const json& config, const SummarySpace& space) {
  const json& results = f.object(s, "", "results");
  const uint64_t explained = f.count(results, "results", "explained");
  f.count(results, "results", "unexplained");
  f.count(results, "results", "advisory");
  f.count(results, "results", "unexplained_seeds", space.run);
  f.count(results, "results", "explained_seeds", space.run);
  if (f.count(results, "results", "set_aside", explained) != 0 && !f.flag(config, "configuration", "unexplained_only"))
    f.fail("results.set_aside", "explained violations set aside without unexplained_only");
  uint64_t by_kind = 0;
  for (const auto& [kind, n] : f.object(results, "results", "explained_by_kind").items()) {
    by_kind += f.count(n, "results.explained_by_kind." + kind.substr(0, 40));
    if (by_kind > explained) f.fail("results.explained_by_kind", "counts more than results.explained");
  }
  if (by_kind != explained) f.fail("results.explained_by_kind", "does not add up to results.explained");
  for (const auto& [property, p] : f.object(s, "", "properties").items()) {
    const std::string path = "properties." + property;
    if (!is_summary_property(property)) f.fail(path, "not a property");
    const std::string& result = f.text(p, path, "result");
    if (result != "pass" && result != "fail" && result != "advisory" && result != "not checked") {
      f.fail(path + ".result", "unknown result \"" + result.substr(0, 40) + "\"");
    }
    f.count(p, path, "seeds", space.run);
    f.count(p, path, "violations");
  }
}

// A failure's seed: one of the campaign's, of this directory's slice, in order.
void check_failure_seed(const SummaryFields& f, const std::string& path, uint64_t seed, uint64_t previous_seed,
                        const SummarySpace& space) {
  if (!space.is_campaign_seed(seed)) {
    f.fail(path + ".seed", std::to_string(seed) + " is not one of the campaign's seeds (" + std::to_string(space.base_seed) +
                               " to " + std::to_string(space.base_seed + space.seeds - 1) + ")");
  }
  if ((seed - space.base_seed) % space.shard_count != space.shard_index) {
    f.fail(path + ".seed", std::to_string(seed) + " belongs to shard " +
                               std::to_string((seed - space.base_seed) % space.shard_count) + "/" +
                               std::to_string(space.shard_count) + ", not this one");
  }
  if (seed < previous_seed) f.fail(path + ".seed", "failures are not in seed order");
}

// A failure's cause, its files (each name one a campaign writes) and its counterexample.
void check_failure_files(const SummaryFields& f, const json& e, const std::string& path, uint64_t seed,
                         const std::string& property) {
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
  if (cx.is_null()) return;
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

// failures: in seed order, each (seed, property) once, each seed of this
// directory's slice, each file name one a campaign writes.
void check_failures(const SummaryFields& f, const json& s, const json& counts, const SummarySpace& space) {
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
    check_failure_seed(f, path, seed, previous_seed, space);
    previous_seed = seed;
    const std::string& property = f.text(e, path, "property");
    if (!is_summary_property(property)) f.fail(path + ".property", "not a property: \"" + property.substr(0, 40) + "\"");
    if (!seen.insert({seed, property}).second) f.fail(path, "seed " + std::to_string(seed) + " and " + property + " listed twice");
    failing_seeds.insert(seed);
    f.text(e, path, "explanation");
    f.text(e, path, "blamed");
    const uint64_t violations = f.count(e, path, "violations");
    f.count(e, path, "unexplained", violations);
    check_failure_files(f, e, path, seed, property);
  }
  if (failing_seeds.size() != space.seeds_failed) {
    f.fail("counts.seeds_failed", std::to_string(space.seeds_failed) + ", but \"failures\" names " +
                                      std::to_string(failing_seeds.size()) + " seed(s)");
  }
}

// advisories, coverage (the counts and firsts of this directory's seeds), merged_from.
void check_extras(const SummaryFields& f, const json& s, const std::string& name, const SummarySpace& space) {
  for (const auto& [property, a] : f.object(s, "", "advisories").items()) {
    const std::string path = "advisories." + property;
    if (!is_summary_property(property)) f.fail(path, "not a property");
    f.count(a, path, "seeds", space.run);
    f.count(a, path, "reports");
    const uint64_t first = f.count(a, path, "first_seed");
    if (!space.is_campaign_seed(first)) f.fail(path + ".first_seed", "not one of the campaign's seeds");
    f.text(a, path, "first_report");
  }
  if (s.contains("coverage")) {
    const Coverage c = Coverage::from_json(s["coverage"], name, space.run);
    for (const auto* hits : {&c.items(), &c.states()}) {
      for (const auto& [item, h] : *hits) {
        if (!space.is_campaign_seed(h.first) || (h.first - space.base_seed) % space.shard_count != space.shard_index) {
          f.fail("coverage." + item.substr(0, 80) + ".first",
                 std::to_string(h.first) + " is not one of this directory's seeds");
        }
      }
    }
    if (c.runs() != space.run)
      f.fail("coverage.runs", std::to_string(c.runs()) + ", but counts.seeds_run is " + std::to_string(space.run));
  }
  if (s.contains("merged_from")) {
    const json& from = s["merged_from"];
    if (!from.is_array()) f.fail("merged_from", "expected an array, got " + describe_json_value(from));
    for (size_t i = 0; i < from.size(); ++i)
      if (!from[i].is_string()) f.fail("merged_from[" + std::to_string(i) + "]", "expected a string");
  }
}

}  // namespace

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
  SummarySpace space;
  const json& config = check_configuration(f, s, &space);
  if (s.contains("timelines_not_drawn")) f.text(s, "", "timelines_not_drawn");
  check_shard(f, s, &space);
  const json& counts = check_counts(f, s, &space);
  check_results(f, s, config, space);
  check_failures(f, s, counts, space);
  check_extras(f, s, name, space);
}

}  // namespace locksim
