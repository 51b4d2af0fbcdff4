// Guided campaign (`campaign --guided`): a campaign that steers toward what
// earlier runs did not cover. It keeps a corpus (search/corpus.h) of
// explicit plans that reached new coverage (an item or an abstract state no
// run had, properties/coverage.h) and spends most runs on mutations of them
// (search/plan_mutation.h), choosing parents that reached rare coverage;
// the rest are fresh seeds, exactly the random campaign's.
//
// Runs and numbering: the same budget and numbers as the random campaign's
// seeds (shard I of N runs numbers base + I + k*N, k < its seed count). Run
// k is either that seed, generated as by any campaign (a fresh run), or a
// mutated plan. Every run's history is checked and its coverage counted
// under its number; a failing run is a SeedFailure of that number (with the
// plan when it was one), shrunk, classified and drawn as in any campaign,
// and its trace replays it.
//
// Batches: runs go in fixed batches of kGuidedBatch. A batch's runs are
// chosen from what the runs before the batch showed (the corpus and how
// often each item was covered), drawn from the stream Rng(base seed) split
// by "guided", the shard index, the batch and the run's place in it; then
// the batch runs on the workers and its results are taken in run order
// (coverage counted, new coverage added to the corpus). So the same seed
// and build give the same plans, results and report for any --workers.
// The first batch, and every batch while the corpus is empty, is all fresh
// seeds; later each run is fresh with probability kFreshShare.
//
// Shards: each shard guides itself from its own stream and corpus; `locksim
// merge` puts their corpora together (search/corpus.h), and `--corpus
// FILE` starts a campaign (or every shard of the next one) from such a
// file, counting its entries' coverage as already seen.
//
// Backends: the checked backend of each worker (model, lua or live); a
// reference backend (--backend both, A,B) is refused: guided runs are not
// compared.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/campaign.h"
#include "search/corpus.h"

namespace locksim {

inline constexpr int kGuidedBatch = 16;
inline constexpr double kFreshShare = 0.25;

struct GuidedResult {
  CampaignResult result;
  Corpus corpus;                              // the start corpus and what this campaign added
  uint64_t fresh_runs = 0;
  uint64_t mutated_runs = 0;
  uint64_t corpus_from_mutations = 0;         // entries this campaign added from mutated plans
  std::map<std::string, uint64_t> mutations;  // mutation name -> times applied
};

// Whether a corpus entry's scenario belongs to a campaign of template
// `tmpl`: the same in everything but the seed and a number of clients at
// least the template's.
bool corpus_entry_fits(const Scenario& tmpl, const Scenario& entry);

// Throws std::invalid_argument for a reference backend, a corpus entry
// that does not fit or one with faults its profile never draws
// (sim/profiles.h fault_outside_profile); CampaignSeedError as run_campaign.
GuidedResult run_guided_campaign(const Scenario& tmpl, const CampaignOptions& options,
                                 std::vector<CampaignWorker>& workers, const Corpus& start = {},
                                 const CampaignProgress& progress = {}, const CheckConfig* config = nullptr);

}  // namespace locksim
