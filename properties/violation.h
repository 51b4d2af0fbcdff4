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
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/cause.h"
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

struct Violation {
  std::string property;               // one of property::k*
  LockRef lock;                       // lock concerned (empty if none; a group member's group: lock.group())
  std::string message;                // one-sentence explanation
  std::vector<uint64_t> event_ids;    // evidence, in history order
  std::vector<int64_t> true_us;       // true time of each evidence event
  std::vector<std::string> owners;    // owners involved
  std::string blamed_fault;           // the checker's guess at the fault that made it possible, or ""
  FaultScope scope;                   // which faults may explain it (default: none, a protocol violation)
  Cause cause;                        // what re-runs without faults showed (properties/cause_search.h)
  uint64_t detected_at_event = 0;     // id of the event at which it was found
                                      // (set by CheckerSuite; the last event at finish)

  // Explained: a confirmed cause (re-runs showed a fault it permits was needed).
  bool explained() const { return cause.confirmed(); }
  // "property [lock]: message (events #1 @1.000s, #7 @31.200s); blamed: ...;
  // cause: confirmed by 5 re-runs: ..." (the cause once searched, or why not).
  std::string to_string() const;
  bool operator==(const Violation&) const = default;
};

// {"property","lock","message","event_ids","true_us","owners","blamed_fault","detected_at_event",
//  "explained","cause":cause_to_json}.
nlohmann::json violation_to_json(const Violation& v);

// "41 000 ms": milliseconds with thousands grouped by spaces (reports only).
std::string format_ms(int64_t ms);

}  // namespace locksim
