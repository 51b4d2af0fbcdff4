// Event: one entry of a run's history, in true virtual time. The vocabulary is
// Jepsen's: a client *invokes* an operation that completes *ok*, *fail* or
// *info* (outcome unknown / client-side notice); *script* events are script
// executions on a server (the server's truth); *deliver* is a pub/sub message
// reaching a client; *fault* is a nemesis action; *verdict* a checker result.
//
// History contract (what the simulator emits; what checkers rely on):
//  - Invoke  {op: lock|try_lock|unlock|force_unlock, client, owner, lock,
//             wait_ms, lease_ms, op_id (unique per operation, > 0), local_ms}
//  - Ok      {same op_id/op/owner/lock}: lock/try_lock: value=1, acquired (the
//             believed hold starts here; token = its hold's token when the
//             pack's design takes a fresh one per acquire, trace version 4). unlock: value = release reply (0 still
//             held, 1 released). force_unlock: value = reply.
//  - Fail    acquire gave up (value=0, detail says why: "wait budget exhausted");
//             unlock answered nil (reason IllegalMonitorState).
//  - Info    outcome unknown (reason Timeout, Crashed) for an op_id; or a
//             client-side notice with its own op: "hold_lost" (the client learns
//             its lock is gone: renew answered 0), "watchdog_stop",
//             "acquire_failed" sent by a fair waiter giving up.
//  - Script  one script execution on `server` at `server_ms` (true time =
//             arrival at the server): script, owner, lock, op_id of the causing
//             operation (watchdog renewals use op "renew" and their own op_id),
//             lease_ms, wait_ms, request_id, reply, holders_after, published.
//             client = the requesting client. Fair-lock scripts (trace
//             version 2) also carry server truth for the waiting line:
//             local_ms = the `now_ms` argument the client sent (0 for
//             acquire_failed, which takes none) and line_after = the line
//             right after the script, head first, each owner with its slot
//             deadline (line_known = true, even for an empty line).
//             error_declared when the reply is an error the script pack
//             declares part of its conventions.
//  - Deliver a pub/sub message reaching `client`: published = {"channel payload"}.
//  - Fault   op: crash (target client; all its believed holds end), restart
//             (target client, detail = new client uuid), pause (target client,
//             duration_ms; the client does nothing until "resume"), resume,
//             clock_jump (client >= 0: that client's clock, else server;
//             duration_ms signed), partition (target client, duration_ms),
//             heal, redis_restart (target server; persistence: what it kept;
//             duration_ms: down time), failover (target server; duration_ms:
//             the replica's lag, value: scripts not replicated), lost (client,
//             lost: the message; value: its ordinal when losses are keyed),
//             delayed (explore's schedule: lost names the late message).
//  - Every typed fact of the detail (reason, once, error_declared,
//    persistence, lost) is written into the trace's "d" text and read back
//    from it by traces/event_detail.h; `detail` holds the rest, a note for
//    people: no code below the trace reader compares it.
//  - A believed hold of `owner` on `lock` runs from the Ok of its first
//    acquire (hold count 0 -> 1) to the Invoke of the unlock that brings the
//    count to 0, or to hold_lost, or to the owner's client crashing.
//
// The struct is flat on purpose: checkers make one pass over a stream of these
// with bounded memory, and the trace writer omits fields left at their defaults.
// Times: `true_us` is the simulator's true time; `local_ms` the acting node's
// own (skewed) clock; `server_ms` the Redis clock a script saw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/event_reply.h"
#include "traces/line_entry.h"
#include "traces/lock_ref.h"
#include "traces/lost_message.h"
#include "traces/op.h"
#include "traces/owner_id.h"
#include "traces/persistence.h"
#include "traces/shared_line.h"

