// LuaScripting: one embedded Lua 5.1 state that runs scripts the way Redis
// 7.0's EVAL does, on a Store (redis/store.h) through the commands of
// redis/redis_commands.h. Checked against a live redis-server 7.0.
//
// What a script sees (Redis's scripting contract):
//  - KEYS and ARGV: tables of Lua strings. redis.call / redis.pcall run a
//    command (arguments: strings, or numbers passed as "%.17g"); replies
//    become Lua values: integer -> number, bulk -> string, nil -> false,
//    array -> table, status -> {ok=...}, error -> {err=...} (redis.call
//    raises it, redis.pcall returns it). redis.error_reply, status_reply,
//    sha1hex, log (ignored), setresp(2), set_repl, replicate_commands,
//    breakpoint, debug and the constants; pcall turns a raised {err=...}
//    into its text, as Redis's does.
//  - The libraries: the base library without dofile, loadfile, print,
//    getfenv, setfenv and newproxy; string, table, math (math.random is
//    Redis's rand48), coroutine; Redis's bit, cjson, struct and cmsgpack
//    (redis/lua_libs.cc: Debian's LuaBitOp and lua-cjson, our own struct
//    and cmsgpack, each answering as Redis 7.0's); no io, os, debug or
//    package. Globals and the library tables are read-only: a write fails
//    with "Attempt to modify a readonly table", a read of a missing global
//    with "Script attempted to access nonexistent global variable 'x'",
//    both with Redis's positions.
//  - The reply: number -> integer (truncated), string -> bulk, true -> 1,
//    false / nil -> nil, a table -> {err=...} error, {ok=...} status,
//    {double=...} (NaN printed with its sign, as Redis's printf does),
//    {big_number=...}, {map=...}, {set=...}, or an array of elements 1..n
//    up to the first nil; nested past the Lua stack (about 7,990 tables)
//    the rest is "ERR reached lua stack limit", as on Redis. A raised error
//    replies "<err> script: <sha>, on @user_script:<line>.", as Redis 7.0
//    does.
// The sandbox (a pack's Lua is someone else's code): nothing a script
// does runs native code, crashes the process or outlasts its budget.
//  - Code is only ever read as text (the scripts, loadstring, load): a
//    binary chunk is refused by the parser, as Redis's Lua refuses it.
//  - Library functions that take sizes or counts, work on whole tables or
//    match patterns are our own, bounded (redis/lua_bounded_lib.cc,
//    redis/lua_pattern.cc), with Lua 5.1.5's answers.
//  - LuaLimits::step_budget covers all of a script's work: its Lua
//    instructions (error handlers and coroutines included) and the work of
//    library functions in C (bytes allocated, pattern steps, elements moved
//    or compared).
//  - LuaLimits::memory_bytes, or the MemoryAccount the owner shares (the
//    lua backend: one for every server's heap and key store), bounds the
//    Lua heap; cjson's buffers are bounded before each call.
// What stops a run, with LuaScriptAbort (never a silent difference from
// Redis), which a pcall, xpcall or coroutine.resume in the script cannot
// catch: a command or option the model does not implement;
// redis.acl_check_cmd, RESP3; the step budget (an endless loop, or work
// Redis would do forever: Redis would run it on and block every client);
// the memory limit (of the heap, or of the account with the stores); a
// pattern nested deeper than Redis's own matcher survives.
// Known gaps (documented, not emulated): math.random's sequence (Redis's runs
// on across every script the server ever ran), tostring of a table or
// function (an address), and raw writes into the library tables through
// table.insert / table.remove.
//
// Deterministic: same scripts and calls, same replies (the random generator
// restarts with reset()). Not thread-safe: one per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "redis/memory_account.h"
#include "redis/redis_commands.h"
#include "redis/reply.h"
#include "redis/reply_sink.h"

struct lua_State;

namespace locksim {

// A script Redis would reject at load; what() is Redis's text,
// "ERR Error compiling script (new function): user_script:1: ...".
struct LuaCompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A run that cannot go on as Redis would (see above); what() says why.
struct LuaScriptAbort : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace lua_detail {
struct RunState;
struct ScriptArray {
  int ref = -2;  // LUA_NOREF: none yet
  size_t n = 0;  // entries after the last run
};
}

// How far one script may go before its run stops (LuaScriptAbort).
struct LuaLimits {
  uint64_t step_budget = 100'000'000;       // steps per script: Lua instructions and C work (above)
  size_t memory_bytes = size_t{256} << 20;  // the state's own memory account, when none is shared
};

// Where a Lua state's memory comes from: malloc (realloc grows in place),
// or operator new (a reallocation copies), so that a state built inside a
// copyable arena (sim/snapshot_arena.h) lives in it.
enum class LuaAllocation : uint8_t { Malloc, OperatorNew };

class LuaScripting {
 public:
  // `shared_memory`: the account the Lua heap is charged to (with the
  // stores of the same run: redis/memory_account.h); null: an account of
  // the state's own with limits.memory_bytes. It must outlive the state.
  explicit LuaScripting(LuaLimits limits = {}, LuaAllocation allocation = LuaAllocation::Malloc,
                        MemoryAccount* shared_memory = nullptr);
  ~LuaScripting();
  LuaScripting(const LuaScripting&) = delete;
  LuaScripting& operator=(const LuaScripting&) = delete;

  // Compiles a script body (chunk "@user_script"); the same text twice gives
  // the same id. Throws LuaCompileError.
  int load(std::string_view source);
  const std::string& sha(int id) const;  // SHA-1 of the text, as Redis names it

  // Runs script `id` with KEYS and ARGV on ctx's store and time; writes its
  // reply (RESP2) to `reply`. Throws LuaScriptAbort (the store keeps the
  // writes done before, as Redis would).
  void run(int id, std::span<const std::string> keys, std::span<const std::string> argv, CommandContext& ctx,
           ReplySink& reply);
  Reply run(int id, std::span<const std::string> keys, std::span<const std::string> argv, CommandContext& ctx);

  // Back to the state of a new instance as far as scripts can tell: the
  // random generator restarts (compiled scripts stay).
  void reset();

  // Line coverage. code_lines: the lines of script `id` that hold code (in
  // any of its functions; redis/lua_code_lines.h), sorted. lines_run: those
  // its runs reached since the state was made or clear_line_coverage(),
  // sorted (a line hook reports every line a run starts; lines of
  // functions made by loadstring are not counted).
  const std::vector<int>& code_lines(int id) const;
  std::vector<int> lines_run(int id) const;
  void clear_line_coverage();

 private:
  std::unique_ptr<lua_detail::RunState> state_;  // outlives L_ (it is the allocator's)
  lua_State* L_ = nullptr;
  struct Script {
    int ref = 0;  // the compiled function in the registry
    std::string sha;
    lua_detail::ScriptArray keys, argv;  // its KEYS and ARGV tables
    std::vector<int> code_lines;
    std::vector<uint8_t> line_hits;  // by line: 1 once a run reached it
  };
  std::vector<Script> scripts_;
  std::unordered_map<std::string, int> id_of_sha_;  // never iterated
};

}  // namespace locksim
