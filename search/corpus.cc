#include "search/corpus.h"

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <fstream>
#include <set>

#include "redis/sha1.h"
#include "sim/explicit_plan_json.h"
#include "traces/bounded_json.h"

namespace locksim {

using nlohmann::json;

namespace {

constexpr size_t kMaxCorpusLineBytes = 64u << 20;

json entry_to_json(const CorpusEntry& e) {
  json moments = json::array();
  for (const PlanMoment& m : e.moments) moments.push_back({m.true_us, m.client, m.rare ? 1 : 0});
  return {{"run", e.run},
          {"scenario", scenario_to_json(e.plan.scenario)},
          {"plan", explicit_plan_to_json(e.plan)},
          {"items", e.items},
          {"states", e.states},
          {"moments", std::move(moments)}};
}

std::vector<std::string> sorted_strings(const json& j, const std::string& where) {
  if (!j.is_array()) throw CorpusError(where + ": expected an array of strings");
  std::vector<std::string> out;
  for (const json& s : j) {
    if (!s.is_string()) throw CorpusError(where + ": expected an array of strings");
    out.push_back(s.get<std::string>());
    if (out.size() > 1 && !(out[out.size() - 2] < out.back())) throw CorpusError(where + ": not sorted, or listed twice");
  }
  return out;
}

// A plan within the bounds of a corpus to start from (search/corpus.h).
void check_plan_size(const ExplicitPlan& plan, const std::string& where) {
  if (plan.tasks.size() > kMaxCorpusPlanTasks) {
    throw CorpusError(where + ": a plan of " + std::to_string(plan.tasks.size()) + " tasks (at most " +
                      std::to_string(kMaxCorpusPlanTasks) + ")");
  }
  size_t ops = 0;
  for (const ExplicitTask& t : plan.tasks) ops += t.ops.size();
  if (ops > kMaxCorpusPlanOps) {
    throw CorpusError(where + ": a plan of " + std::to_string(ops) + " operations (at most " +
                      std::to_string(kMaxCorpusPlanOps) + ")");
  }
}

CorpusEntry entry_from_json(const json& j, const std::string& where) {
  static const std::set<std::string> kKeys = {"run", "scenario", "plan", "items", "states", "moments"};
  if (!j.is_object()) throw CorpusError(where + ": expected an object");
  for (const auto& [key, value] : j.items())
    if (kKeys.count(key) == 0) throw CorpusError(where + ": unknown field \"" + key.substr(0, 40) + "\"");
  for (const std::string& key : kKeys)
    if (!j.contains(key)) throw CorpusError(where + ": \"" + key + "\" missing");
  CorpusEntry e;
  if (!j["run"].is_number_unsigned()) throw CorpusError(where + ".run: expected a non-negative integer");
  e.run = j["run"].get<uint64_t>();
  try {
    const Scenario s = scenario_from_json(j["scenario"]);
    e.plan = explicit_plan_from_json(s, j["plan"]);
  } catch (const std::exception& ex) {
    throw CorpusError(where + ": " + ex.what());
  }
  e.items = sorted_strings(j["items"], where + ".items");
  e.states = sorted_strings(j["states"], where + ".states");
  const json& moments = j["moments"];
  if (!moments.is_array()) throw CorpusError(where + ".moments: expected an array");
  for (const json& m : moments) {
    if (!m.is_array() || m.size() != 3 || !m[0].is_number_integer() || !m[1].is_number_integer() ||
        !m[2].is_number_integer() || m[0].get<int64_t>() < 0 || m[1].get<int64_t>() < -1 ||
        m[1].get<int64_t>() >= e.plan.scenario.clients || (m[2] != 0 && m[2] != 1)) {
      throw CorpusError(where + ".moments: expected [true_us, client, rare 0|1] of the scenario's clients");
    }
    e.moments.push_back(PlanMoment{m[0].get<int64_t>(), static_cast<int>(m[1].get<int64_t>()), m[2] == 1});
  }
  return e;
}

}  // namespace

bool Corpus::add(CorpusEntry entry) {
  if (entries_.size() >= kMaxCorpusEntries) return false;
  entries_.push_back(std::move(entry));
  return true;
}

std::vector<double> Corpus::weights(const Coverage& seen) const {
  std::vector<double> out;
  out.reserve(entries_.size());
  auto rarity = [](const std::map<std::string, CoverageHits>& hits, const std::string& name) {
    const auto it = hits.find(name);
    const double r = it == hits.end() || it->second.runs == 0 ? 1.0 : 1.0 / static_cast<double>(it->second.runs);
    return r * r;
  };
  for (const CorpusEntry& e : entries_) {
    double w = 0;
    for (const std::string& item : e.items) w += rarity(seen.items(), item);
    for (const std::string& state : e.states) w += rarity(seen.states(), state);
    out.push_back(w);
  }
  return out;
}

size_t Corpus::pick(const std::vector<double>& weights, Rng& rng) {
  assert(!weights.empty());
  double total = 0;
  for (double w : weights) total += w;
  if (!(total > 0)) return static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(weights.size()) - 1));
  double at = rng.unit() * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (at < weights[i]) return i;
    at -= weights[i];
  }
  return weights.size() - 1;
}

