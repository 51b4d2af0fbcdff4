#include "search/explore_json.h"

#include "sim/explicit_plan_json.h"
#include "sim/scenario.h"

namespace locksim {

using nlohmann::json;

const char* explore_order_name(ExploreOrder order) {
  switch (order) {
    case ExploreOrder::BreadthFirst: return "breadth-first";
    case ExploreOrder::DepthFirst: return "depth-first";
    case ExploreOrder::RandomWalk: return "random-walk";
  }
  return "?";
}

json explore_configuration_json(const ExploreConfig& c) {
  // The plan's tasks as its JSON writes them (no faults, no schedule yet).
  json plan = explicit_plan_to_json(c.plan);
  json faults = json::array();
  for (const ExploreFault f : c.faults) faults.push_back(explore_fault_name(f));
  json j = json::object();
  j["scenario"] = scenario_to_json(c.plan.scenario);
  j["tasks"] = plan["tasks"];
  j["latency_us"] = c.plan.schedule ? c.plan.schedule->latency_us : 0;
  j["drain_ms"] = c.plan.drain_ms;
  j["faults"] = std::move(faults);
  j["max_faults"] = c.max_faults;
  j["pause_ms"] = c.pause_ms;
  j["jump_ms"] = c.jump_ms;
  j["order"] = explore_order_name(c.order);
  j["walks"] = c.order == ExploreOrder::RandomWalk ? json(c.walks) : json();
  j["walk_seed"] = c.order == ExploreOrder::RandomWalk ? json(c.walk_seed) : json();
  j["max_depth"] = c.max_depth;
  j["max_states"] = c.max_states;
  j["max_memory_mb"] = c.max_memory_bytes >> 20;
  return j;
}

json explore_result_json(const ExploreConfig& config, const ExploreResult& r) {
  json violations = json::array();
  for (const ExploreCounterexample& cx : r.violations) {
    json v = json::object();
    v["property"] = cx.violation.property;
    v["violation"] = violation_to_json(cx.violation);
    v["depth"] = cx.depth;
    v["distinct_before"] = cx.distinct_before;
    v["paths"] = cx.paths;
    v["events"] = cx.events.size();
    v["plan"] = explicit_plan_to_json(cx.plan);
    violations.push_back(std::move(v));
  }
  json advisories = json::object();
  for (const auto& [property, count] : r.advisories) advisories[property] = count;
  json explained = json::object();
  for (const auto& [property, count] : r.explained) explained[property] = count;
  json counts = json::object();
  counts["transitions"] = r.transitions;
  counts["distinct_states"] = r.distinct_states;
  counts["terminal_transitions"] = r.terminal_transitions;
  counts["max_depth"] = r.max_depth;
  counts["replayed_transitions"] = r.replayed_transitions;
  json j = json::object();
  j["format"] = kExploreFormat;
  j["version"] = kExploreVersion;
  j["configuration"] = explore_configuration_json(config);
  j["complete"] = r.complete;
  j["limit"] = r.limit.empty() ? json() : json(r.limit);
  j["counts"] = std::move(counts);
  j["violations"] = std::move(violations);
  j["advisories"] = std::move(advisories);
  j["explained"] = std::move(explained);
  return j;
}

}  // namespace locksim
