// LuaBackend: the Backend of sim/backend.h that runs a ScriptPack's own Lua
// in process: per server, a Store (redis/store.h, the model's expiry rules)
// and an embedded Lua 5.1 with Redis 7.0's scripting contract
// (redis/lua_scripting.h). No server, deterministic, about model speed.
//
// It answers as LiveBackend does for the same pack: KEYS and ARGV from the
// manifest, a plain-command script run as that one command
// (run_direct_command), an absent one answered with
// ScriptPack::absent_reply, the reply through the pack's adapters (an
// error the pack declares marked ExecResult::error_declared), every
// published message through ScriptPack::canonical_published; holders_after
// are read as the pack's design says (the lock hash's fields, the string
// value, or the pack's read script, run read-only: a write or a publish by
// it stops the run) and, for fair calls, line_after the line with
// each member's deadline, read after the script at the same time (what
// LiveBackend reads with HKEYS, LRANGE and ZRANGE; sim/line_cache.h, with
// ExecResult::line_token as on the model). PUBLISH answers 1: live,
// the harness's own subscriber is the one receiver. Before each script,
// keys already due are deleted (the model's active expiry).
//
// The sandbox (redis/lua_scripting.h): every script runs within
// LuaLimits::step_budget steps and the whole backend (its servers' Lua
// heaps and key stores, and its replicas') within one MemoryAccount of
// LuaLimits::memory_bytes (kDefaultRunMemoryBytes unless the command line
// says otherwise); a script past either stops the run (LuaScriptAbort).
//
// Errors: the constructor compiles every Lua script (ScriptPackError
// "<path>: Redis rejected the script: ...", the text live Redis gives) and
// checks every plain command (ScriptPackError naming one Redis does not know
// or this backend does not implement). execute() throws LuaScriptAbort
// naming the pack and the script when a run cannot go on as Redis would (an
// unimplemented command or option, the step budget, the memory limit, a
// pattern nested past Redis's own crash): callers report it
// as bad input, exit 2; so does a holder read that fails (WRONGTYPE, a read
// script's error or a reply that is no list), naming the key and the error.
// A pack that hands back more than
// sim/script_output_bound.h allows (per execution, per run since wipe())
// throws ScriptOutputTooLarge, as on live.
//
// Coverage: every line of the pack's Lua a run reaches (a line hook;
// redis/lua_scripting.h), since the backend was made or wiped.
//
// Replicas (--profile failover) run by re-execution (sim/replicated_backend.h)
// on a second LuaBackend of the same pack, as the model's do.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "impl/script_pack.h"
#include "redis/lua_scripting.h"
#include "redis/memory_account.h"
#include "redis/store.h"
#include "sim/backend.h"
#include "sim/line_cache.h"
#include "sim/script_output_bound.h"

namespace locksim {

class LuaBackend final : public Backend {
 public:
  // The whole run's memory when the command line does not say.
  static constexpr size_t kDefaultRunMemoryBytes = size_t{1536} << 20;
  static LuaLimits default_limits() { return LuaLimits{LuaLimits{}.step_budget, kDefaultRunMemoryBytes}; }

  LuaBackend(int server_count, ScriptPack pack, LuaAllocation allocation = LuaAllocation::Malloc,
             LuaLimits limits = default_limits());

  std::string name() const override { return "lua"; }
  int server_count() const override { return static_cast<int>(servers_.size()); }
  ExecResult execute(int server, const ScriptCall& call, int64_t server_now_us) override;
  void execute_into(int server, const ScriptCall& call, int64_t server_now_us, ExecResult* out) override;
  std::vector<KeyState> snapshot(int server, int64_t server_now_us) override;
  void restart(int server) override;
  bool digest(int server, int64_t server_now_us, StateDigest* out) override;
  std::unique_ptr<Backend> new_replicas() const override;
  // Lines of the Lua files that serve `kinds` ("<file>:<line>", the file as
  // the manifest names it), on any server. Plain-command and absent
  // scripts have no lines.
  void script_coverage(const std::vector<ScriptKind>& kinds, std::vector<std::string>* covered,
                       std::vector<std::string>* universe) const override;

  // Deletes every key of every server (FLUSHALL) and restarts their Lua
  // random generators: as a new backend, without compiling again.
  void wipe();
  const ScriptPack& pack() const { return pack_; }
  const LuaLimits& limits() const { return limits_; }
  const MemoryAccount& memory() const { return *memory_; }

 private:
  // A replica set charged to `shared` (the primary's account).
  LuaBackend(int server_count, ScriptPack pack, LuaAllocation allocation, LuaLimits limits, MemoryAccount* shared);
  // "pack <dir>: <kind> (<file>): <why>"
  std::string stop_text(ScriptKind kind, const std::string& why) const;
  struct Server {
    Store store;
    std::unique_ptr<LuaScripting> lua;
    std::array<int, kScriptKindCount> script_id{};  // Lua scripts: LuaScripting ids
    int holder_script_id = -1;                      // the design's holder read script
  };
  Server& at(int server);
  // The holders of call's lock after its script, read as the pack's design
  // says (HKEYS, GET, or its read script); throws HolderReadError.
  void read_holders(Server& s, const ScriptCall& call, CommandContext& ctx, std::vector<std::string>* out);

  ScriptPack pack_;
  LuaAllocation allocation_;
  LuaLimits limits_;
  std::unique_ptr<MemoryAccount> own_memory_;  // null for replicas (they use the primary's)
  MemoryAccount* memory_ = nullptr;
  std::vector<Server> servers_;
  // Per call, reused: KEYS, ARGV and a plain command's argument vector.
  ScriptArgs args_;
  std::vector<std::string_view> command_;
  LineCache lines_;  // line_after, read only when it changed (as the model's)
  // What the pack's scripts handed back in this run (since wipe()).
  ScriptOutputBudget output_budget_;
};

}  // namespace locksim
