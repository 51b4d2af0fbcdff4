// Violation: one property failure found by a checker in a history. It names
// the property, explains it in one sentence, and points at the evidence: the
// event ids involved, their true times, the owners involved and, where a fault
// made the failure possible, that fault ("client 3 paused 41 000 ms > lease
// 30 000 ms"): a readable guess, which explains nothing by itself. Which
// faults may explain it is its `scope`; whether re-runs proved one did is its
// `cause` (properties/cause.h), and only a confirmed cause explains it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/cause.h"
#include "properties/permit_table.h"
#include "traces/lock_ref.h"

namespace locksim {

// Stable property names (used in reports, JSON and mutant results).
namespace property {
inline constexpr const char* kExclusiveOwnership = "exclusive_ownership";
inline constexpr const char* kMutualExclusion = "mutual_exclusion";
inline constexpr const char* kFifoFairness = "fifo_fairness";
inline constexpr const char* kGhostWaiter = "ghost_waiter";
inline constexpr const char* kWatchdogExpiry = "watchdog_expiry";
inline constexpr const char* kLiveness = "liveness";
inline constexpr const char* kReentrancy = "reentrancy";
inline constexpr const char* kBusyPoll = "busy_poll";
inline constexpr const char* kScriptError = "script_error";
}  // namespace property

// Every property name, in checker order.
std::vector<std::string> all_properties();
// Advisory properties (busy_poll) are reported but fail a campaign only when
// named with --fail-on; every other property fails it by default.
bool is_advisory_property(std::string_view name);

struct Violation;
// Adds `v` to `tally`: advisory (an advisory property not in fail_on),
// explained (a confirmed cause) or unexplained.
void tally_violation(struct ResultTally* tally, const Violation& v, bool advisory);

// What Violation::to_string() writes before a searched cause: a text that
// holds it already gives its cause (reports/timeline.h violation_subtitle).
inline constexpr std::string_view kCauseMark = "; cause: ";

// What a violation's sentences state that code reads, as data beside them
// (no consumer searches a sentence): the events each names, and the figures
// a report draws. A checker sets them where it writes its sentences;
// tests/properties/violation_facts_test.cc checks, over many runs, that
// named_ids and blamed_ids are exactly the "#<id>" the sentences write.
struct ViolationFacts {
  std::vector<uint64_t> named_ids;    // the events the message names ("at event #17"), in its order
  std::vector<uint64_t> blamed_ids;   // the events the blamed fault names, in its order
  // The fault events the guess blames, whether its sentence writes their
  // ids or not ("client 3 paused 41 000 ms > lease 30 000 ms": that pause's
  // event): blamed_ids and those, in the guess's order. A guess naming no
  // fault event (a hold past its explicit lease) has none.
  std::vector<uint64_t> blamed_fault_ids;
  int64_t bound_ms = -1;              // liveness: the bound a wait passed (-1: none)
  uint64_t free_since_event = 0;      // liveness: the event since which the server showed the lock free (0: none)
  int64_t polls = -1;                 // busy_poll: the storm's polls (-1: none)
  int64_t polls_per_s = -1;           // busy_poll: their rate, as the message writes it (-1: none)
  std::string line_head;              // busy_poll: the owner heading the line it polled behind ("": none named)
  // A script's reply or writes contradicted the server's own state at the
  // instant it ran (a release answered "released" to, or changed the holders
  // for, an owner the server did not list): a break of the script's
  // contract, which no fault permits (its scope is empty).
  bool contract_break = false;
  // The guess (blamed_fault) names a client's clock setup (its offset or
  // drift), which no event names: it stands beside a proof only when the
  // proof is a clock setup too (stated_blame).
  bool blames_clock_setup = false;
  bool operator==(const ViolationFacts&) const = default;
};

// A checker's guess at the fault behind a violation: its sentence, the
// events the sentence names ("client 2 partitioned for 1 200 ms at event
// #17": {17}), and the fault events it blames without writing their ids
// ("client 3 paused 41 000 ms > lease 30 000 ms": the pause's event).
// Empty text: nothing to blame.
struct Blame {
  Blame() = default;
  Blame(std::string text_in, std::vector<uint64_t> ids = {}, std::vector<uint64_t> unwritten = {})
      : text(std::move(text_in)), event_ids(std::move(ids)), unwritten_fault_ids(std::move(unwritten)) {}
  std::string text;
  std::vector<uint64_t> event_ids;
  std::vector<uint64_t> unwritten_fault_ids;
};

struct Violation {
  std::string property;               // one of property::k*
  LockRef lock;                       // lock concerned (empty if none; a group member's group: lock.group())
  std::string message;                // one-sentence explanation
  std::vector<uint64_t> event_ids;    // evidence, in history order
  std::vector<int64_t> true_us;       // true time of each evidence event
  std::vector<std::string> owners;    // owners involved
  std::string blamed_fault;           // the checker's guess at the fault that made it possible, or ""
  ViolationFacts facts;               // what the message and blamed_fault state, as data
  Report report = Report::Unset;      // its row of the permit table (properties/permit_table.h)
  FaultScope scope;                   // which faults may explain it, as its row bounds it (default: none)
  Cause cause;                        // what re-runs without faults showed (properties/cause_search.h)
  uint64_t detected_at_event = 0;     // id of the event at which it was found
                                      // (set by CheckerSuite; the last event at finish)

  // Explained: a confirmed cause (re-runs showed a fault it permits was needed).
  bool explained() const { return cause.confirmed(); }
  // The checker's guess (blamed_fault) as far as the re-runs leave it
  // standing: all of it while nothing was proven either way (not searched,
  // no scope, unconfirmed); when a cause is confirmed, only if that cause
  // is a fault the guess blames (facts.blamed_fault_ids), or a clock setup
  // where the guess names one (facts.blames_clock_setup); never when the
  // re-runs showed that no permitted fault explains it (Persists). ""
  // otherwise: one violation, one sentence.
  // The guess itself stays in JSON as "hypothesis".
  const std::string& stated_blame() const;
  // Sets blamed_fault, the events it names and the fault events it blames.
  void set_blame(Blame b);
  // "property [lock]: message (events #1 @1.000s, #7 @31.200s); blamed: ...;
  // cause: confirmed by 5 re-runs: ..." (the cause once searched, or why not;
  // "blamed" only as stated_blame() leaves it).
  std::string to_string() const;
  bool operator==(const Violation&) const = default;
};

// {"property","lock","message","event_ids","true_us","owners","blamed_fault","detected_at_event",
//  "explained","cause":cause_to_json,"hypothesis"}, and "contract_break":true for a break of a
// script's contract. "blamed_fault" is stated_blame(); "hypothesis" the checker's guess, whatever
// the re-runs showed.
nlohmann::json violation_to_json(const Violation& v);

// "41 000 ms": milliseconds with thousands grouped by spaces (reports only).
std::string format_ms(int64_t ms);

}  // namespace locksim
