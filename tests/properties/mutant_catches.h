// The settings on which a campaign catches each script mutant pack under
// impl/mutants/ (each the scenario its bug needs: a pause for the owner
// checks, a crash in a fair line for the stale purge and the negative wait;
// --unexplained-only where the profile breaks a correct lock by itself),
// shared by the live and the lua catch tests. `quick_to_shrink`: its
// shrinking takes seconds on live (the stale-purge mutant's liveness report
// is a poll storm of some 200,000 events whose shrinking takes minutes);
// then its shortest counterexample has at most `max_events` events. The
// negative-wait mutant is caught at seed 2, where the waiter ahead of the
// stuck one crashed: a crash ahead no longer explains a wait past the slots
// ahead (properties/liveness.h), and that seed's counterexample shrinks to
// 21 events.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace locksim::testing {

struct MutantCatch {
  std::string mutant;
  std::string settings;
  bool quick_to_shrink;
  size_t max_events = 20;
};

inline const std::vector<MutantCatch>& mutant_catches() {
  static const std::vector<MutantCatch> kCatches = {
      {"release_no_owner_check", "--profile pauses --lock rlock --unexplained-only", true},
      {"renew_no_owner_check", "--profile pauses --lock rlock --unexplained-only", true},
      {"release_no_publish", "--profile none --lock rlock", true},
      {"reentry_no_expiry_reset", "--profile none --lock rlock", true},
      {"fair_same_deadline", "--profile none --lock fair", true},
      {"fair_no_stale_purge", "--profile safe --lock fair --clients 2 --duration-ms 10000", false},
      {"fair_ttl_from_deadline", "--profile hostile --lock fair --clients 2 --unexplained-only", true, 21},
      {"fair_no_acquire_failed", "--profile none --lock fair", true},
  };
  return kCatches;
}

}  // namespace locksim::testing
