// The script sandbox of redis/lua_scripting.h: Redis 7.0's libraries, its
// pcall, its error handler, its rand48 math.random, and read-only globals.
//
// Read-only tables without Redis's patched Lua: each library table is
// replaced by an empty proxy whose __index is the real table and whose
// __newindex refuses; the scripts' environment is an empty proxy of the
// globals, whose __index is the real globals table (which itself refuses a
// missing name read from Lua code) and whose __newindex refuses. rawset and
// setmetatable refuse the proxies; getmetatable shows none of them their
// metatable: a library table has none (nil, as on Redis), and _G shows a
// read-only table whose __index raises the missing-global error (Redis's
// metatable of the globals), and a string a read-only view of the strings'
// metatable; rawget, next, pairs and ipairs see
// through them; loadstring and load give their functions the same
// environment. The registry table kProxies maps each proxy to its table.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "redis/lua_scripting.h"
#include "redis/lua_state.h"

namespace locksim::lua_detail {

namespace {

constexpr const char* kProxies = "locksim.proxies";  // registry: proxy -> real table
constexpr const char* kEnv = "locksim.env";          // registry: the globals' proxy
constexpr const char* kReadonly = "Attempt to modify a readonly table";
constexpr const char* kGlobalsMeta = "locksim.globals_meta";  // registry: what getmetatable(_G) shows
constexpr const char* kStringMeta = "locksim.string_meta";    // registry: what getmetatable('') shows

// The real table behind value `idx` if it is a proxy, else nil; pushes one value.
void push_proxy_target(lua_State* L, int idx) {
  idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  lua_getfield(L, LUA_REGISTRYINDEX, kProxies);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  lua_remove(L, -2);
}

bool is_proxy(lua_State* L, int idx) {
  push_proxy_target(L, idx);
  const bool proxy = !lua_isnil(L, -1);
  lua_pop(L, 1);
  return proxy;
}

// __newindex of every proxy: "user_script:N: Attempt to modify a readonly table".
int readonly_newindex(lua_State* L) { return luaL_error(L, "%s", kReadonly); }

// __index of the real globals: a missing name read by Lua code is an error;
// read by a C function it is nil (Redis's global protection).
int missing_global(lua_State* L) {
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "S", &ar) && std::strcmp(ar.what, "C") != 0) {
    const char* name = lua_tostring(L, 2);
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
  }
  lua_pushnil(L);
  return 1;
}

// Redis's __index of the globals, as getmetatable(_G) shows it: every name
// asked of it is a missing global.
int protected_global_error(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
}

