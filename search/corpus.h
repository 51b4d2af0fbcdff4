// Corpus: the explicit plans of a guided campaign (search/guided_campaign.h)
// that reached coverage no earlier run had, each with what it covered (its
// items and abstract states, properties/coverage.h) and the moments of its
// run worth aiming faults at (search/plan_mutation.h).
//
// Choosing a parent prefers rare coverage: an entry weighs the sum, over
// every item and state it covered, of 1 / (runs that covered it so far)², so
// a plan that alone reached something outweighs many that reached what
// every run does. Deterministic: the weights are sums in entry order, the
// draw one number from the caller's stream.
//
// File (corpus.jsonl in a guided campaign's runs directory): a header line
//   {"format":"locksim-corpus","version":1}
// then one line per entry, in run order:
//   {"run":N,"scenario":{...},"plan":{...},"items":[...],"states":[...],
//    "moments":[[true_us,client,rare],...]}
// ("plan" as a trace header carries one: sim/explicit_plan_json.h). Merging
// the corpora of shards (`locksim merge`) puts every entry of every shard
// in one file in run order (runs are seed numbers, distinct across shards),
// dropping an entry whose plan an earlier one already has; `campaign
// --guided --corpus FILE` starts from such a file.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/coverage.h"
#include "search/plan_mutation.h"
#include "sim/explicit_plan.h"
#include "sim/rng.h"

namespace locksim {

inline constexpr const char* kCorpusFormat = "locksim-corpus";
inline constexpr int kCorpusVersion = 1;
inline constexpr const char* kCorpusFileName = "corpus.jsonl";
inline constexpr size_t kMaxCorpusEntries = 100'000;
inline constexpr uint64_t kMaxCorpusFileBytes = uint64_t{4} << 30;

// A corpus a campaign starts from (`campaign --guided --corpus FILE`,
// Corpus::read_start_file) is held to smaller bounds, each refused with
// CorpusError naming it: the file at most kMaxStartCorpusBytes (its size
// checked before a byte is read), at most kMaxStartCorpusPlans plans, each
// at most kMaxCorpusPlanTasks tasks and kMaxCorpusPlanOps operations in all
// (checked line by line, as it is read: a plan of 10,000 tasks would make
// every run of the campaign crawl). A guided campaign's own plans stay
// within the tasks bound (search/plan_mutation.h add_task).
inline constexpr uint64_t kMaxStartCorpusBytes = uint64_t{128} << 20;
inline constexpr size_t kMaxStartCorpusPlans = 10'000;
inline constexpr size_t kMaxCorpusPlanTasks = kMaxPlanTasks;
inline constexpr size_t kMaxCorpusPlanOps = 20'000;

struct CorpusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CorpusEntry {
  uint64_t run = 0;                   // the run that found it (a seed number)
  ExplicitPlan plan;
  std::vector<std::string> items;     // sorted
  std::vector<std::string> states;    // sorted
  std::vector<PlanMoment> moments;    // in time order
};

class Corpus {
 public:
  const std::vector<CorpusEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  // Adds an entry unless the corpus is full (kMaxCorpusEntries); false then.
  bool add(CorpusEntry entry);

  // Every entry's weight (see above), from `seen`: how many runs covered
  // each item and state so far.
  std::vector<double> weights(const Coverage& seen) const;
  // An entry index drawn by weight (uniform when all weigh 0). Not empty.
  static size_t pick(const std::vector<double>& weights, Rng& rng);

  // The file's text, and the corpus read back from it (CorpusError naming
  // `name` and the line on anything else).
  std::string to_jsonl() const;
  static Corpus from_jsonl(std::istream& in, const std::string& name);
  // The same, refusing more than `max_plans` plans or a plan past the
  // tasks and operations bounds (CorpusError naming the line).
  static Corpus from_jsonl_bounded(std::istream& in, const std::string& name, size_t max_plans);
  // A corpus file: a regular file of at most kMaxCorpusFileBytes
  // (CorpusError naming it otherwise).
  static Corpus read_file(const std::string& path);
  // A corpus to start a campaign from, within the bounds above.
  static Corpus read_start_file(const std::string& path);
  // A content fingerprint (hex), for a campaign's configuration.
  std::string digest() const;

  // Shards' corpora in one (see above).
  static Corpus merge(const std::vector<Corpus>& parts);

 private:
  static Corpus from_jsonl_read(std::istream& in, const std::string& name, size_t max_plans, bool bound_plans);
  std::vector<CorpusEntry> entries_;
};

}  // namespace locksim
