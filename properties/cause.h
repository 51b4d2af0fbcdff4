// Causes of a violation (lock-semantics.md section 5, "Causes").
//  - FaultScope: which faults a property permits to explain a violation,
//    set by the checker that reports it. A violation of the protocol itself
//    (two owners in one hash, a renewal granted to a non-holder, a script
//    error, a stale waiter left at the head of the line) is explained by no
//    fault: its scope is empty. A violation of what clients believe or wait
//    for (overlapping believed holds, a late waiter, a hold lost) may be the
//    fault's doing: its scope names whose faults may explain it and from when.
//  - CauseFault: one fault of a run, as a cause names it.
//  - Cause: what re-running the violation's plan without some of its faults
//    showed (properties/cause_search.h). Only a Confirmed cause explains a
//    violation; every other status leaves it unexplained, whatever the
//    checker's sentence (Violation::blamed_fault) says.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/fault_kind.h"
#include "traces/lost_message.h"
#include "traces/op.h"
#include "traces/persistence.h"

namespace locksim {

struct FaultScope {
  enum class Who { None, Listed, All };
  Who clients = Who::None;       // whose client faults (pauses, partitions, crashes, losses, clocks)
  std::vector<int> client_list;  // Listed: these clients
  int64_t client_from_us = 0;    // a client fault counts from here (a pause or partition that ends here too)
  bool crashes = true;           // a crash of those clients counts (a crash ends its process's beliefs:
                                 // it explains no overlap of believed holds, no hold it lost)
  bool slow_links = false;       // a slow link of those clients counts: an acquire told "held" later than
                                 // the lease it took ran (lock-semantics.md 5: "delays longer than the lease")
  bool servers = false;          // server faults (restarts, failovers, clock jumps, drift) ...
  std::vector<int> server_list;  // ... of these servers (empty: of any)
  int64_t server_from_us = 0;    // a server fault counts from here (a restart's down time that ends here too)

  bool excusable() const { return clients != Who::None || servers; }
  bool has_client(int c) const;

  // Nothing explains it: a protocol violation (the default).
  static FaultScope none() { return {}; }
  // Any fault of any client or server (a slow link only where a property
  // says so: slow_links).
  static FaultScope any() {
    FaultScope scope;
    scope.clients = Who::All;
    scope.servers = true;
    return scope;
  }
  bool has_server(int s) const;
  bool operator==(const FaultScope&) const = default;
};

// A cause names its faults by FaultKind (traces/fault_kind.h): the plan's
// actions (Pause, Partition, Crash, ClientClockJump, ServerClockJump,
// RedisRestart, Failover), the link's losses (LostRequest, LostReply: the
// client waits out its request timeout; LostMessage: a wake-up;
// LostSubscribe: a subscribe or its acknowledgement), a run's clock setups
// (ClientClockSkew: a client's offset and drift; ServerClockDrift) and
// SlowLink (a client's link delays: an acquire answered after the lease it
// took ran out). RequestTimeout is never a cause (a lost message or a slow
// link is).

// "pause", "lost_reply", ... (JSON).
std::string_view cause_kind_name(FaultKind kind);

struct CauseFault {
  FaultKind kind = FaultKind::Pause;
  uint64_t event_id = 0;     // its Fault event in the history (clock setups: none, 0)
  int64_t true_us = 0;       // when it struck (clock setups: 0)
  int client = -1;           // client faults
  int server = -1;           // server faults
  int64_t duration_ms = 0;   // pause, partition, down time; clock jump (signed); skew: offset;
                             // slow link: how long after the lease was taken the client was told "held"
  int64_t lease_ms = 0;      // slow link: the lease that acquire took
  int64_t drift_ppm = 0;     // clock setups: the clock's drift
  LostMessage lost;          // lost kinds: the message
  Persistence persistence = Persistence::None;  // RedisRestart: what the server kept
  Op op = Op::None;          // slow link: the acquire (lock or try_lock) ...
  LockRef lock;              // ... and its lock
  std::string note;          // the Fault event's note (a failover's "replica promoted, ..."; a lost
                             // event whose message the reader did not know)
  bool operator==(const CauseFault&) const = default;

  // What JSON's "detail" says: lost: the message ("reply rlock_renew
  // lsim:L0"); restart: "persistence always" when the data was kept; slow
  // link: the operation ("try_lock lsim:L0"); clock setups: "drift 30 ppm";
  // failover: its note.
  std::string detail() const;
  // "client 2 paused 4 400 ms at event #700", "lost reply #812 (reply
  // rlock_acquire lsim:L0@1 to client 2; it waited out its request timeout)".
  std::string text() const;
  // The tally's name of its kind: "pause", "lost reply + request timeout",
  // "restart without persistence", "clock skew", ...
  std::string label() const;
};

enum class CauseStatus {
  NotSearched,  // no re-run was made (no plan, re-runs off, or the policy does not count it)
  Confirmed,    // without `faults` the run no longer violates, and without fewer of them it still does
  Persists,     // the plan still violates without every fault the property permits: no fault explains it
  Unconfirmed,  // the re-run cap was hit, or the plan did not show the violation again
  NoScope,      // the property permits no fault to explain it (a protocol violation)
};

std::string_view cause_status_name(CauseStatus status);

struct Cause {
  CauseStatus status = CauseStatus::NotSearched;
  std::vector<CauseFault> faults;  // Confirmed: a smallest set found (one fault when one will do);
                                   // Unconfirmed: the best so far (may be empty)
  int reruns = 0;                  // runs this verdict rests on
  std::string note;                // why unconfirmed ("re-run cap of 96 reached", ...)

  bool confirmed() const { return status == CauseStatus::Confirmed; }
  // The tally key of a confirmed cause: its faults' labels, sorted, unique,
  // joined by " + " ("lost reply + request timeout + pause"); "" otherwise.
  std::string kind() const;
  // "confirmed by 12 re-runs: client 2 paused ...; lost reply #812 ..." or
  // "unexplained: the violation persists without ...".
  std::string text() const;
  bool operator==(const Cause&) const = default;
};

// {"faults":[{"kind","event","true_us","client","server","duration_ms","detail","text"}],
//  "confirmed":bool,"status":name,"kind":tally key,"reruns":N,"note":text}
nlohmann::json cause_to_json(const Cause& cause);

// The three kinds of result of a set of violations: unexplained ones (a
// failure whatever the faults), explained ones tallied by cause kind, and
// advisory reports (properties/violation.h: is_advisory_property).
struct ResultTally {
  uint64_t unexplained = 0;
  uint64_t explained = 0;
  uint64_t advisory = 0;
  std::map<std::string, uint64_t> explained_by_kind;  // Cause::kind() -> count
  void add(const ResultTally& other);
  // "pause: 20, lost reply + request timeout: 12" (largest first, then by name).
  std::string kinds_text() const;
};

}  // namespace locksim
