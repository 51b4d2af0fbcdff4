// Campaign: many seeded scenarios from one template, each checked by the
// CheckerSuite while it streams (nothing stored), stopping at the first seed
// with a violation. That seed's history is then shrunk (properties/shrink.h)
// to a short counterexample that still violates the same property.
// Mutant names resolve to a client mutant (impl/client_mutant.h) or a script
// mutant (model/variant.h, run as its ModelVariant on the model backend); a
// script pack dir contributes the ModelVariant its manifest names.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/check_config.h"
#include "properties/violation.h"
#include "sim/scenario.h"
#include "traces/event.h"

namespace locksim {

struct CampaignOptions {
  int seeds = 100;
  uint64_t base_seed = 1;
  std::string profile = "safe";
  std::string lock_kind = "rlock";
  std::string mutant = "none";
  std::string scripts;
  int clients = 4;
  int locks = 1;
  int64_t duration_ms = 60'000;
  bool shrink = true;
};

struct Counterexample {
  std::vector<Event> events;   // the shrunk history
  Violation violation;         // as found in it
};

struct CampaignResult {
  Scenario scenario;                    // the template (seed = base seed)
  int seeds_run = 0;
  uint64_t events_checked = 0;
  std::optional<uint64_t> failing_seed;
  std::optional<Violation> violation;   // first violation of the failing seed
  uint64_t failing_events = 0;          // length of the failing seed's history
  std::optional<Counterexample> shrunk;
  bool failed() const { return failing_seed.has_value(); }
};

// Resolves the options into a scenario template; throws std::invalid_argument
// (ScenarioError) naming the bad option.
Scenario campaign_template(const CampaignOptions& options);

using CampaignProgress = std::function<void(int done, int total)>;
CampaignResult run_campaign(const Scenario& tmpl, const CampaignOptions& options,
                            const CampaignProgress& progress = {},
                            const CheckConfig* config = nullptr);

nlohmann::json campaign_result_to_json(const CampaignResult& r);
std::string format_campaign_result(const CampaignResult& r);
// One line per event, for printing counterexamples.
std::string format_event(const Event& e);

}  // namespace locksim
