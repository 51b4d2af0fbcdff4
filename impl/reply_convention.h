// ReplyConventions: what a script's replies mean, as a pack declares them
// (manifest field "replies", impl/script_pack.h), so that a lock answering
// "OK"/nil or 1/0 is read as ours is. Each script family has its meanings,
// each read as our reply (lock-semantics.md), which the client, the model
// and the checkers use:
//
//   acquire (rlock_acquire, fair_acquire, fair_try_once):
//       acquired -> nil          refused -> the integer (a TTL), else -1
//   release (rlock_release, fair_release):
//       released -> 1            still_held -> 0 (reentrant locks only)
//       not_owned -> nil
//   renew (rlock_renew):  extended -> 1      not_owned -> 0 (not nil)
//   force release (rlock_force_release, fair_force_release):
//       released -> 1            not_held -> 0
//
// A pattern is: JSON null or "nil" (a nil reply), a JSON integer (that
// integer), "integer" (any integer, its value kept: "refused": "integer"
// reads a TTL), or any other text (a status or bulk reply of exactly that
// text: "OK"; quote it, 'nil', to mean the text nil or integer).
// Every meaning of the family must be declared (still_held only for a
// reentrant design, where it is required), and no reply may match two
// meanings. A reply that matches no pattern becomes an error reply saying
// so; error replies pass through.
// Contract: read() is pure and deterministic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "redis/reply.h"
#include "model/script_call.h"

namespace locksim {

enum class ReplyMeaning { Acquired, Refused, Released, StillHeld, NotOwned, Extended, NotHeld };

struct ReplyPattern {
  enum class Kind { Nil, Integer, AnyInteger, Text };
  Kind kind = Kind::Nil;
  int64_t integer = 0;
  std::string text;
  bool matches(const Reply& r) const;
  std::string describe() const;  // nil, 1, integer, "OK"
};

struct ReplyConventions {
  ScriptKind kind = ScriptKind::RlockAcquire;
  std::vector<std::pair<ReplyMeaning, ReplyPattern>> rules;  // by meaning name; no reply matches two

  // `raw` read as ours (see the table above), or an error reply naming the
  // script and its declared replies when no rule matches.
  Reply read(Reply raw) const;
  // "acquired OK, refused nil": one canonical line (conventions_text).
  std::string describe() const;
  // Every meaning declared as our reply itself (acquired nil, refused
  // integer, released 1, ...): reading changes nothing a correct script
  // answers, so a pack declaring ours runs as one that declares nothing.
  bool is_ours() const;
};

std::string_view reply_meaning_name(ReplyMeaning m);
// The meanings a script's family has (empty: the script takes no "replies").
std::vector<ReplyMeaning> meanings_of(ScriptKind kind);

// Parses a "replies" object for `kind`. Throws std::invalid_argument with a
// message relative to the field ("\"not_owned\": missing").
ReplyConventions parse_reply_conventions(ScriptKind kind, const nlohmann::json& j, bool reentrant);

}  // namespace locksim