// getmetatable: of a proxy, what Redis shows (nil for a library table; for
// the globals' proxy, kGlobalsMeta), never the proxy's own metatable, whose
// __index is the real, writable table; of a string, a read-only proxy of
// the strings' metatable (kStringMeta); else the original (upvalue 1).
int getmetatable_of_proxy(lua_State* L) {
  if (lua_gettop(L) >= 1 && lua_type(L, 1) == LUA_TSTRING) {
    lua_getfield(L, LUA_REGISTRYINDEX, kStringMeta);
    return 1;
  }
  if (lua_gettop(L) >= 1 && lua_istable(L, 1) && is_proxy(L, 1)) {
    lua_getfield(L, LUA_REGISTRYINDEX, kEnv);
    const bool globals = lua_rawequal(L, 1, -1) != 0;
    lua_pop(L, 1);
    if (!globals) {
      lua_pushnil(L);
      return 1;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, kGlobalsMeta);
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// rawset / setmetatable: refused on a proxy, with no position (as Redis's
// patched lua_rawset / lua_setmetatable raise it); else the original
// (upvalue 1).
int refuse_proxy_then_call(lua_State* L) {
  if (lua_gettop(L) >= 1 && lua_istable(L, 1) && is_proxy(L, 1)) {
    lua_pushstring(L, kReadonly);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// rawget / next / pairs / ipairs: argument 1 seen through a proxy, then the
// original (upvalue 1).
int through_proxy_then_call(lua_State* L) {
  if (lua_gettop(L) >= 1 && lua_istable(L, 1)) {
    push_proxy_target(L, 1);
    if (!lua_isnil(L, -1)) {
      lua_replace(L, 1);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// tonumber: the base library's (upvalue 1), with a shortcut for what lock
// scripts pass it most (ARGV times, ZSCORE replies): a string of up to 15
// decimal digits, optionally after '-', is that integer, exactly what
// strtod gives (-0 included); anything else goes to the original.
int fast_tonumber(lua_State* L) {
  if (lua_gettop(L) == 1 && lua_type(L, 1) == LUA_TSTRING) {
    size_t len = 0;
    const char* p = lua_tolstring(L, 1, &len);
    const bool negative = len > 0 && p[0] == '-';
    const size_t digits = len - (negative ? 1 : 0);
    if (digits >= 1 && digits <= 15) {
      int64_t v = 0;
      bool plain = true;
      for (size_t i = negative ? 1 : 0; i < len && plain; ++i) {
        plain = p[i] >= '0' && p[i] <= '9';
        v = v * 10 + (p[i] - '0');
      }
      if (plain) {
        lua_pushnumber(L, negative ? -static_cast<lua_Number>(v) : static_cast<lua_Number>(v));
        return 1;
      }
    }
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// After a protected call caught an error: a run that must stop (the step
// budget, an unimplemented command) is not the script's to catch.
void reraise_abort(lua_State* L) {
  const RunState* s = run_state(L);
  if (!s->abort.empty() || s->over_memory) {
    lua_pushstring(L, "ERR locksim: the run stopped");
    lua_error(L);
  }
}

// Whether the run is stopping (the xpcall guard's question, upvalue of
// kXpcallGuardFactory's closures).
int run_is_stopping(lua_State* L) {
  const RunState* s = run_state(L);
  lua_pushboolean(L, !s->abort.empty() || s->over_memory);
  return 1;
}

// What xpcall gives Lua as the error handler in place of the script's own:
// a Lua function that hands the error to the script's handler by a tail
// call (so that an error inside the handler meets the same handler again,
// as on Redis, and no frame is added), unless the run is stopping. A stop
// raised from the count hook runs the handler with hooks off (Lua 5.1
// leaves them off while the error is handled): a handler that loops would
// never be stopped, so a stopping run's error never reaches it.
constexpr const char* kXpcallGuardFactory =
    "local stopping = ... "
    "return function(handler) return function(e) if stopping() then return e end return handler(e) end end";
constexpr const char* kXpcallGuards = "locksim.xpcall_guards";  // registry: the factory's closure

// xpcall(f, handler): Lua 5.1's, with the handler guarded, then reraise_abort.
int guarded_xpcall(lua_State* L) {
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  lua_getfield(L, LUA_REGISTRYINDEX, kXpcallGuards);
  lua_insert(L, 2);
  lua_call(L, 1, 1);  // f, the guarded handler
  lua_insert(L, 1);   // the guarded handler, f
  const int status = lua_pcall(L, 0, LUA_MULTRET, 1);
  reraise_abort(L);
  lua_pushboolean(L, status == 0);
  lua_replace(L, 1);
  return lua_gettop(L);
}

void install_xpcall_guard(lua_State* L) {
  if (luaL_loadbuffer(L, kXpcallGuardFactory, std::strlen(kXpcallGuardFactory), "=xpcall guard") != 0) {
    std::abort();  // our own text: it compiles
  }
  lua_pushcfunction(L, run_is_stopping);
  lua_call(L, 1, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, kXpcallGuards);
  lua_pushcfunction(L, guarded_xpcall);
  lua_setglobal(L, "xpcall");
}

// coroutine.resume: the original (upvalue 1), then reraise_abort.
int call_then_reraise_abort(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  reraise_abort(L);
  return lua_gettop(L);
}

// Redis's pcall: a raised error table with a string `err` is caught as that string.
int redis_style_pcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  if (status != 0) reraise_abort(L);
  if (status != 0 && lua_istable(L, -1)) {
    lua_getfield(L, -1, "err");
    if (lua_isstring(L, -1)) {
      lua_replace(L, -2);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pushboolean(L, status == 0);
  lua_insert(L, 1);
  return lua_gettop(L);
}

constexpr uint64_t kRand48Mask = (uint64_t{1} << 48) - 1;

int math_random(lua_State* L) {
  RunState* s = run_state(L);
  constexpr int32_t kMax = 2147483647;  // REDIS_LRAND48_MAX
  const lua_Number r = static_cast<lua_Number>(rand48_next(s) % kMax) / static_cast<lua_Number>(kMax);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int math_randomseed(lua_State* L) {
  rand48_seed(run_state(L), static_cast<int32_t>(luaL_checkint(L, 1)));
  return 0;
}

void open_lib(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

// globals[name] = f(original globals[name]) with the original as upvalue 1.
void wrap_global(lua_State* L, const char* name, lua_CFunction wrapper) {
  lua_getglobal(L, name);
  lua_pushcclosure(L, wrapper, 1);
  lua_setglobal(L, name);
}

// A proxy of the table on top of the stack, replacing it: empty, __index the
// table, __newindex refused; registered in kProxies.
void make_proxy(lua_State* L) {
  const int target = lua_gettop(L);
  lua_newtable(L);  // the proxy
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, target);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_getfield(L, LUA_REGISTRYINDEX, kProxies);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, target);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_replace(L, target);
}

}  // namespace

void push_script_env(lua_State* L) { lua_getfield(L, LUA_REGISTRYINDEX, kEnv); }

// Redis 7.0's __redis__err__handler, in C: the error as a table {err=...}
// (a non-table becomes "ERR " .. tostring(err)) with the source and line of
// the function that raised it (its caller when that is a C function).
int error_handler(lua_State* L) {
  RunState* s = run_state(L);
  lua_Debug ar;
  bool where = lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar);
  if (where && std::strcmp(ar.what, "C") == 0) where = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
  if (!lua_istable(L, 1)) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->tostring_ref);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    size_t len = 0;
    const char* text = lua_tolstring(L, -1, &len);
    std::string err = "ERR ";
    if (text != nullptr) err.append(text, len);
    lua_pop(L, 1);
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, err.data(), err.size());
    lua_setfield(L, -2, "err");
    lua_replace(L, 1);
  }
  lua_settop(L, 1);
  if (where) {
    lua_pushstring(L, ar.source);
    lua_setfield(L, 1, "source");
    lua_pushnumber(L, ar.currentline);
    lua_setfield(L, 1, "line");
  }
  return 1;
}

void rand48_seed(RunState* s, int32_t seed) {
  s->rand48 = ((static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E) & kRand48Mask;
}

int32_t rand48_next(RunState* s) {
  s->rand48 = (s->rand48 * 0x5DEECE66DULL + 0xB) & kRand48Mask;
  return static_cast<int32_t>(s->rand48 >> 17);
}

void install_sandbox(lua_State* L, RunState* s) {
  open_lib(L, "", luaopen_base);
  open_lib(L, LUA_TABLIBNAME, luaopen_table);
  open_lib(L, LUA_STRLIBNAME, luaopen_string);
  open_lib(L, LUA_MATHLIBNAME, luaopen_math);
  for (const char* name : {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_getglobal(L, "tostring");
  s->tostring_ref = luaL_ref(L, LUA_REGISTRYINDEX);

  lua_getglobal(L, "math");
  lua_pushcfunction(L, math_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, math_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  rand48_seed(s, 0);

  open_redis_lib(L, s);
  open_script_libraries(L);
  install_bounded_functions(L);
  lua_pushcfunction(L, redis_style_pcall);
  lua_setglobal(L, "pcall");
  lua_pushcfunction(L, error_handler);
  lua_pushvalue(L, -1);
  s->error_handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_setglobal(L, "__redis__err__handler");

  wrap_global(L, "rawset", refuse_proxy_then_call);
  wrap_global(L, "setmetatable", refuse_proxy_then_call);
  wrap_global(L, "getmetatable", getmetatable_of_proxy);
  for (const char* name : {"rawget", "next", "pairs", "ipairs"}) wrap_global(L, name, through_proxy_then_call);
  wrap_global(L, "tonumber", fast_tonumber);
  install_xpcall_guard(L);
  lua_getglobal(L, "coroutine");
  lua_getfield(L, -1, "resume");
  lua_pushcclosure(L, call_then_reraise_abort, 1);
  lua_setfield(L, -2, "resume");
  lua_pop(L, 1);

  // Read-only library tables (and the string metatable's __index with them).
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kProxies);
  for (const char* lib : {"string", "table", "math", "coroutine", "redis", "bit", "cjson", "cmsgpack", "struct"}) {
    lua_getglobal(L, lib);
    make_proxy(L);
    if (std::strcmp(lib, "string") == 0) {
      lua_pushstring(L, "");
      lua_getmetatable(L, -1);
      lua_pushvalue(L, -3);
      lua_setfield(L, -2, "__index");
      make_proxy(L);  // what getmetatable('') shows: the metatable, read-only
      lua_setfield(L, LUA_REGISTRYINDEX, kStringMeta);
      lua_pop(L, 1);
    }
    lua_setglobal(L, lib);
  }
  // The scripts' environment: a proxy of the globals, which _G names.
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  make_proxy(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kEnv);
  lua_setglobal(L, "_G");
  // What getmetatable(_G) shows: {__index = protected_global_error}, read-only.
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, protected_global_error);
  lua_setfield(L, -2, "__index");
  make_proxy(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kGlobalsMeta);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, missing_global);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, LUA_GLOBALSINDEX);
}

}  // namespace locksim::lua_detail
