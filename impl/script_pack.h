// ScriptPack: a directory of lock scripts plus a manifest.json that says,
// for each of the nine scripts (model/script_call.h), how it runs and how its
// KEYS and ARGV are built from the call's *named parameters*:
//
//   {"format": "locksim-script-pack", "version": 1,
//    "model_variant": "release_no_publish",          (optional: mutant packs)
//    "scripts": {"rlock_acquire": {"file": "rlock_acquire.lua",
//                                  "keys": ["lock"], "argv": ["lease_ms", "owner"]}, ...}}
//
// A script entry is one of three forms:
//  - Lua:     "file" (+ "keys", "argv"): EVALSHA of the file's script.
//  - command: "command": "PEXPIRE" (+ "keys", "argv"): one plain Redis
//             command whose arguments are the keys then the argv values.
//  - absent:  "absent": true: the version has no such script. Only
//             fair_acquire_failed, rlock_force_release and fair_force_release
//             may be absent; the backend answers a call of an absent script
//             with an error reply and touches nothing (absent_reply()).
// Optional fields of a Lua or command entry:
//  - "reply": a reply adapter name or list of names (impl/reply_adapter.h).
//  - "replies": what the (adapted) replies mean, read as ours
//    (impl/reply_convention.h): {"acquired": "OK", "refused": null}.
//  - "errors": error reply prefixes that are part of this script's
//    conventions (e.g. ["ERR lock busy"]): such an answer is not a script
//    failure (properties/script_error.h). An absent script's answer is
//    always declared.
//  - release / force_release scripts only (they publish the unlock message):
//    "message": the unlock message value this script uses (default: the
//    call's, "0"): passed as the `message` parameter, and a published payload
//    equal to it reads as the call's message. "wake_channel": an expression
//    naming the channel it publishes to (default "channel" for the reentrant
//    lock, "channel_prefix .. ':' .. waiter" for the fair lock, where
//    `waiter` is the owner id of the woken waiter); a published channel
//    matching it reads as today's channel name.
// Keys/argv entries are expressions (impl/pack_expr.h): parameters, integer
// and quoted text literals, sums (+) and concatenations (..).
// "design" (optional; default ours) declares the lock the scripts build
// (impl/lock_design.h): how holders are read ("holders": "hash_fields",
// "string_value" or a read script {"file", "keys", "argv"}), reentrancy,
// wake-up, token and the kinds provided. With a design, a script that no
// provided kind needs (and the three optional ones) may be absent or left out.
//
// Contract:
//  - A pack is a directory or a built-in pack compiled into the library
//    (impl/builtin_packs.h): "builtin:impl/lua", "builtin:impl/mutants/<name>",
//    "builtin:impl/variants/<name>"; their files' paths are
//    "builtin:impl/lua/<file>" and so on.
//  - load(dir) reads and validates everything it can without a server: the
//    manifest, every script entry and field (unknown fields are rejected),
//    every expression, every Lua file. Any problem throws ScriptPackError
//    whose message names the manifest or file, the script and the field.
//    Lua syntax is checked by Redis when the pack is loaded into a server
//    (LiveBackend), which reports the .lua file name too.
//  - Without "design", every script must be listed (present or absent);
//    unknown names are rejected either way.
//  - build_args(), adapt_reply() and canonical_published() are pure and
//    deterministic; with no optional field they change nothing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "impl/lock_design.h"
#include "impl/pack_expr.h"
#include "impl/reply_adapter.h"
#include "impl/reply_convention.h"
#include "redis/exec_result.h"
#include "redis/reply.h"
#include "model/script_call.h"
#include "model/variant.h"

namespace locksim {

enum class PackForm { Lua, Command, Absent };

struct PackScript {
  ScriptKind kind = ScriptKind::RlockAcquire;
  PackForm form = PackForm::Lua;
  std::string file;     // Lua: file name as written in the manifest
  std::string path;     // Lua: dir + "/" + file (a "builtin:" name for a built-in pack)
  std::string source;   // Lua: the Lua text
  std::string command;  // Command: the Redis command, e.g. "PEXPIRE"
  std::vector<PackExpr> keys;
  std::vector<PackExpr> argv;
  std::vector<ReplyAdapter> reply;       // empty: as is
  std::optional<ReplyConventions> replies;  // nullopt: our replies (after the adapters)
  std::optional<std::string> message;    // nullopt: the call's message
  std::optional<PackExpr> wake_channel;  // nullopt: today's channel naming
  std::vector<std::string> errors;       // declared error reply prefixes