namespace locksim {

// Names the content of an event's fair line within one producer's stream:
// two events with the same non-zero token carry equal lines (line_after),
// so a consumer holding the line of token T may skip comparing a line of
// token T. 0: no name (compare). The simulator takes the model store's line
// tokens; the trace reader names each line it decodes ("lr":1 repeats a
// token). Not part of what the history says: events that differ only in
// their token are equal (a run's event and its trace's decoding may differ
// here), and tokens of different producers must not be mixed.
struct LineToken {
  uint64_t value = 0;
  bool operator==(const LineToken&) const { return true; }
};

enum class EventKind { Invoke, Ok, Fail, Info, Script, Deliver, Fault, Verdict };

// The detail text of a script event whose error reply the pack declares.
inline constexpr const char* kDeclaredReplyDetail = "error declared by the pack";

// Why an operation ended as its Fail or Info says (the detail's words:
// "timeout", "crashed", "illegal monitor state").
enum class EndReason : uint8_t {
  None,
  Timeout,              // no reply within the request timeout: the outcome is unknown
  Crashed,              // its client crashed: the outcome is unknown
  IllegalMonitorState,  // unlock of a lock the owner does not hold (a group's note may follow)
};
std::string_view event_kind_name(EventKind kind);
bool event_kind_from_name(std::string_view name, EventKind* out);

// Client operations (Invoke/Ok/Fail/Info `op`), watchdog actions and faults
// are named by an Op (traces/op.h); a trace writes op_name(op):
//   ops:     "lock", "try_lock", "unlock", "force_unlock", "renew" (watchdog),
//            "acquire_failed", "hold_lost" (client learns its hold is gone),
//            "watchdog_stop", "validity_end"
//   faults:  "crash", "restart", "pause", "resume", "clock_jump", "partition",
//            "heal", "redis_restart", "failover", "lost" (a message the link
//            dropped at random; detail says which: "request S L", "reply S L",
//            "subscribe C", "subscribe_ack C", "message C"), "delayed"
struct Event {
  uint64_t id = 0;          // position in the history, from 0, strictly increasing
  int64_t true_us = 0;      // true virtual time
  EventKind kind = EventKind::Info;

  // Who acted. client = simulated client node index (-1: none);
  // server = Redis server index (-1: none).
  int client = -1;
  int server = -1;
  OwnerId owner;            // "<client-uuid>:<task>" for lock operations (traces/owner_id.h)
  LockRef lock;             // the lock (a group member "<group>@<i>": traces/lock_ref.h)
  Op op = Op::None;         // operation / fault (see above)
  uint64_t op_id = 0;       // links invoke -> completion -> scripts it caused (0: none)
  int64_t local_ms = 0;     // acting client's local clock at the event

  // Operation parameters and outcome.
  int64_t wait_ms = -1;     // -1: no wait given (lock() / tryLock() without wait)
  int64_t lease_ms = -1;    // -1: default lease with watchdog
  int64_t value = 0;        // ok: 1 acquired / 0 not; unlock: script reply
  // What the detail says, typed (see the contract above):
  EndReason reason = EndReason::None;           // Fail, Info: why it ended so
  bool once = false;                            // Invoke of try_lock: tryLock() without wait
  bool error_declared = false;                  // Script: the pack declares its error reply
  Persistence persistence = Persistence::None;  // Fault redis_restart: what the server kept
  LostMessage lost;                             // Fault lost, delayed: which message
  std::string detail;       // the rest: a note for people ("wait budget exhausted", a new uuid)
  // Under a design with fresh tokens (impl/lock_design.h): on a lock/try_lock
  // Ok the token that marks this hold on the server, on a Script event the
  // token its call sent (its holders_after still name owners); else empty.
  std::string token;

  // Script events.
  std::string script;                 // script name (model/script_call.h)
  std::string request_id;             // release latch request id
  EventReply reply;                   // the script's reply (typed; its text: Reply::to_string())
  int64_t server_ms = 0;              // server clock when the script ran
  std::vector<std::string> holders_after;  // owner fields of `lock` after the script
  std::vector<std::string> published;      // "channel payload" per message, in order
  bool line_known = false;                 // line_after is server truth (fair scripts, v2)
  SharedLine line_after;                   // the fair line after the script, head first (shared, copied on write)
  LineToken line_token;                    // names line_after's content (see LineToken)

  // Fault events.
  int64_t duration_ms = 0;  // pause length, partition length, clock jump size (signed)
  int target = -1;          // client/server index the fault acts on

  bool operator==(const Event&) const = default;
};

// Every field but the two vectors (holders_after, published) and the line
// (line_after) back to its default (Event{}), line_token too, strings
// cleared in place so their storage is reused: for code that refills one
// Event per step (the simulator's script events, the trace decoder). The
// caller sets or clears the vectors and the line.
void reset_keeping_storage(Event* e);

}  // namespace locksim
