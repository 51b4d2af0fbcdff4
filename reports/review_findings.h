// Review findings: what a window shows that the review timeline draws in
// red with words, found from the checkers' reading of the history (a
// HistoryRecording: its holds, leases and faults) and the window's events:
//  - offending renewals, as the watchdog_expiry checker finds them: a
//    watchdog renewal (rlock_renew) answered 1 though the lock's owners
//    after it do not include its owner (someone else's lock); or, outside
//    every believed hold of its owner, after its final release completed
//    (an unlock Ok with value 1), answered 1 or started later (a newer
//    operation) and more than the renewal grace (CheckConfig::
//    renew_grace_ms) after it: its watchdog was not cancelled;
//  - retried releases: a release script (it carries a release latch's
//    request id) sent again because its first request got no answer in
//    time, with why in words: a lost request or reply, a pause or a
//    partition of its client while the request was out, or no reply within
//    the request timeout. A release is a retry when an earlier script of
//    its operation has the same request id, or when a fault of its client
//    lies between its unlock's invoke and it, which is more than the request
//    timeout later.
// Pure functions; the events pointed to are the window's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "properties/check_config.h"
#include "properties/history_recording.h"
#include "traces/event.h"
#include "traces/lock_ref.h"

namespace locksim::review {

struct OffendingRenewal {
  enum class Kind { OthersLock, AfterRelease, OutsideHolds };
  const Event* renewal = nullptr;
  Kind kind = Kind::OutsideHolds;
  std::string holder;          // OthersLock: the owner the lock's owners name after it
  uint64_t release_event = 0;  // AfterRelease: the final release's completion (its unlock Ok)
  int64_t release_us = 0;
};

struct RetriedRelease {
  const Event* retry = nullptr;   // the release script of the request sent again
  const Event* first = nullptr;   // an earlier script of the same request (nullptr: none arrived)
  uint64_t invoke_event = 0;      // its unlock's invoke (the retry's own time if not in the window)
  int64_t invoke_us = 0;
  std::string reason;             // why it was sent again, in words
};

std::vector<OffendingRenewal> offending_renewals(const HistoryRecording& rec, const std::vector<Event>& window,
                                                const CheckConfig& config);

std::vector<RetriedRelease> retried_releases(const HistoryRecording& rec, const std::vector<Event>& window,
                                             const CheckConfig& config);

// Whether a script's key is `lock` or one of its group's members ("L@1").
bool lock_matches(const LockRef& key, const LockRef& lock);
// What a lost message was ("request", "reply"; "message" when its event did not say).
std::string lost_what(const RecordedFault& f);
// Whether the event is a watchdog renewal script.
bool is_renewal(const Event& e);
// Whether a renewal's reply says it moved the expiry.
bool renewal_succeeded(const Event& e);

}  // namespace locksim::review
