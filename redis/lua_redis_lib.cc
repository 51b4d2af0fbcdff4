// The `redis` table of the script sandbox (redis/lua_scripting.h): call and
// pcall over redis/redis_commands.h, the helpers, the constants; and how a
// command's reply becomes a Lua value.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "redis/lua_scripting.h"
#include "redis/lua_state.h"
#include "redis/redis_number.h"
#include "redis/sha1.h"

namespace locksim::lua_detail {

// ---------------------------------------------------------------- state

RunState* run_state(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<RunState*>(ud);
}

namespace {

bool over_budget(const RunState& s) {
  return s.hook_calls * kHookEveryInstructions + s.steps_charged > s.limits.step_budget;
}

// Whether a change of size from osize to nsize may happen (the caller
// counts it): during a run, growth is charged to the budget and to the
// memory account, either of which may refuse it (Lua then raises "not
// enough memory", which the sandbox's pcall turns back into the stop);
// a run that is stopping gets no more memory. Shrinking always may.
bool within_memory(RunState* s, size_t osize, size_t nsize) {
  if (nsize <= osize) {
    s->memory->release(osize - nsize);
    return true;
  }
  const size_t grow = nsize - osize;
  if (!s->enforce) {
    if (!s->memory->try_charge(grow)) s->memory->charge_anyway(grow);
    return true;
  }
  if (!s->abort.empty() || s->over_memory) return false;
  s->bytes_toward_step += grow;
  if (s->bytes_toward_step >= kBytesPerStep) {
    s->steps_charged += s->bytes_toward_step / kBytesPerStep;
    s->bytes_toward_step %= kBytesPerStep;
    if (over_budget(*s)) {
      s->abort = budget_text(*s);
      return false;
    }
  }
  if (!s->memory->try_charge(grow)) {
    s->over_memory = true;
    return false;
  }
  return true;
}

}  // namespace

void* lua_alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* s = static_cast<RunState*>(ud);
  if (nsize == 0) {
    std::free(ptr);
    s->memory->release(osize);
    return nullptr;
  }
  if (!within_memory(s, osize, nsize)) return nullptr;
  void* p = std::realloc(ptr, nsize);
  if (p == nullptr) {
    within_memory(s, nsize, osize);  // gives the charge back
    return nullptr;
  }
  return p;
}

void* lua_alloc_through_new(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* s = static_cast<RunState*>(ud);
  if (nsize == 0) {
    ::operator delete(ptr);
    s->memory->release(osize);
    return nullptr;
  }
  if (!within_memory(s, osize, nsize)) return nullptr;
  void* p = ::operator new(nsize, std::nothrow);
  if (p == nullptr) {
    within_memory(s, nsize, osize);
    return nullptr;
  }
  if (ptr != nullptr) {
    std::memcpy(p, ptr, std::min(osize, nsize));
    ::operator delete(ptr);
  }
  return p;
}

std::string budget_text(const RunState& s) {
  return "the script ran past the lua backend's budget of " + std::to_string(s.limits.step_budget) +
         " steps (Lua instructions, Redis commands, and work inside library functions: bytes allocated, pattern-matching "
         "steps, table elements moved); an endless loop? live Redis would run it on, answering BUSY to every "
         "other client";
}

std::string memory_limit_text(const RunState& s) {
  return "the run needed more than " + std::to_string(s.memory->limit_bytes() >> 20) +
         " MiB of memory (Lua heaps and key stores together), the lua backend's limit (--memory-limit)";
}

void raise_abort(lua_State* L, const std::string& why) {
  RunState* s = run_state(L);
  if (s->abort.empty()) s->abort = why;
  lua_pushstring(L, ("ERR locksim: " + why).c_str());
  lua_error(L);
  std::abort();  // not reached: lua_error does not return
}

void raise_out_of_memory(lua_State* L) {
  RunState* s = run_state(L);
  s->over_memory = true;
  lua_pushliteral(L, "not enough memory");  // interned when the state was made: needs no memory
  lua_error(L);
  std::abort();  // not reached
}