  // How it runs, apart from the Lua text: form, command, keys, argv and
  // every convention field, one canonical line each. Two scripts with equal
  // source and equal conventions run alike.
  std::string conventions_text() const;
  // "the Lua file <path>", "the command PEXPIRE", "absent": for messages.
  std::string describe() const;
};

struct ScriptArgs {
  std::vector<std::string> keys;
  std::vector<std::string> argv;
};

// Scenario settings a pack's manifest fixes ("settings"); unset: the
// scenario's own (the command line's default).
struct PackSettings {
  std::optional<int64_t> fair_slot_ms;  // a fixed fair-lock slot (0: the caller's wait)
};
inline constexpr int64_t kMaxPackFairSlotMs = 24LL * 3600 * 1000;

// A holder read that failed or answered something else than holders: the
// run cannot be judged (the backends rethrow it as their own run error).
struct HolderReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ScriptPack {
 public:
  static constexpr int kFormatVersion = 1;

  // Loads and validates the pack in `dir`, a directory or a built-in pack
  // ("builtin:impl/lua", impl/builtin_packs.h); throws ScriptPackError.
  static ScriptPack load(const std::string& dir);
  // $LOCKSIM_SCRIPTS if set and non-empty, else the built-in pack of our
  // scripts, "builtin:impl/lua" (never a path into the source tree).
  static std::string default_dir();

  const std::string& dir() const { return dir_; }
  const PackScript& script(ScriptKind kind) const;
  // Every file the pack was loaded from (the manifest, then each script's
  // Lua file): a command must never write over one of them.
  std::vector<std::string> files() const;
  // The model variant that models this pack (mutant packs); nullopt: Correct.
  std::optional<ModelVariant> model_variant() const { return model_variant_; }
  // What the manifest's "settings" fix (the command line overrides them).
  const PackSettings& settings() const { return settings_; }
  // The lock the scripts build ("design"; ours when the manifest has none).
  const LockDesign& design() const { return design_; }
  // The holder read script (design holders = Script), else nullptr. Its
  // reply is the list of holders (nil or an empty list: none).
  const PackScript* holder_script() const { return holder_script_ ? &*holder_script_ : nullptr; }

  // KEYS and ARGV of a call (empty for an absent script).
  ScriptArgs build_args(const ScriptCall& call) const;
  // Whether `reply` (as the client reads it) is an error this pack declares
  // part of kind's conventions: every error of an absent script, or one
  // that starts with a declared prefix.
  bool declares_error(ScriptKind kind, const Reply& reply) const;
  // build_args() into *out, reusing its strings (a caller's hot path).
  void build_args_into(const ScriptCall& call, ScriptArgs* out) const;
  // The reply the client reads from a raw reply of call.kind's script: the
  // adapters, then the reply conventions.
  Reply adapt_reply(ScriptKind kind, Reply raw) const;
  // What a holder read answered (`raw`: HKEYS, GET or the read script's
  // reply, per the design) as the sorted holders of `lock`; throws
  // HolderReadError naming the key, the read and the reply when it failed
  // or has the wrong shape (never "no holders").
  void read_holders(const std::string& lock, const Reply& raw, std::vector<std::string>* out) const;
  // "HKEYS", "GET" or "the read script <path>": for messages.
  std::string holder_read_text() const;
  // A message published by `call`'s script, renamed to today's conventions
  // (wake_channel, message) when it matches the pack's; else unchanged.
  Published canonical_published(const ScriptCall& call, Published raw) const;
  // What a call of an absent script answers: an error naming it.
  static Reply absent_reply(ScriptKind kind);

 private:
  std::string dir_;
  std::optional<ModelVariant> model_variant_;
  PackSettings settings_;
  LockDesign design_;
  std::optional<PackScript> holder_script_;
  std::array<PackScript, kScriptKindCount> scripts_;
};

}  // namespace locksim
