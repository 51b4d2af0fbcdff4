// Explore results as JSON: what `locksim explore --json` prints and the
// core of its runs directory's summary.json (tools/cli/cmd_explore.cc adds
// the backend, the command, the timings and the files).
//
//   {"format":"locksim-explore","version":1,
//    "configuration":{"scenario","tasks":[{"client","ops":[op...]}],"latency_us","drain_ms",
//                     "faults":[names],"max_faults","pause_ms","jump_ms","order",
//                     "walks","walk_seed","max_depth","max_states","max_memory_mb"},
//    "complete":B,"limit":null|"max-states"|"max-memory"|"max-depth"|"walks",
//    "counts":{"transitions","distinct_states","terminal_transitions","max_depth","replayed_transitions"},
//    "violations":[{"property","violation":{...},"depth","distinct_before","paths","events","plan":{...}}],
//    "advisories":{property:transitions},
//    "explained":{property:transitions}}   (--unexplained-only: violations whose cause re-runs confirmed)
// Deterministic: the same configuration and search give the same text.
#pragma once

#include <nlohmann/json.hpp>

#include "search/explore.h"

namespace locksim {

inline constexpr const char* kExploreFormat = "locksim-explore";
inline constexpr int kExploreVersion = 1;

const char* explore_order_name(ExploreOrder order);
nlohmann::json explore_configuration_json(const ExploreConfig& config);
nlohmann::json explore_result_json(const ExploreConfig& config, const ExploreResult& result);

}  // namespace locksim