void charge_steps(lua_State* L, uint64_t steps) {
  RunState* s = run_state(L);
  if (!s->enforce) return;
  s->steps_charged += steps;
  if (over_budget(*s)) raise_abort(L, budget_text(*s));
}

bool memory_room_for(lua_State* L, size_t bytes) {
  const MemoryAccount& m = *run_state(L)->memory;
  return bytes <= m.limit_bytes() - std::min(m.used_bytes(), m.limit_bytes());
}

void step_hook(lua_State* L, lua_Debug* ar) {
  RunState* s = run_state(L);
  if (ar->event == LUA_HOOKLINE) {
    const int line = ar->currentline;
    if (s->line_hits == nullptr || line < 0 || static_cast<size_t>(line) >= s->line_hits_size) return;
    if (s->code_from_load) {
      // Lines of a function loadstring made are not the script's.
      if (lua_getinfo(L, "S", ar) == 0 || std::strcmp(ar->source, kScriptChunkName) != 0) return;
    }
    s->line_hits[line] = 1;
    return;
  }
  ++s->hook_calls;
  // Raised again at every later hook call, so a pcall in the script
  // cannot keep it running.
  if (!s->enforce) return;
  if (!s->abort.empty()) raise_abort(L, s->abort);
  if (s->over_memory) raise_out_of_memory(L);
  if (over_budget(*s)) raise_abort(L, budget_text(*s));
}

// ---------------------------------------------------------------- errors

std::string error_table_text(std::string_view raw) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == '\r' || s.front() == '\n')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
    return s;
  };
  if (!raw.empty() && raw[0] == '-') {
    const size_t space = raw.find(' ');
    if (space == std::string_view::npos) return "ERR " + std::string(trim(raw.substr(1)));
    return std::string(raw.substr(1, space - 1)) + " " + std::string(trim(raw.substr(space + 1)));
  }
  return "ERR " + std::string(trim(raw));
}

void push_error_table(lua_State* L, std::string_view raw, bool from_command) {
  lua_createtable(L, 0, from_command ? 2 : 1);
  const std::string text = error_table_text(raw);
  lua_pushlstring(L, text.data(), text.size());
  lua_setfield(L, -2, "err");
  if (from_command) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "ignore_error_stats_update");
  }
}

// ---------------------------------------------------------------- replies

void LuaReplySink::placed() {
  if (frames_.empty()) return;
  Frame& f = frames_.back();
  lua_rawseti(L_, f.table, f.next++);
  if (--f.remaining == 0) {
    frames_.pop_back();
    placed();  // the finished table goes into its parent
  }
}

void LuaReplySink::nil() {
  lua_pushboolean(L_, 0);
  placed();
}

void LuaReplySink::integer(int64_t v) {
  lua_pushnumber(L_, static_cast<lua_Number>(v));
  placed();
}

void LuaReplySink::bulk(std::string_view s) {
  lua_pushlstring(L_, s.data(), s.size());
  placed();
}

void LuaReplySink::status(std::string_view s) {
  lua_createtable(L_, 0, 1);
  lua_pushlstring(L_, s.data(), s.size());
  lua_setfield(L_, -2, "ok");
  placed();
}

void LuaReplySink::error(std::string_view s) {
  // A command's error reply reaches Redis's converter as "-<text>".
  push_error_table(L_, "-" + std::string(s), true);
  if (frames_.empty()) top_is_error_ = true;
  placed();
}

void LuaReplySink::array(size_t n) {
  if (!lua_checkstack(L_, 4)) luaL_error(L_, "reached lua stack limit");
  lua_createtable(L_, static_cast<int>(n), 0);
  if (n == 0) {
    placed();
    return;
  }
  frames_.push_back(Frame{lua_gettop(L_), n, 1});
}

