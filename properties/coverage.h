// Coverage: what a campaign's runs exercised, so that a passing campaign
// says what it actually tried and, above all, what it never did. An item is
// a name "<category>/<name>"; the categories (properties/coverage_observer.h
// defines the items of all but the first):
//   script  a branch of a model script ("script/rlock_acquire:free",
//           model/script_branches.h) or a line of the pack's Lua on the lua
//           backend ("script/rlock_acquire.lua:7"); none on live
//   reply   a script's reply class ("reply/fair_acquire=ttl"): the branches
//           a reply reveals, on every backend (live included)
//   state   an abstract lock state seen after a script ("state/line=3+")
//   fault   a fault crossed with the state of what it hit
//           ("fault/pause:holding_past_lease")
//   pre     a property's precondition ("pre/liveness:free_with_waiters")
// Besides the items, every run's abstract states: the tuple of all state
// components of one lock after one script ("fair holders=1 depth=1 ...").
//
// A RunCoverage is one run's (a seed, or a guided campaign's plan): what it
// covered and its universe (every item it could have covered: the lock
// kinds' scripts, replies and states, and the crossings of the fault kinds
// that happened). A Coverage sums runs: per item and per state the runs
// that reached it and the first run that did (runs are numbered by their
// seed), and the union of the universes. "Never covered" is the universe
// less what was covered. Sums are order-free (counts add, firsts take the
// minimum), so shards merge into exactly the unsharded campaign's coverage,
// and the coverage curve (items and states reached by the first k runs) is
// derived from the firsts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim {

struct CoverageHits {
  uint64_t runs = 0;   // runs that reached it
  uint64_t first = 0;  // the lowest-numbered one
  bool operator==(const CoverageHits&) const = default;
};

// When and where a run first reached an item or a state: the true time and
// the client that acted (-1: a server's event).
struct CoverageFirst {
  std::string name;  // an item or a state
  int64_t true_us = 0;
  int client = -1;
};

struct RunCoverage {
  std::vector<std::string> items;     // sorted, each once
  std::vector<std::string> states;    // sorted, each once
  std::vector<std::string> universe;  // sorted, each once
  // The first time each item (but the script category's) and state was
  // reached, in run order (a Coverage keeps none of it: for the guided
  // campaign's aim).
  std::vector<CoverageFirst> firsts;
  // Sorts and deduplicates the three lists (firsts stay in run order).
  void normalise();
};

// The category of an item: the text before its first '/'.
std::string_view coverage_category(std::string_view item);
// The categories in report order: script, reply, state, fault, pre.
const std::vector<std::string>& coverage_categories();

class Coverage {
 public:
  // Adds run number `run` (a seed).
  void add(const RunCoverage& run, uint64_t run_number);
  // Adds another campaign's (or shard's) coverage.
  void merge(const Coverage& other);

  uint64_t runs() const { return runs_; }
  const std::map<std::string, CoverageHits>& items() const { return items_; }
  const std::map<std::string, CoverageHits>& states() const { return states_; }
  const std::vector<std::string>& universe() const { return universe_; }  // sorted
  // The universe's items no run covered, sorted.
  std::vector<std::string> never_covered() const;
  // Whether `item` was covered by some run.
  bool covers(const std::string& item) const { return items_.count(item) != 0; }

  // One point of the coverage curve: after the runs numbered <= run.
  struct CurvePoint {
    uint64_t run = 0;
    uint64_t items = 0;
    uint64_t states = 0;
  };
  // The points where the count of items or states grows, in run order.
  std::vector<CurvePoint> curve() const;

  bool operator==(const Coverage&) const = default;

  // {"runs":N,"items":{name:{"runs":R,"first":F}},"states":{...},"universe":[...]}
  nlohmann::json to_json() const;
  // Throws std::runtime_error naming `what` and the field for a value that
  // is not such an object (counts above `max_runs`, unsorted universe...).
  static Coverage from_json(const nlohmann::json& j, const std::string& what, uint64_t max_runs);

 private:
  uint64_t runs_ = 0;
  std::map<std::string, CoverageHits> items_;
  std::map<std::string, CoverageHits> states_;
  std::vector<std::string> universe_;
};

}  // namespace locksim