std::string Corpus::to_jsonl() const {
  std::string out = json{{"format", kCorpusFormat}, {"version", kCorpusVersion}}.dump() + "\n";
  for (const CorpusEntry& e : entries_) out += entry_to_json(e).dump() + "\n";
  return out;
}

Corpus Corpus::from_jsonl(std::istream& in, const std::string& name) {
  return from_jsonl_read(in, name, kMaxCorpusEntries, false);
}

Corpus Corpus::from_jsonl_bounded(std::istream& in, const std::string& name, size_t max_plans) {
  return from_jsonl_read(in, name, max_plans, true);
}

Corpus Corpus::from_jsonl_read(std::istream& in, const std::string& name, size_t max_plans, bool bound_plans) {
  Corpus c;
  std::string line;
  size_t number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = name + ":" + std::to_string(number);
    if (line.size() > kMaxCorpusLineBytes) throw CorpusError(where + ": line too long");
    json j;
    try {
      j = parse_bounded_json(line);
    } catch (const std::exception& e) {
      throw CorpusError(where + ": not JSON: " + e.what());
    }
    if (!header) {
      if (!j.is_object() || j.value("format", json()) != kCorpusFormat) {
        throw CorpusError(where + ": not a locksim corpus (no \"format\":\"" + std::string(kCorpusFormat) + "\")");
      }
      if (j.value("version", json()) != kCorpusVersion) {
        throw CorpusError(where + ": unsupported corpus version " + describe_json_value(j.value("version", json())));
      }
      header = true;
      continue;
    }
    if (c.size() >= max_plans) {
      throw CorpusError(where + ": more than " + std::to_string(max_plans) + " plans (a corpus holds at most " +
                        std::to_string(max_plans) + ")");
    }
    CorpusEntry entry = entry_from_json(j, where);
    if (bound_plans) check_plan_size(entry.plan, where);
    if (!c.add(std::move(entry))) throw CorpusError(where + ": more than " + std::to_string(kMaxCorpusEntries) + " entries");
  }
  if (!header) throw CorpusError(name + ": empty, not a locksim corpus");
  return c;
}

Corpus Corpus::read_start_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::is_regular_file(status)) throw CorpusError(path + ": not a readable regular file");
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes > kMaxStartCorpusBytes) {
    throw CorpusError(path + ": " + (ec ? ec.message() : std::to_string(bytes) + " bytes") + ", larger than " +
                      std::to_string(kMaxStartCorpusBytes >> 20) + " MiB (a corpus to start from holds at most " +
                      std::to_string(kMaxStartCorpusBytes >> 20) + " MiB, " + std::to_string(kMaxStartCorpusPlans) +
                      " plans)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CorpusError(path + ": cannot be opened");
  return from_jsonl_bounded(in, path, kMaxStartCorpusPlans);
}

Corpus Corpus::read_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::is_regular_file(status)) throw CorpusError(path + ": not a readable regular file");
  if (std::filesystem::file_size(path, ec) > kMaxCorpusFileBytes || ec) {
    throw CorpusError(path + ": larger than " + std::to_string(kMaxCorpusFileBytes >> 30) + " GiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CorpusError(path + ": cannot be opened");
  return from_jsonl(in, path);
}

std::string Corpus::digest() const { return sha1_hex(to_jsonl()); }

Corpus Corpus::merge(const std::vector<Corpus>& parts) {
  std::vector<const CorpusEntry*> all;
  for (const Corpus& p : parts)
    for (const CorpusEntry& e : p.entries_) all.push_back(&e);
  std::stable_sort(all.begin(), all.end(), [](const CorpusEntry* a, const CorpusEntry* b) { return a->run < b->run; });
  Corpus out;
  std::set<std::string> plans;
  for (const CorpusEntry* e : all) {
    const json j = entry_to_json(*e);
    if (!plans.insert(j["scenario"].dump() + j["plan"].dump()).second) continue;
    if (!out.add(*e)) break;
  }
  return out;
}

}  // namespace locksim
