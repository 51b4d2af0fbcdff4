// GhostWaiterChecker: a fair waiter whose client gave up waiting must leave
// the server's line. An owner that stays in the line after its client gave
// up is a ghost: until its slot ends it heads or holds up the line, and a
// free lock waits for it.
//
// Judged from the server's line (line_after of fair scripts, trace version
// 2; a version 1 trace is judged on nothing). A fair acquire (lock or
// try_lock of a lock fair scripts ran on) that ran fair_acquire (a
// try_once never joins the line) or whose request timed out gives up when
// it ends without the lock: a Fail (its wait ran out) or an Info (a
// timeout, an error reply), a crash aside (a crashed waiter keeps its slot,
// which is the protocol's).
// The give-up is then a ghost at the first fair script on its lock, after
// the give-up, whose line still holds the owner:
//  - no acquire_failed was sent: at once (nothing will take it out);
//  - acquire_failed was sent: at its own script when that answers an error
//    or leaves the owner in the line; before that script ran, only once
//    2 x the request timeout passed since the give-up (the request was lost
//    or held up);
//  - and at any event 2 x the request timeout after the give-up when its
//    lock's latest line still holds the owner (no fair script ran since),
//    or at the end of the history when that line still holds it and either
//    no acquire_failed was sent or that time has passed.
// A give-up is settled (no ghost) once a line of its lock lacks the owner,
// or when the owner's task asks for the lock again, or its client crashes.
// What may explain a ghost (FaultScope, properties/cause.h): the faults of
// the owner's client since its acquire was invoked (a lost acquire_failed
// request, a partition), no crash, and its lock's servers' (a failover that
// brought back an older line). The sentence names a lost acquire_failed.
// Memory: per fair lock its latest line; per owner at most one give-up; per
// pending acquire its lock.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "properties/checker.h"
#include "properties/history_context.h"

namespace locksim {

class GhostWaiterChecker : public Checker {
 public:
  // shared: the suite's HistoryContext (fed by the suite); null: a private one.
  explicit GhostWaiterChecker(const CheckConfig& config, const HistoryContext* shared = nullptr)
      : Checker(config), ctx_(config, shared) {}
  std::string_view name() const override { return property::kGhostWaiter; }
  void on_event(const Event& e) override;
  void finish(int64_t end_true_us) override;

 private:
  struct GiveUp {
    LockRef lock;
    int client = -1;
    uint64_t op_id = 0;
    uint64_t event_id = 0;   // the Fail or Info that ended the acquire
    int64_t true_us = 0;
    int64_t invoke_us = 0;   // its acquire's invoke
    bool failed_sent = false;  // the client sent acquire_failed
    std::string how;         // "gave up waiting", "timed out", ...
  };
  struct Pending {           // an acquire in progress
    LockRef lock;
    int64_t invoke_us = 0;
    bool failed_sent = false;
    bool polled = false;     // it ran fair_acquire (it may be in the line)
  };
  struct LastLine {
    SharedLine line;
    uint64_t event_id = 0;
    int64_t true_us = 0;
  };
  void on_line(const Event& e);
  void judge_overdue(int64_t now_us);
  void report_ghost(const std::string& owner, const GiveUp& g, const Event* seen, const LastLine* last,
                    const std::string& why);
  Blame blame(const GiveUp& g, int64_t now_us) const;
  static bool in_line(const SharedLine& line, const std::string& owner);

  CheckerContext ctx_;
  std::set<std::string> fair_locks_;            // locks fair scripts ran on
  std::map<std::string, LastLine> last_line_;   // fair lock -> its latest line
  // Looked up by op_id on every client event, never iterated: unordered.
  std::unordered_map<uint64_t, Pending> pending_;
  std::map<std::string, GiveUp> give_ups_;      // owner -> its unsettled give-up
};

}  // namespace locksim
