// Campaign text and JSON: what `campaign` prints (its text, or --json), the
// "results" of summary.json, and the headline and results line that
// `campaign` and `merge` print alike.
//
// Contract:
//  - The headline comes first and says first whether anything is
//    unexplained: "FAILED: 2 unexplained violations (seeds 14, 88); ..."
//    against "FAILED: 0 unexplained; 30 seeds with violations, all
//    explained by faults the hostile profile injects (pause: 20, ...)"; a
//    campaign that passed has none (its last line says "ok: ...").
//  - ResultCounts is what both read it from: a CampaignResult as the
//    campaign ends, or a merged summary.json (reports/run_summary.h), so
//    that a campaign and the merge of its shards print the same lines.
//  - format_event(): one line per event, for counterexamples.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/campaign.h"
#include "traces/event.h"

namespace locksim {

// The verdict of a campaign in counts, whichever way it was read.
struct ResultCounts {
  int seeds_run = 0;
  int failing_seeds = 0;
  std::string profile;                  // the scenario's profile, by name
  uint64_t unexplained = 0;             // violations the policy counts without a confirmed cause
  std::vector<uint64_t> unexplained_seed_list;  // the seeds holding them, in seed order
  uint64_t explained = 0;
  int unexplained_seeds = 0;
  int explained_seeds = 0;
  std::map<std::string, uint64_t> explained_by_kind;  // cause kind -> count
  uint64_t advisory = 0;
  int explained_only_seeds = 0;         // failing seeds whose every violation is explained, no divergence
  int divergent_seeds = 0;              // a pair of backends' histories differed
  bool unexplained_only = false;        // explained violations were set aside
  bool vacuous_fails = false;
  bool failed = false;
};

ResultCounts result_counts(const CampaignResult& r);
// From a (validated, reports/summary_check.h) summary.json.
ResultCounts result_counts_from_summary(const nlohmann::json& summary);

// "FAILED: ..." (one line, with its newline); "" when nothing failed.
std::string format_headline(const ResultCounts& c);
// "results: 3 unexplained violation(s) in 2 seed(s); 46 explained in 44
// seed(s) (pause: 20, ...); 2 advisory report(s)", and under
// unexplained_only a second line saying how many explained violations were
// set aside, and why.
std::string format_result_tally(const ResultCounts& c);

nlohmann::json seed_failure_to_json(const SeedFailure& f);
// {"unexplained","unexplained_seeds","explained","explained_seeds",
//  "explained_by_kind":{kind:count},"advisory","set_aside"}: CampaignResult::tally.
nlohmann::json result_tally_to_json(const CampaignResult& r);
// {"scenario","backend","seeds_run","events_checked","ok","failures":[seed_failure...],"advisories":{...}}
nlohmann::json campaign_result_to_json(const CampaignResult& r);
// The campaign's text: the headline, each failing seed with its violations
// and counterexamples, advisories, the results line, the last line.
std::string format_campaign_result(const CampaignResult& r);
// One line per event, for printing counterexamples.
std::string format_event(const Event& e);

}  // namespace locksim
