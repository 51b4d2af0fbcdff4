// Internals of redis/lua_scripting.h shared by its .cc files: the per-state
// RunState (also the Lua allocator's user data, so the count hook reaches it
// with lua_getallocf), the reply sink that turns command replies into Lua
// values, and the setup and conversion functions. Not for other callers.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <lua.hpp>

#include "redis/lua_scripting.h"
#include "redis/memory_account.h"
#include "redis/redis_commands.h"
#include "redis/reply_sink.h"

namespace locksim::lua_detail {

// A command's reply pushed as one Lua value (redis.call's conversion).
class LuaReplySink final : public ReplySink {
 public:
  void begin(lua_State* L) {
    L_ = L;
    frames_.clear();
    top_is_error_ = false;
  }
  bool top_is_error() const { return top_is_error_; }

  void nil() override;
  void null_array() override { nil(); }
  void integer(int64_t v) override;
  void bulk(std::string_view s) override;
  void status(std::string_view s) override;
  void error(std::string_view s) override;
  void array(size_t n) override;

 private:
  void placed();  // the value on top is complete: into its array, if any
  struct Frame {
    int table = 0;  // stack index of the table being filled
    size_t remaining = 0;
    int next = 1;
  };
  lua_State* L_ = nullptr;
  std::vector<Frame> frames_;
  bool top_is_error_ = false;
};

static_assert(LUA_NOREF == -2, "ScriptArray's default ref (redis/lua_scripting.h) is LUA_NOREF");

struct RunState {
  LuaLimits limits;
  CommandContext* ctx = nullptr;     // of the running script
  const std::string* sha = nullptr;  // of the running script
  std::vector<std::string_view> args;  // redis.call's arguments (into Lua's strings)
  std::vector<std::string> number_args;  // the text of its number arguments, buffers reused
  LuaReplySink sink;
  std::string abort;                 // non-empty: the run stops (LuaScriptAbort)
  uint64_t hook_calls = 0;           // count-hook calls in this script
  // The budget (LuaLimits::step_budget) covers the script's Lua
  // instructions (hook_calls * kHookEveryInstructions) and its work in C
  // functions, charged here: bytes allocated (one step per
  // kBytesPerStep), pattern-matching steps, elements moved, compared or
  // visited by the table functions, bytes hashed.
  uint64_t steps_charged = 0;
  size_t bytes_toward_step = 0;      // allocated bytes not yet charged as a step
  // While a script runs, the budget and the memory account may refuse
  // (outside, the state's own housekeeping is charged but never refused).
  bool enforce = false;
  MemoryAccount own_memory;          // the account when the owner shares none
  MemoryAccount* memory = &own_memory;
  // Line coverage of the running script: hits[line] = 1 for each line the
  // line hook reports (null: no script running). code_from_load: the
  // script made a function with loadstring / load, whose lines are not the
  // script's (the hook then checks each line's source).
  uint8_t* line_hits = nullptr;
  size_t line_hits_size = 0;
  bool code_from_load = false;
  size_t memory_bytes = 0;
  bool over_memory = false;
  uint64_t rand48 = 0;               // math.random's state (Redis's redisLrand48)
  int error_handler_ref = 0;         // registry refs
  int tostring_ref = 0;
  int keys_name_ref = 0;             // the strings "KEYS" and "ARGV"
  int argv_name_ref = 0;
  // find_redis_command's answers by the address of the Lua string naming
  // the command (a script's constants keep theirs); an entry is used only
  // when the name still matches, so a reused address cannot mislead it.
  struct CachedCommand {
    const char* name = nullptr;
    const RedisCommand* cmd = nullptr;
  };
  std::array<CachedCommand, 64> command_cache{};
};

inline constexpr int kHookEveryInstructions = 10'000;
inline constexpr size_t kBytesPerStep = 16;
// What one redis.call costs the budget before its walk: argument conversion,
// dispatch and the reply's conversion take about as long as this many Lua
// instructions, so a loop of cheap commands stops in about the time a loop
// of plain Lua does.
inline constexpr uint64_t kStepsPerCommand = 32;
// Every script's chunk name (as Redis names it).
inline constexpr const char* kScriptChunkName = "@user_script";

RunState* run_state(lua_State* L);  // via lua_getallocf
// lua_Alloc functions: through malloc (realloc), or through operator new
// and delete (a reallocation copies; LuaAllocation::OperatorNew: a state
// built inside a copyable arena, sim/snapshot_arena.h, then lives in it).
void* lua_alloc(void* ud, void* ptr, size_t osize, size_t nsize);
void* lua_alloc_through_new(void* ud, void* ptr, size_t osize, size_t nsize);

// Raises an error after recording why the run must stop.
[[noreturn]] void raise_abort(lua_State* L, const std::string& why);
// Raises an error after recording that the memory limit was reached.
[[noreturn]] void raise_out_of_memory(lua_State* L);
// Charges `steps` of work done in C to the running script's budget; past
// the budget, stops the run (raise_abort). No effect outside a run.
void charge_steps(lua_State* L, uint64_t steps);
// Whether `bytes` more would fit in the memory account now.
bool memory_room_for(lua_State* L, size_t bytes);
// The texts of a spent budget and a reached memory limit.
std::string budget_text(const RunState& s);
std::string memory_limit_text(const RunState& s);
// The hook: on a count event, stops a script past its step budget; on a
// line event, records the line in the running script's line coverage.
void step_hook(lua_State* L, lua_Debug* ar);

// Pushes an error table {err = <text as luaPushErrorBuff makes it>}, with
// ignore_error_stats_update = true when `from_command`.
void push_error_table(lua_State* L, std::string_view raw, bool from_command);
// Redis's luaPushErrorBuff text: "-CODE msg" or "msg" -> "CODE msg" / "ERR msg".
std::string error_table_text(std::string_view raw);

void open_redis_lib(lua_State* L, RunState* s);     // the `redis` table
// Lua 5.1's functions that load code, take sizes or counts, or work on a
// whole table, replaced by bounded ones of our own (redis/lua_bounded_lib.cc).
void install_bounded_functions(lua_State* L);
// Redis's bit, cjson, struct and cmsgpack libraries as globals (redis/lua_libs.cc).
void open_script_libraries(lua_State* L);
// Compiles `source` as a text chunk named `chunk_name` (never as a binary
// chunk: Redis's Lua has no undump); pushes the function, or the message.
int load_text_chunk(lua_State* L, const char* source, size_t size, const char* chunk_name);
void install_sandbox(lua_State* L, RunState* s);    // libraries, wrappers, read-only globals
int error_handler(lua_State* L);                    // __redis__err__handler
// The script environment (the read-only proxy of the globals) on the stack.
void push_script_env(lua_State* L);

// The value at stack index `idx` as a script reply (luaReplyToRedisReply, RESP2).
void lua_value_to_reply(lua_State* L, int idx, ReplySink& reply);
// The error object on top of the stack after a failed run, as the reply text.
std::string failed_run_text(lua_State* L, const std::string& sha);

// Redis's rand48 (redisLrand48 / redisSrand48).
void rand48_seed(RunState* s, int32_t seed);
int32_t rand48_next(RunState* s);

}  // namespace locksim::lua_detail
