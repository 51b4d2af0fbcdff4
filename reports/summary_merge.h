// Merging shard summaries: the summary.json files of shards 0..N-1 of one
// campaign (campaign --shard I/N, reports/run_summary.h) become the summary
// of the whole campaign. Refused, with a message naming the directories,
// when the shards do not belong together: another summary format, another
// build, another configuration or shard count, a merged summary, two
// summaries of one shard (overlap), or a shard missing.
// With --keep-going shards, the merge equals the unsharded campaign's summary
// apart from "timings", "shard" and "merged_from": counts and per-property
// results are sums, failures are in seed order, and only the first
// `shrink_seeds` failing seeds of the whole campaign keep their timeline and
// counterexample (each shard drew its own first ones; the global first ones
// are among them). Without --keep-going each shard stopped at its own first
// failing seed, and the merge lists each of those.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim {

struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ShardSummary {
  std::string dir;          // as given, for messages and "merged_from"
  nlohmann::json summary;   // its summary.json
};

// The merged summary. Throws MergeError.
nlohmann::json merge_summaries(const std::vector<ShardSummary>& shards);

// The files (relative paths) a summary names: each failure's trace, and its
// shrunk trace and timeline when present.
std::vector<std::string> summary_files(const nlohmann::json& summary);

}  // namespace locksim
