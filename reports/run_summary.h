// RunSummary JSON: the summary.json of a campaign's runs directory
// (campaign --out DIR, in the manner of Jepsen's store), and the names of
// the files beside it. Everything but "timings" (and "shard" /
// "merged_from", which say what part of the seed space a directory holds)
// depends only on the configuration and the seeds' results: a campaign, its
// shards merged, and any --workers give equal summaries apart from those.
//
//   {"format":"locksim-campaign-summary","version":2,"build":B,"command":C,
//    "configuration":{"seeds","base_seed","backend","scenario",
//                     "keep_going","shrink","shrink_seeds","properties","fail_on","unexplained_only",
//                     "guided":{"corpus":digest|null} (a guided campaign only)},
//    "shard":{"index":I,"count":N} (null once merged), "merged_from":[dirs] (merge only),
//    "counts":{"seeds_planned","seeds_run","seeds_failed","failures","events_checked","simulated_us",
//              "operations_ok","script_errors"},
//    "vacuous": no operation succeeded in any seed run (nothing was checked),
//    "results":{"unexplained","unexplained_seeds","explained","explained_seeds",
//               "explained_by_kind":{kind:count},"advisory","set_aside"}: the three
//      kinds of result (search/campaign.h CampaignResult::tally),
//    "properties":{name:{"result":"pass"|"fail"|"advisory"|"not checked","seeds","violations"}},
//    "rates":{"failing_seed_fraction"},
//    "timings":{"wall_s","seeds_per_s","simulated_s_per_wall_s"},
//    "failures":[{"seed","property","explanation","blamed","cause","violations","unexplained",
//                 "trace","reproduce","shrunk_trace","timeline","counterexample"}],
//    "advisories":{name:{"seeds","reports","first_seed","first_report"}},
//    "timelines_not_drawn": why (only when Graphviz's dot could not be run:
//                           then every "timeline" is null),
//    "coverage":{"runs","items":{name:{"runs","first"}},"states":{...},"universe":[...]}}
// "coverage" (properties/coverage.h): what the seeds exercised, "runs" the
// seeds counted, "first" the lowest seed that reached an item; summaries
// written before coverage was measured lack it.
// One failure per failing (seed, property), in seed order ("divergence" for
// a --backend both divergence). "blamed" is the checker's sentence about its
// first violation, "cause" that violation's cause (properties/cause.h
// cause_to_json: {"faults","confirmed","status","kind","reruns","note"}; null
// for a divergence), "unexplained" how many of its violations have no
// confirmed cause. "trace" (failures/<seed>.jsonl) is the
// seed's full trace; the first CampaignOptions::shrink_seeds failing seeds
// also have a "timeline" (timelines/<seed>.svg) and, when shrunk, a
// "counterexample" {"trace","events","violation","event_ids"}: its first
// `events` events of `trace` (failures/<seed>.shrunk.jsonl, replayable) up to
// the violation, which names `event_ids`. Paths are relative to the
// directory; absent files are null.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/run_files.h"
#include "search/campaign.h"

namespace locksim {

// Says in `summary` that no timeline was drawn, and why: every failure's
// "timeline" becomes null.
void mark_timelines_not_drawn(nlohmann::json& summary, const std::string& why);

inline constexpr const char* kRunSummaryFormat = "locksim-campaign-summary";
inline constexpr int kRunSummaryVersion = 2;  // 2: "results", failures' "cause" an object
inline constexpr const char* kSummaryFileName = "summary.json";
inline constexpr const char* kReportFileName = "report.html";

// The failure files' names (failure_trace_file() and the others): reports/run_files.h.

// What a failing seed's failure entries are about, in order: "divergence"
// (--backend both) first, then the properties in the order first violated;
// the index in this list is the `nth` of shrunk_trace_file() and
// timeline_file().
std::vector<std::string> violated_properties(const SeedFailure& failure);
// The seed's counterexample for `property` ("divergence" included), or null.
const Counterexample* counterexample_for(const SeedFailure& failure, const std::string& property);
// Whether a drawn seed has a timeline for `property`: always, except a
// divergence that was not shrunk (there is no violation to draw).
bool has_timeline(const SeedFailure& failure, const std::string& property);

// The configuration part, equal for every shard of one campaign.
nlohmann::json campaign_configuration_json(const CampaignOptions& options, const Scenario& tmpl,
                                           const std::string& backend);

// The whole summary of a campaign (or of one shard of it). `wall_s` only
// reaches "timings". `program` begins each failure's "reproduce" command
// (`<program> replay failures/<seed>.jsonl`, run in the runs directory).
nlohmann::json campaign_summary_json(const CampaignOptions& options, const CampaignResult& result,
                                     const std::string& command, double wall_s,
                                     const std::string& program = "locksim");

// check_summary_json(), for summaries read back: reports/summary_check.h.

}  // namespace locksim
