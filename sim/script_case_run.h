// ScriptCaseRun: runs one case of the script case table (model/script_cases.h)
// on a Backend (server 0; the model or a live redis-server with an empty key
// prefix, since the table's key names are unprefixed) and reports the first
// expectation it misses: a step's reply (errors match any error), a step's
// publishes, then the full final snapshot.
//
// Contract: the caller's `wipe` empties the backend before the case runs; the
// steps run at their own server times, which only move forward within a case.
// Nothing is kept between calls.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "model/script_cases.h"
#include "sim/backend.h"

namespace locksim {

struct CaseMiss {
  size_t step = 0;        // 1-based; 0: the final state
  ScriptKind kind = ScriptKind::RlockAcquire;  // the step's script (final state: the last step's)
  std::string text;       // what differed, expected beside actual
};

struct CaseRunOptions {
  // Off: publishes are not compared (a pack whose message conventions are
  // its own); replies and the final state still are.
  bool compare_published = true;
  // Off: the final state is not compared (a pack whose storage layout is its
  // own by design); replies (and publishes, above) still are.
  bool compare_state = true;
};

std::optional<CaseMiss> run_script_case(Backend& backend, const std::function<void()>& wipe,
                                        const cases::ScriptCase& c, const CaseRunOptions& options = {});

// "step 2 (rlock_release): reply 1, expected 0" / "final state: ...".
std::string describe_case_miss(const CaseMiss& miss);

}  // namespace locksim
