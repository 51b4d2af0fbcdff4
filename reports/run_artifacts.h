// Run artifacts: the per-failure files of a campaign's runs directory
// (reports/run_summary.h names them): for every failing seed its full trace
// failures/<seed>.jsonl (the seed re-run on `source`, replayable with
// `locksim replay`; a guided campaign's run of a plan: that plan's trace,
// the plan in its header); for the first CampaignOptions::shrink_seeds failing
// seeds, per violated property, the shrunk counterexample's trace
// failures/<seed>[.<property>].shrunk.jsonl (its explicit plan in the header,
// so `locksim replay` re-runs that plan) and timelines/<seed>[.<property>].svg
// (the counterexample, or without one the seed's history up to the
// violation, with the violation's events highlighted).
// When no seed failed: timelines/sample.svg instead, the first 120 events
// of the first seed (unsharded, or shard 0, whose first seed it is), and
// timelines/sample.plot.json, that seed's whole run for report.html's plots
// (reports/run_plot.h).
// Every file appears complete or not at all (traces/output_file.h); none
// may be one of `inputs` (OutputError). Throws on the first file that cannot
// be written, except a timeline when Graphviz's dot cannot be run at all:
// then no timeline is drawn, everything else is written, and the result says
// why (RunArtifacts::timelines_not_drawn) for summary.json and the report.
#pragma once

#include <string>
#include <vector>

#include "search/campaign.h"
#include "sim/backend_source.h"

namespace locksim {

inline constexpr const char* kSampleTimelineFile = "timelines/sample.svg";

struct RunArtifacts {
  std::string timelines_not_drawn;  // empty when every timeline was drawn
};

RunArtifacts write_run_artifacts(const std::string& dir, const CampaignOptions& options, const CampaignResult& result,
                                 BackendSource& source, const std::vector<std::string>& inputs);

// What summary.json says when no timeline could be drawn.
inline constexpr const char* kDotMissingReason =
    "Graphviz's dot could not be run (is graphviz installed and dot on PATH?); everything else was written: "
    "draw a trace later with `locksim timeline TRACE`";

}  // namespace locksim