namespace {

RunState* upvalue_state(lua_State* L) { return static_cast<RunState*>(lua_touserdata(L, lua_upvalueindex(1))); }

bool same_name_ignoring_case(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// find_redis_command of argument 1 (s->args[0]), through s->command_cache;
// `key`: the Lua string's text when argument 1 is a string, else null.
const RedisCommand* cached_command(RunState* s, const char* key) {
  const std::string_view name = s->args[0];
  if (key == nullptr) return find_redis_command(name);
  RunState::CachedCommand& slot = s->command_cache[(reinterpret_cast<uintptr_t>(key) >> 4) % s->command_cache.size()];
  if (slot.name == key && slot.cmd != nullptr && same_name_ignoring_case(name, slot.cmd->name)) return slot.cmd;
  const RedisCommand* cmd = find_redis_command(name);
  if (cmd != nullptr) slot = RunState::CachedCommand{key, cmd};
  return cmd;
}

// redis.call (raise) and redis.pcall: Redis 7.0's luaRedisGenericCommand.
int generic_command(lua_State* L, bool raise) {
  RunState* s = upvalue_state(L);
  const int argc = lua_gettop(L);
  if (argc == 0) {
    push_error_table(L, "Please specify at least one argument for this redis lib call", false);
    return raise ? lua_error(L) : 1;
  }
  // The strings stay on the Lua stack for the whole call: viewed, not copied.
  if (s->args.size() < static_cast<size_t>(argc)) {
    s->args.resize(static_cast<size_t>(argc));
    s->number_args.resize(static_cast<size_t>(argc));
  }
  const char* name_key = nullptr;  // argument 1's Lua string, the command cache's key
  for (int i = 1; i <= argc; ++i) {
    std::string_view& arg = s->args[static_cast<size_t>(i - 1)];
    const int t = lua_type(L, i);
    if (t == LUA_TNUMBER) {
      char buf[64];
      std::string& text = s->number_args[static_cast<size_t>(i - 1)];
      text.assign(buf, lua_number_arg_text(lua_tonumber(L, i), buf, sizeof buf));
      arg = text;
    } else if (t == LUA_TSTRING) {
      size_t len = 0;
      const char* p = lua_tolstring(L, i, &len);
      arg = std::string_view(p, len);
      if (i == 1) name_key = p;
    } else {
      push_error_table(L, "Lua redis lib command arguments must be strings or integers", false);
      return raise ? lua_error(L) : 1;
    }
  }
  const CommandArgs argv(s->args.data(), static_cast<size_t>(argc));
  const RedisCommand* cmd = cached_command(s, name_key);
  const char* refused = nullptr;
  if (cmd == nullptr) {
    refused = "Unknown Redis command called from script";
  } else if (!arity_ok(*cmd, argv.size())) {
    refused = "Wrong number of args calling Redis command from script";
  } else if (cmd->noscript) {
    refused = "This Redis command is not allowed from script";
  }
  if (refused != nullptr) {
    push_error_table(L, refused, true);
    return raise ? lua_error(L) : 1;
  }
  if (cmd->run == nullptr) raise_abort(L, unsupported_command_text(argv[0]));
  std::string unsupported;
  bool out_of_memory = false;
  s->sink.begin(L);
  const uint64_t work_before = s->ctx->store->work();
  try {
    run_redis_command(*cmd, *s->ctx, argv, s->sink);
  } catch (const UnsupportedCommand& e) {
    unsupported = e.what();
  } catch (const StoreMemoryError&) {
    out_of_memory = true;
  }
  if (!unsupported.empty()) raise_abort(L, unsupported);
  if (out_of_memory) raise_out_of_memory(L);
  charge_steps(L, kStepsPerCommand + (s->ctx->store->work() - work_before));  // the call and its walk
  if (raise && s->sink.top_is_error()) return lua_error(L);
  return 1;
}

int redis_call(lua_State* L) { return generic_command(L, true); }
int redis_pcall(lua_State* L) { return generic_command(L, false); }

int redis_error_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "wrong number or type of arguments", false);
    return 1;
  }
  size_t len = 0;
  const char* p = lua_tolstring(L, 1, &len);
  const std::string_view err(p, len);
  push_error_table(L, !err.empty() && err[0] == '-' ? std::string(err) : "-" + std::string(err), false);
  return 1;
}

