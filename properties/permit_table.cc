#include "properties/permit_table.h"

#include <array>
#include <cassert>

#include "properties/violation.h"

namespace locksim {

namespace {

using P = Permits;
using R = Report;

// The page's table (docs/properties.md), row for row.
constexpr std::array<PermitRow, 21> kRows = {{
    {R::ExclusiveTwoOwners, property::kExclusiveOwnership, "two owners in one hash", "none", P::None},
    {R::MutualOverlap, property::kMutualExclusion, "believed holds overlap",
     "the two holders' pauses, partitions, losses, clocks and slow links from the earlier hold's invoke; the lock's "
     "servers' restarts, failovers, clock jumps and drift",
     P::Scoped},
    {R::FifoPassedOrPurged, property::kFifoFairness, "a waiter passed or purged while live",
     "any fault of any client or server", P::Any},
    {R::FifoRefusedPollMovedDeadline, property::kFifoFairness, "a refused poll moved a slot deadline",
     "server faults only (a promoted replica, or a restart's older save, holds the line from before the scripts that "
     "moved it)",
     P::ServersOnly},
    {R::FifoStaleHead, property::kFifoFairness, "a stale head left at the head of the line", "none", P::None},
    {R::FifoJoinedBehindStale, property::kFifoFairness, "a waiter joined behind one past its slot", "none", P::None},
    {R::FifoFreeLockRefused, property::kFifoFairness, "a free lock refused", "none", P::None},
    {R::GhostLeftInLine, property::kGhostWaiter, "a waiter left in the line after giving up",
     "its client's faults (not its crash) and any server's, from its invoke", P::Scoped},
    {R::WatchdogHoldLost, property::kWatchdogExpiry, "a hold lost while renewed",
     "its client's faults (not its crash) from the server's grant of the hold; server faults from its invoke", P::Scoped},
    {R::WatchdogHeldPastExpiry, property::kWatchdogExpiry, "a holder still listed past its key's expiry", "none",
     P::None},
    {R::WatchdogKeyExpiry, property::kWatchdogExpiry, "a key's remaining time shorter than its last reset gave it",
     "none", P::None},
    {R::WatchdogRenewedForNonOwner, property::kWatchdogExpiry, "a renewal answered \"renewed\" to a non-owner", "none",
     P::None},
    {R::WatchdogRenewedAfterRelease, property::kWatchdogExpiry, "a renewal after the final release", "none", P::None},
    {R::WatchdogExplicitLeaseRenewed, property::kWatchdogExpiry, "a hold with an explicit lease renewed", "none",
     P::None},
    {R::LivenessWaitPastBound, property::kLiveness, "a wait past its bound",
     "its client's faults and its lock's servers'", P::Scoped},
    {R::LivenessReleaseWokeNobody, property::kLiveness, "a release that published no wake-up", "none", P::None},
    {R::ReentrancyCountsDisagree, property::kReentrancy,
     "an unlock's answer disagrees with the hold count (a group's unlock, which ignores its members' failures, only "
     "when it held the group); a retried release answers otherwise than its first",
     "its client's faults (not its crash) and any server's", P::Scoped},
    {R::ReentrancyContractBreak, property::kReentrancy,
     "a release answers other than \"not owned\" to, or changes the holders for, an owner the server did not list (a "
     "contract break)",
     "none", P::None},
    {R::ScriptErrorReply, property::kScriptError, "an error reply", "none", P::None},
    {R::BusyPollStorm, property::kBusyPoll, "a poll storm", "any", P::Any},
    {R::BusyPollBackoffIgnored, property::kBusyPoll, "a spin waiter's attempt sooner than its back-off allows", "any",
     P::Any},
}};

}  // namespace

std::span<const PermitRow> permit_table() { return kRows; }

const PermitRow& permit_row(Report report) {
  for (const PermitRow& row : kRows)
    if (row.report == report) return row;
  assert(false && "permit_row: a report without a row");
  return kRows[0];
}

FaultScope bounded_scope(const PermitRow& row, FaultScope scope) {
  switch (row.permits) {
    case Permits::None: return FaultScope::none();
    case Permits::ServersOnly:
      scope.clients = FaultScope::Who::None;
      scope.client_list.clear();
      scope.slow_links = false;
      scope.servers = true;
      return scope;
    case Permits::Scoped: return scope;
    case Permits::Any: return FaultScope::any();
  }
  return FaultScope::none();
}

}  // namespace locksim
