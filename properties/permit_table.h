// The permit table: which faults may explain which report. Every kind of
// report a checker makes is one row: its property, what it reports, which
// faults may explain it (in words, as docs/properties.md's table shows
// them), and its class, which the code applies. Checker::report() takes
// the row of each violation and bounds the checker's scope by its class:
//  - None: no fault explains it (a break of a script's contract, an error
//    reply, a protocol break); its scope is emptied, so it is unexplained
//    under every fault;
//  - ServersOnly: only server faults may (client faults are dropped);
//  - Scoped: the checker's own scope (whose clients, from when);
//  - Any: any fault of any client or server.
// tests/properties/permit_table_test.cc checks that the page's table is
// this one, row for row and word for word, and that a checker's reports
// carry the scope their row allows.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "properties/cause.h"

namespace locksim {

enum class Report : uint8_t {
  Unset,  // a violation not made by a checker (tests, hand-built)
  ExclusiveTwoOwners,
  MutualOverlap,
  FifoPassedOrPurged,
  FifoRefusedPollMovedDeadline,
  FifoStaleHead,
  FifoJoinedBehindStale,
  FifoFreeLockRefused,
  GhostLeftInLine,
  WatchdogHoldLost,
  WatchdogHeldPastExpiry,
  WatchdogKeyExpiry,
  WatchdogRenewedForNonOwner,
  WatchdogRenewedAfterRelease,
  WatchdogExplicitLeaseRenewed,
  LivenessWaitPastBound,
  LivenessReleaseWokeNobody,
  ReentrancyCountsDisagree,
  ReentrancyContractBreak,
  ScriptErrorReply,
  BusyPollStorm,
  BusyPollBackoffIgnored,
};

enum class Permits : uint8_t { None, ServersOnly, Scoped, Any };

struct PermitRow {
  Report report;
  std::string_view property;     // a property::k* name
  std::string_view report_text;  // the table's "report" column
  std::string_view faults_text;  // its "faults that may explain it" column
  Permits permits;
};

// Every row, in the page's order (Report::Unset has none).
std::span<const PermitRow> permit_table();
// The row of `report` (not Unset).
const PermitRow& permit_row(Report report);
// `scope` as the row's class bounds it: None empties it, ServersOnly drops
// its client faults, Any is every fault, Scoped leaves it.
FaultScope bounded_scope(const PermitRow& row, FaultScope scope);

}  // namespace locksim
