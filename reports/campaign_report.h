// CampaignReport: the summary of a campaign (many seeds of one scenario
// template) and its rendering as a self-contained report.html: the settings,
// totals, one row per failing seed with the property, the explanation and
// the shrunk counterexample, and links to timeline images written beside it.
// Rendering is deterministic except for the wall-time fields it is given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/event.h"

namespace locksim {

struct CampaignFailure {
  uint64_t seed = 0;
  std::string property;
  std::string explanation;
  std::vector<Event> counterexample;  // shrunk, in history order
  std::string timeline_file;          // relative to the report, may be empty
};

struct CampaignReport {
  std::string title = "locksim campaign";
  std::string command_line;
  std::string profile;
  std::string lock_kind;
  std::string backend = "model";
  std::string mutant;  // empty: the correct system
  uint64_t first_seed = 0;
  uint64_t seeds_run = 0;
  uint64_t seeds_failed = 0;
  uint64_t events_checked = 0;
  double wall_s = 0;
  std::string timeline_file;  // the sample timeline (first seed), may be empty
  std::string failing_trace_file;  // full trace of the failing seed (replayable), may be empty
  std::vector<CampaignFailure> failures;
};

std::string campaign_report_html(const CampaignReport& report);
void write_campaign_report(const CampaignReport& report, const std::string& path);

}  // namespace locksim
