// MutualExclusionChecker: in true time, no two owners' *believed* holds of a
// lock overlap. A believed hold runs from the Ok of the acquire that takes the
// client's hold count from 0 to 1 until the Invoke of the unlock that brings it
// back to 0, a hold_lost notice, or the owner's client crashing (traces/event.h).
// On an overlap it names both holds (owners, acquire event ids, true times)
// and blames the fault that made it possible, from each client's recent faults
// (e.g. "client 3 paused 41 000 ms > lease 30 000 ms").
// Memory: per lock its current holds; per client its pending acquires and a
// bounded fault log.
#pragma once

#include <map>
#include <utility>
#include <string>

#include "properties/checker.h"
#include "properties/fault_log.h"

namespace locksim {

class MutualExclusionChecker : public Checker {
 public:
  explicit MutualExclusionChecker(const CheckConfig& config) : Checker(config), faults_(config.clock_epoch_ms) {}
  std::string_view name() const override { return property::kMutualExclusion; }
  void on_event(const Event& e) override;

 private:
  struct Hold {
    int client = -1;
    int64_t count = 0;
    uint64_t start_event = 0;
    int64_t start_us = 0;
    int64_t lease_ms = -1;  // of the acquire that started it (-1: watchdog)
    int64_t granted_server_ms = INT64_MIN;  // server clock of its latest grant (explicit lease runs from it)
  };
  struct PendingAcquire {
    int client = -1;
    int64_t lease_ms = -1;
  };
  struct ForceUnlock {
    uint64_t event_id = 0;
    int64_t true_us = 0;
    int client = -1;
  };

  void start_or_reenter(const Event& ok, int64_t lease_ms);
  std::string blame(const Hold& earlier, const std::string& lock, int64_t now_us) const;

  FaultLog faults_;
  std::map<uint64_t, PendingAcquire> pending_;                 // op_id -> acquire
  std::map<std::string, std::map<std::string, Hold>> holds_;   // lock -> owner -> hold
  std::map<std::string, ForceUnlock> last_force_unlock_;       // lock -> latest
  // Server truth: (lock, owner) -> server ms of the latest script that
  // granted or reentered it; lock -> server ms of its latest script.
  std::map<std::pair<std::string, std::string>, int64_t> granted_server_ms_;
  std::map<std::string, int64_t> lock_server_ms_;
};

}  // namespace locksim