int redis_status_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "wrong number or type of arguments", false);
    return 1;
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

int redis_sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    push_error_table(L, "wrong number of arguments", false);
    return lua_error(L);
  }
  size_t len = 0;
  const char* p = lua_tolstring(L, 1, &len);  // a table: nothing, hashed as ""
  charge_steps(L, len / kBytesPerStep);
  const std::string hex = sha1_hex(p == nullptr ? std::string_view() : std::string_view(p, len));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

constexpr int kLogDebug = 0, kLogVerbose = 1, kLogNotice = 2, kLogWarning = 3;

int redis_log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) {
    push_error_table(L, "redis.log() requires two arguments or more.", false);
    return lua_error(L);
  }
  if (!lua_isnumber(L, -argc)) {
    push_error_table(L, "First argument must be a number (log level).", false);
    return lua_error(L);
  }
  const lua_Number level = lua_tonumber(L, -argc);
  if (level < kLogDebug || level > kLogWarning) {
    push_error_table(L, "Invalid debug level.", false);
    return lua_error(L);
  }
  return 0;  // the harness keeps no server log
}

int redis_setresp(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc != 1) {
    push_error_table(L, "redis.setresp() requires one argument.", false);
    return lua_error(L);
  }
  const int resp = static_cast<int>(lua_tonumber(L, -argc));
  if (resp != 2 && resp != 3) {
    push_error_table(L, "RESP version must be 2 or 3.", false);
    return lua_error(L);
  }
  if (resp == 3) raise_abort(L, "redis.setresp(3) (RESP3 replies in scripts) is not implemented by the lua backend: "
                                "run this pack with --backend live");
  return 0;
}

int redis_set_repl(lua_State* L) {
  if (lua_gettop(L) != 1) {
    push_error_table(L, "redis.set_repl() requires two arguments.", false);
    return lua_error(L);
  }
  const int flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~(1 | 2)) != 0) {
    push_error_table(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.", false);
    return lua_error(L);
  }
  return 0;
}

int redis_replicate_commands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

int redis_breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);  // no debugging session
  return 1;
}

int redis_debug(lua_State* L) {
  (void)L;
  return 0;
}

int redis_acl_check_cmd(lua_State* L) {
  raise_abort(L, "redis.acl_check_cmd is not implemented by the lua backend: run this pack with --backend live");
}

}  // namespace

void open_redis_lib(lua_State* L, RunState* s) {
  lua_newtable(L);
  const struct {
    const char* name;
    lua_CFunction fn;
  } functions[] = {
      {"call", redis_call},
      {"pcall", redis_pcall},
      {"error_reply", redis_error_reply},
      {"status_reply", redis_status_reply},
      {"sha1hex", redis_sha1hex},
      {"log", redis_log},
      {"setresp", redis_setresp},
      {"set_repl", redis_set_repl},
      {"replicate_commands", redis_replicate_commands},
      {"breakpoint", redis_breakpoint},
      {"debug", redis_debug},
      {"acl_check_cmd", redis_acl_check_cmd},
  };
  for (const auto& f : functions) {
    lua_pushlightuserdata(L, s);
    lua_pushcclosure(L, f.fn, 1);
    lua_setfield(L, -2, f.name);
  }
  const struct {
    const char* name;
    int value;
  } constants[] = {
      {"LOG_DEBUG", kLogDebug}, {"LOG_VERBOSE", kLogVerbose}, {"LOG_NOTICE", kLogNotice},
      {"LOG_WARNING", kLogWarning}, {"REPL_NONE", 0}, {"REPL_AOF", 1}, {"REPL_SLAVE", 2},
      {"REPL_REPLICA", 2}, {"REPL_ALL", 3}, {"REDIS_VERSION_NUM", 0x0007000F},
  };
  for (const auto& c : constants) {
    lua_pushnumber(L, c.value);
    lua_setfield(L, -2, c.name);
  }
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  lua_setglobal(L, "redis");
}

}  // namespace locksim::lua_detail
