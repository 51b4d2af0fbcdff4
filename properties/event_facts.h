// EventFacts: an event's script name read once into a type, and its reply's
// two facts the checkers ask most (the reply itself is typed: EventReply).
// The HistoryContext reads them for each event before any checker sees it,
// so the checkers compare enums instead of strings on every event. (The
// event's operation is typed already: Event::op, traces/op.h.)
//
// Contract: every fact answers exactly what the string comparison it
// replaces answered, for any string a trace may hold. A script name that is
// not one of the known ones reads as no ScriptKind, and the prefix and
// suffix flags are read from the string itself (a trace may name a script
// "fair_x", which is fair but not a ScriptKind).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/script_call.h"
#include "traces/event.h"

namespace locksim {

struct EventFacts {
  std::optional<ScriptKind> script;  // e.script is script_name(*script); nullopt otherwise
  bool fair_prefix = false;          // e.script starts with "fair_"
  bool acquire_suffix = false;       // e.script ends with "_acquire"
  bool try_once_suffix = false;      // ... with "_try_once"
  bool renew_suffix = false;         // ... with "_renew"
  bool release_suffix = false;       // ... with "_release"
  bool reply_nil = false;                // e.reply.is_nil()
  std::optional<int64_t> reply_integer;  // e.reply's integer, when it is one

  bool script_is(ScriptKind kind) const { return script == kind; }
  // rlock_acquire, fair_acquire, fair_try_once or faster_multi_acquire: the
  // scripts that grant (a faster multi-lock's per value: one event each).
  bool granting_script() const {
    return script == ScriptKind::RlockAcquire || script == ScriptKind::FairAcquire ||
           script == ScriptKind::FairTryOnce || script == ScriptKind::FasterMultiAcquire;
  }
  // fair_acquire or fair_try_once: a fair waiter's poll.
  bool fair_poll() const { return script == ScriptKind::FairAcquire || script == ScriptKind::FairTryOnce; }
  // rlock_release, fair_release, spin_release or faster_multi_release.
  bool release_script() const {
    return script == ScriptKind::RlockRelease || script == ScriptKind::FairRelease ||
           script == ScriptKind::SpinRelease || script == ScriptKind::FasterMultiRelease;
  }
  // rlock_renew or faster_multi_renew: a watchdog's renewal.
  bool renew_script() const { return script == ScriptKind::RlockRenew || script == ScriptKind::FasterMultiRenew; }
  // rlock_acquire or faster_multi_acquire: a refusal answers the key's PTTL.
  bool pttl_acquire() const { return script == ScriptKind::RlockAcquire || script == ScriptKind::FasterMultiAcquire; }
  // The reply is the integer `value`.
  bool reply_is(int64_t value) const { return reply_integer == value; }
};

// Reads the facts of `e` (of any kind: the script facts of a non-script
// event describe its script string, which is normally empty).
EventFacts facts_of(const Event& e);

}  // namespace locksim
