#include "reports/summary_merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "properties/coverage.h"
#include "reports/run_summary.h"
#include "reports/summary_check.h"

namespace locksim {

using nlohmann::json;

namespace {

std::string shard_name(const json& shard) {
  return shard["index"].dump() + "/" + shard["count"].dump();
}

// The keys of two objects whose values differ, for the message.
std::string differing_keys(const json& a, const json& b) {
  std::string out;
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  for (const std::string& k : keys) {
    const json va = a.contains(k) ? a[k] : json();
    const json vb = b.contains(k) ? b[k] : json();
    if (va != vb) out += (out.empty() ? "" : ", ") + k + " (" + va.dump() + " vs " + vb.dump() + ")";
  }
  return out;
}

uint64_t u64(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number_integer()) throw MergeError(std::string("summary: \"") + key + "\" is not an integer");
  return v.get<uint64_t>();
}

// Every shard is a valid, unmerged shard of one campaign by one build,
// split the same way, each index once and none missing.
void check_shards(const std::vector<ShardSummary>& shards) {
  const ShardSummary& first = shards.front();
  for (const ShardSummary& s : shards) {
    try {
      check_summary_json(s.summary, s.dir + "/" + kSummaryFileName);
    } catch (const std::exception& e) {
      throw MergeError(e.what());
    }
    if (s.summary["shard"].is_null()) {
      throw MergeError(s.dir + " is already a merged campaign: merge the shards' own directories");
    }
    if (s.summary.value("build", json()) != first.summary.value("build", json())) {
      throw MergeError(s.dir + " was written by locksim build " + s.summary.value("build", json()).dump() + ", " +
                       first.dir + " by " + first.summary.value("build", json()).dump() +
                       ": shards must come from one build (same seed, same trace only within a build)");
    }
    if (s.summary["configuration"] != first.summary["configuration"]) {
      throw MergeError(s.dir + " and " + first.dir + " are not shards of one campaign: their configurations differ in " +
                       differing_keys(s.summary["configuration"], first.summary["configuration"]));
    }
    if (s.summary["shard"]["count"] != first.summary["shard"]["count"]) {
      throw MergeError(s.dir + " is shard " + shard_name(s.summary["shard"]) + " but " + first.dir + " is shard " +
                       shard_name(first.summary["shard"]) + ": all shards must split the seeds the same way (one N)");
    }
  }
  const uint64_t count = u64(first.summary["shard"], "count");
  std::map<uint64_t, std::string> dir_of_shard;
  for (const ShardSummary& s : shards) {
    const uint64_t index = u64(s.summary["shard"], "index");
    auto [it, fresh] = dir_of_shard.emplace(index, s.dir);
    if (!fresh) {
      throw MergeError("overlapping shards: " + it->second + " and " + s.dir + " are both shard " +
                       shard_name(s.summary["shard"]));
    }
  }
  std::string missing;
  for (uint64_t i = 0; i < count && missing.size() < 200; ++i) {
    if (dir_of_shard.count(i) == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(count);
  }
  if (!missing.empty()) {
    throw MergeError("missing shard(s) " + missing + ": give the directories of all " + std::to_string(count) +
                     " shards");
  }
}

// Counts and properties: sums (a property fails if it fails in any shard);
// results: sums, kinds by kind; whether the whole is vacuous, its rates.
void merge_counts(const std::vector<ShardSummary>& shards, json* merged) {
  const ShardSummary& first = shards.front();
  for (const auto& [key, value] : first.summary["counts"].items()) {
    uint64_t sum = 0;
    for (const ShardSummary& s : shards) sum += u64(s.summary["counts"], key.c_str());
    (*merged)["counts"][key] = sum;
  }
  for (const auto& [name, p] : first.summary["properties"].items()) {
    uint64_t seeds = 0, violations = 0;
    std::string result = p.value("result", "");
    for (const ShardSummary& s : shards) {
      const json& q = s.summary["properties"].at(name);
      seeds += u64(q, "seeds");
      violations += u64(q, "violations");
      if (q.value("result", "") == "fail") result = "fail";
    }
    (*merged)["properties"][name] = {{"result", result}, {"seeds", seeds}, {"violations", violations}};
  }
  json results = json::object();
  for (const char* key : {"unexplained", "unexplained_seeds", "explained", "explained_seeds", "advisory", "set_aside"}) {
    uint64_t sum = 0;
    for (const ShardSummary& s : shards) sum += u64(s.summary["results"], key);
    results[key] = sum;
  }
  std::map<std::string, uint64_t> by_kind;
  for (const ShardSummary& s : shards)
    for (const auto& [kind, n] : s.summary["results"]["explained_by_kind"].items()) by_kind[kind] += n.get<uint64_t>();
  results["explained_by_kind"] = by_kind;
  (*merged)["results"] = std::move(results);
  const uint64_t seeds_run = (*merged)["counts"]["seeds_run"].get<uint64_t>();
  (*merged)["vacuous"] = seeds_run > 0 && (*merged)["counts"]["operations_ok"].get<uint64_t>() == 0;
  const uint64_t seeds_failed = (*merged)["counts"]["seeds_failed"].get<uint64_t>();
  (*merged)["rates"] = {{"failing_seed_fraction",
                         seeds_run == 0 ? 0.0 : static_cast<double>(seeds_failed) / static_cast<double>(seeds_run)}};
}

// Timings: the longest shard (they ran side by side) and the sum.
void merge_timings(const std::vector<ShardSummary>& shards, json* merged) {
  double wall_s_max = 0, wall_s_sum = 0;
  for (const ShardSummary& s : shards) {
    const double w = s.summary.contains("timings") ? s.summary["timings"].value("wall_s", 0.0) : 0.0;
    wall_s_max = std::max(wall_s_max, w);
    wall_s_sum += w;
  }
  const uint64_t seeds_run = (*merged)["counts"]["seeds_run"].get<uint64_t>();
  const double simulated_s = static_cast<double>((*merged)["counts"].value("simulated_us", uint64_t{0})) / 1e6;
  (*merged)["timings"] = {{"wall_s", wall_s_max},
                          {"shard_wall_s_sum", wall_s_sum},
                          {"seeds_per_s", wall_s_sum > 0 ? static_cast<double>(seeds_run) / wall_s_sum : 0.0},
                          {"simulated_s_per_wall_s", wall_s_sum > 0 ? simulated_s / wall_s_sum : 0.0}};
}

// Failures in seed order; the first shrink_seeds failing seeds keep what
// was drawn for them.
void merge_failures(const std::vector<ShardSummary>& shards, json* merged) {
  json failures = json::array();
  for (const ShardSummary& s : shards)
    for (const json& f : s.summary["failures"]) failures.push_back(f);
  std::stable_sort(failures.begin(), failures.end(),
                   [](const json& a, const json& b) { return a["seed"].get<uint64_t>() < b["seed"].get<uint64_t>(); });
  const json& cfg = shards.front().summary["configuration"];
  const uint64_t keep_seeds = cfg.contains("shrink_seeds") ? u64(cfg, "shrink_seeds") : 0;
  std::set<uint64_t> seen;
  for (json& f : failures) {
    seen.insert(f["seed"].get<uint64_t>());
    if (seen.size() > keep_seeds) {
      f["shrunk_trace"] = nullptr;
      f["timeline"] = nullptr;
      f["counterexample"] = nullptr;
    }
  }
  (*merged)["failures"] = std::move(failures);
  merged->erase("timelines_not_drawn");
  for (const ShardSummary& s : shards) {
    if (s.summary.contains("timelines_not_drawn")) {
      (*merged)["timelines_not_drawn"] = s.summary["timelines_not_drawn"];  // that shard's failures have none
      break;
    }
  }
}

// Advisories: sums; the first report is the lowest seed's.
void merge_advisories(const std::vector<ShardSummary>& shards, json* merged) {
  json advisories = json::object();
  for (const ShardSummary& s : shards) {
    for (const auto& [name, a] : s.summary["advisories"].items()) {
      if (!advisories.contains(name)) {
        advisories[name] = a;
        continue;
      }
      json& m = advisories[name];
      m["seeds"] = u64(m, "seeds") + u64(a, "seeds");
      m["reports"] = u64(m, "reports") + u64(a, "reports");
      if (u64(a, "first_seed") < u64(m, "first_seed")) {
        m["first_seed"] = a["first_seed"];
        m["first_report"] = a["first_report"];
      }
    }
  }
  (*merged)["advisories"] = std::move(advisories);
}

// Coverage: the union (properties/coverage.h), when every shard has one.
void merge_coverage(const std::vector<ShardSummary>& shards, json* merged) {
  size_t with_coverage = 0;
  for (const ShardSummary& s : shards) with_coverage += s.summary.contains("coverage");
  if (with_coverage != 0 && with_coverage != shards.size()) {
    throw MergeError("some shards record coverage and some do not: merge shards of one build");
  }
  if (with_coverage == 0) return;
  Coverage all;
  for (const ShardSummary& s : shards) {
    all.merge(Coverage::from_json(s.summary["coverage"], s.dir + "/" + kSummaryFileName, UINT64_MAX));
  }
  (*merged)["coverage"] = all.to_json();
}

}  // namespace

json merge_summaries(const std::vector<ShardSummary>& shards) {
  if (shards.empty()) throw MergeError("nothing to merge: give the shards' directories");
  check_shards(shards);
  json merged = shards.front().summary;
  merged["shard"] = nullptr;
  merged["merged_from"] = json::array();
  for (const ShardSummary& s : shards) merged["merged_from"].push_back(s.dir);
  merge_counts(shards, &merged);
  merge_timings(shards, &merged);
  merge_failures(shards, &merged);
  merge_advisories(shards, &merged);
  merge_coverage(shards, &merged);
  return merged;
}

std::vector<std::string> summary_files(const json& summary) {
  std::vector<std::string> files;
  for (const json& f : summary["failures"]) {
    for (const char* key : {"trace", "shrunk_trace", "timeline"}) {
      if (f.contains(key) && f[key].is_string() &&
          std::find(files.begin(), files.end(), f[key].get<std::string>()) == files.end()) {
        files.push_back(f[key].get<std::string>());
      }
    }
  }
  return files;
}

}  // namespace locksim
