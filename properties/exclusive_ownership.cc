#include "properties/exclusive_ownership.h"

namespace locksim {

void ExclusiveOwnershipChecker::on_event(const Event& e) {
  if (e.kind != EventKind::Script) return;
  if (e.holders_after.size() <= 1) {
    // Nearly always empty: no key built for nothing.
    if (!over_owned_.empty()) over_owned_.erase(std::make_pair(e.server, e.lock));
    return;
  }
  if (!over_owned_.insert(std::make_pair(e.server, e.lock)).second) return;  // already reported this episode
  Violation v;
  v.lock = e.lock;
  std::string names;
  for (const std::string& o : e.holders_after) names += (names.empty() ? "" : ", ") + o;
  v.message = "after " + e.script + " by " + e.owner.str() + " on server " + std::to_string(e.server) +
              " the lock hash has " + std::to_string(e.holders_after.size()) + " owners: " + names;
  v.event_ids = {e.id};
  v.true_us = {e.true_us};
  v.owners = e.holders_after;
  report(Report::ExclusiveTwoOwners, std::move(v));
}

}  // namespace locksim
