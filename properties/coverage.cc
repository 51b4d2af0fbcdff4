#include "properties/coverage.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace locksim {

using nlohmann::json;

void RunCoverage::normalise() {
  for (std::vector<std::string>* list : {&items, &states, &universe}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
}

std::string_view coverage_category(std::string_view item) {
  const size_t slash = item.find('/');
  return slash == std::string_view::npos ? item : item.substr(0, slash);
}

const std::vector<std::string>& coverage_categories() {
  static const std::vector<std::string> kCategories = {"script", "reply", "state", "fault", "pre"};
  return kCategories;
}

namespace {

void add_hit(std::map<std::string, CoverageHits>& to, const std::string& name, const CoverageHits& hits) {
  auto [it, fresh] = to.try_emplace(name, hits);
  if (fresh) return;
  it->second.runs += hits.runs;
  it->second.first = std::min(it->second.first, hits.first);
}

void add_universe(std::vector<std::string>& to, const std::vector<std::string>& more) {
  std::vector<std::string> merged;
  merged.reserve(to.size() + more.size());
  std::set_union(to.begin(), to.end(), more.begin(), more.end(), std::back_inserter(merged));
  to = std::move(merged);
}

json hits_to_json(const std::map<std::string, CoverageHits>& hits) {
  json out = json::object();
  for (const auto& [name, h] : hits) out[name] = {{"runs", h.runs}, {"first", h.first}};
  return out;
}

}  // namespace

void Coverage::add(const RunCoverage& run, uint64_t run_number) {
  ++runs_;
  for (const std::string& item : run.items) add_hit(items_, item, {1, run_number});
  for (const std::string& state : run.states) add_hit(states_, state, {1, run_number});
  add_universe(universe_, run.universe);
}

void Coverage::merge(const Coverage& other) {
  runs_ += other.runs_;
  for (const auto& [name, h] : other.items_) add_hit(items_, name, h);
  for (const auto& [name, h] : other.states_) add_hit(states_, name, h);
  add_universe(universe_, other.universe_);
}

std::vector<std::string> Coverage::never_covered() const {
  std::vector<std::string> out;
  for (const std::string& item : universe_)
    if (items_.count(item) == 0) out.push_back(item);
  return out;
}

std::vector<Coverage::CurvePoint> Coverage::curve() const {
  std::map<uint64_t, CurvePoint> at;  // by run: what first appeared there
  for (const auto& [name, h] : items_) at[h.first].items++;
  for (const auto& [name, h] : states_) at[h.first].states++;
  std::vector<CurvePoint> out;
  CurvePoint total;
  for (const auto& [run, added] : at) {
    total.run = run;
    total.items += added.items;
    total.states += added.states;
    out.push_back(total);
  }
  return out;
}

json Coverage::to_json() const {
  return {{"runs", runs_}, {"items", hits_to_json(items_)}, {"states", hits_to_json(states_)}, {"universe", universe_}};
}

namespace {

[[noreturn]] void bad(const std::string& what, const std::string& path, const std::string& why) {
  throw std::runtime_error(what + ": " + path + ": " + why);
}

std::map<std::string, CoverageHits> hits_from_json(const json& j, const std::string& what, const std::string& path,
                                                  uint64_t max_runs) {
  if (!j.is_object()) bad(what, path, "expected an object");
  std::map<std::string, CoverageHits> out;
  for (const auto& [name, h] : j.items()) {
    const std::string at = path + "." + name.substr(0, 80);
    if (name.empty() || name.size() > 400) bad(what, at, "a name of 1 to 400 characters");
    if (!h.is_object() || h.size() != 2 || !h.contains("runs") || !h.contains("first") ||
        !h["runs"].is_number_unsigned() || !h["first"].is_number_unsigned()) {
      bad(what, at, "expected {\"runs\":N,\"first\":F} with non-negative integers");
    }
    const uint64_t runs = h["runs"].get<uint64_t>();
    if (runs == 0 || runs > max_runs) bad(what, at + ".runs", "not between 1 and the runs counted");
    out[name] = {runs, h["first"].get<uint64_t>()};
  }
  return out;
}

}  // namespace

Coverage Coverage::from_json(const json& j, const std::string& what, uint64_t max_runs) {
  if (!j.is_object()) bad(what, "coverage", "expected an object");
  for (const char* key : {"runs", "items", "states", "universe"})
    if (!j.contains(key)) bad(what, std::string("coverage.") + key, "missing");
  if (j.size() != 4) bad(what, "coverage", "unexpected fields");
  Coverage c;
  if (!j["runs"].is_number_unsigned() || j["runs"].get<uint64_t>() > max_runs) {
    bad(what, "coverage.runs", "expected a count of at most the runs of the campaign");
  }
  c.runs_ = j["runs"].get<uint64_t>();
  c.items_ = hits_from_json(j["items"], what, "coverage.items", c.runs_);
  c.states_ = hits_from_json(j["states"], what, "coverage.states", c.runs_);
  const json& u = j["universe"];
  if (!u.is_array()) bad(what, "coverage.universe", "expected an array");
  for (size_t i = 0; i < u.size(); ++i) {
    if (!u[i].is_string()) bad(what, "coverage.universe[" + std::to_string(i) + "]", "expected a string");
    c.universe_.push_back(u[i].get<std::string>());
    if (i > 0 && !(c.universe_[i - 1] < c.universe_[i])) {
      bad(what, "coverage.universe[" + std::to_string(i) + "]", "not sorted, or listed twice");
    }
  }
  return c;
}

}  // namespace locksim
