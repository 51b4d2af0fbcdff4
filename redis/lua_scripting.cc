#include "redis/lua_scripting.h"

#include <algorithm>
#include <cassert>

#include "redis/lua_code_lines.h"

#include "redis/lua_state.h"
#include "redis/sha1.h"

namespace locksim {

using lua_detail::RunState;

LuaScripting::LuaScripting(LuaLimits limits, LuaAllocation allocation, MemoryAccount* shared_memory)
    : state_(std::make_unique<RunState>()) {
  state_->limits = limits;
  state_->own_memory = MemoryAccount(limits.memory_bytes);
  if (shared_memory != nullptr) state_->memory = shared_memory;
  const lua_Alloc alloc =
      allocation == LuaAllocation::OperatorNew ? lua_detail::lua_alloc_through_new : lua_detail::lua_alloc;
  L_ = lua_newstate(alloc, state_.get());
  if (L_ == nullptr) throw std::bad_alloc();
  lua_detail::install_sandbox(L_, state_.get());
  lua_pushstring(L_, "KEYS");
  state_->keys_name_ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_pushstring(L_, "ARGV");
  state_->argv_name_ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_settop(L_, 0);
  // Installed for good: a script's budget starts when run() zeroes
  // hook_calls (the instructions before its first hook call are at most
  // one interval of the previous script's).
  // The line events feed the line coverage (lines_run()).
  lua_sethook(L_, lua_detail::step_hook, LUA_MASKCOUNT | LUA_MASKLINE, lua_detail::kHookEveryInstructions);
}

LuaScripting::~LuaScripting() {
  if (L_ != nullptr) lua_close(L_);
}

int LuaScripting::load(std::string_view source) {
  std::string sha = sha1_hex(source);
  if (auto it = id_of_sha_.find(sha); it != id_of_sha_.end()) return it->second;
  if (lua_detail::load_text_chunk(L_, source.data(), source.size(), lua_detail::kScriptChunkName) != 0) {
    const char* msg = lua_tostring(L_, -1);
    std::string text = "ERR Error compiling script (new function): " + std::string(msg ? msg : "?");
    lua_settop(L_, 0);
    throw LuaCompileError(text);
  }
  lua_detail::push_script_env(L_);
  lua_setfenv(L_, -2);
  Script s;
  s.code_lines = lua_function_code_lines(L_);
  s.line_hits.assign(s.code_lines.empty() ? 1 : static_cast<size_t>(s.code_lines.back()) + 1, 0);
  s.ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  s.sha = std::move(sha);
  const int id = static_cast<int>(scripts_.size());
  id_of_sha_.emplace(s.sha, id);
  scripts_.push_back(std::move(s));
  return id;
}

const std::string& LuaScripting::sha(int id) const {
  assert(id >= 0 && static_cast<size_t>(id) < scripts_.size());
  return scripts_[static_cast<size_t>(id)].sha;
}

namespace {

// Whether table `idx` holds no entry but 1..n (some may be nil) and no
// metatable: as set_string_array left it, apart from values a script may
// have replaced. lua_next goes through the array part, then the hash part:
// nothing may follow key n.
bool plain_array_of(lua_State* L, int idx, size_t n) {
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return false;
  }
  if (n == 0) {
    lua_pushnil(L);
  } else {
    // lua_next raises an error for a key the table does not hold: t[n]
    // must be there (a script that cleared it gets a new table).
    lua_rawgeti(L, idx, static_cast<int>(n));
    const bool held = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!held) return false;
    lua_pushinteger(L, static_cast<lua_Integer>(n));
  }
  if (lua_next(L, idx) != 0) {
    lua_pop(L, 2);
    return false;
  }
  return true;
}

// globals[name] = {strings...}, bypassing the read-only protection as Redis
// does. Redis makes a new table per call; here each script has its own
// KEYS and ARGV tables (`array`: their registry refs and sizes), refilled
// call after call (no garbage; a string equal to the one already in its
// place stays), unless the script left one with other keys or a
// metatable: a script sees the same either way.
void set_string_array(lua_State* L, int name_ref, lua_detail::ScriptArray* array,
                      std::span<const std::string> values) {
  bool fresh = array->ref == LUA_NOREF;
  if (!fresh) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, array->ref);
    if (!plain_array_of(L, lua_gettop(L), array->n)) {
      lua_pop(L, 1);
      luaL_unref(L, LUA_REGISTRYINDEX, array->ref);
      fresh = true;
    }
  }
  if (fresh) {
    lua_createtable(L, static_cast<int>(values.size()), 0);
    lua_pushvalue(L, -1);
    array->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    array->n = 0;
  }
  const int t = lua_gettop(L);
  for (size_t i = 0; i < values.size(); ++i) {
    if (i < array->n) {  // the same text as last time: keep the Lua string
      lua_rawgeti(L, t, static_cast<int>(i + 1));
      size_t len = 0;
      const char* old = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : nullptr;
      const bool same = old != nullptr && std::string_view(old, len) == values[i];
      lua_pop(L, 1);
      if (same) continue;
    }
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, t, static_cast<int>(i + 1));
  }
  for (size_t i = values.size(); i < array->n; ++i) {
    lua_pushnil(L);
    lua_rawseti(L, t, static_cast<int>(i + 1));
  }
  array->n = values.size();
  lua_rawgeti(L, LUA_REGISTRYINDEX, name_ref);
  lua_insert(L, t);
  lua_rawset(L, LUA_GLOBALSINDEX);
}

}  // namespace

namespace {

// What run() hands the protected setup of KEYS and ARGV.
struct ArraysToSet {
  lua_detail::RunState* s;
  lua_detail::ScriptArray* keys;
  lua_detail::ScriptArray* argv;
  std::span<const std::string> key_values, argv_values;
};

int set_arrays(lua_State* L) {
  auto* a = static_cast<ArraysToSet*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  if (!lua_checkstack(L, 16)) luaL_error(L, "no room on the Lua stack");
  set_string_array(L, a->s->keys_name_ref, a->keys, a->key_values);
  set_string_array(L, a->s->argv_name_ref, a->argv, a->argv_values);
  return 0;
}

}  // namespace

void LuaScripting::run(int id, std::span<const std::string> keys, std::span<const std::string> argv,
                       CommandContext& ctx, ReplySink& reply) {
  assert(id >= 0 && static_cast<size_t>(id) < scripts_.size());
  Script& script = scripts_[static_cast<size_t>(id)];
  RunState& s = *state_;
  s.ctx = &ctx;
  s.sha = &script.sha;
  s.abort.clear();
  s.hook_calls = 0;
  s.steps_charged = 0;
  s.bytes_toward_step = 0;
  s.over_memory = false;
  s.line_hits = script.line_hits.data();
  s.line_hits_size = script.line_hits.size();
  s.code_from_load = false;
  struct EndOfRun {  // also when the run throws
    lua_detail::RunState& s;
    ~EndOfRun() {
      s.line_hits = nullptr;
      s.enforce = false;
      s.ctx = nullptr;
    }
  } end_of_run{s};
  lua_settop(L_, 0);
  // From here on the budget and the memory limit hold; everything that may
  // allocate runs protected (KEYS and ARGV too).
  s.enforce = true;
  ArraysToSet arrays{&s, &script.keys, &script.argv, keys, argv};
  int status = lua_cpcall(L_, set_arrays, &arrays);
  if (status == 0) {
    lua_settop(L_, 0);
    lua_rawgeti(L_, LUA_REGISTRYINDEX, s.error_handler_ref);
    lua_rawgeti(L_, LUA_REGISTRYINDEX, script.ref);
    status = lua_pcall(L_, 0, 1, 1);
  } else if (s.abort.empty()) {
    s.over_memory = true;  // KEYS and ARGV did not fit
  }
  s.enforce = false;
  s.ctx = nullptr;
  if (!s.abort.empty() || s.over_memory) {
    lua_settop(L_, 0);
    lua_gc(L_, LUA_GCCOLLECT, 0);
    throw LuaScriptAbort(!s.abort.empty() ? s.abort : lua_detail::memory_limit_text(s));
  }
  if (status != 0) {
    reply.error(lua_detail::failed_run_text(L_, script.sha));
  } else {
    lua_detail::lua_value_to_reply(L_, -1, reply);
  }
  lua_settop(L_, 0);
  if (s.over_memory) throw LuaScriptAbort(lua_detail::memory_limit_text(s));  // the reply did not fit
}

Reply LuaScripting::run(int id, std::span<const std::string> keys, std::span<const std::string> argv,
                        CommandContext& ctx) {
  ReplyBuilder builder;
  run(id, keys, argv, ctx, builder);
  return builder.take();
}

void LuaScripting::reset() { lua_detail::rand48_seed(state_.get(), 0); }

const std::vector<int>& LuaScripting::code_lines(int id) const {
  assert(id >= 0 && static_cast<size_t>(id) < scripts_.size());
  return scripts_[static_cast<size_t>(id)].code_lines;
}

std::vector<int> LuaScripting::lines_run(int id) const {
  assert(id >= 0 && static_cast<size_t>(id) < scripts_.size());
  std::vector<int> out;
  const std::vector<uint8_t>& hits = scripts_[static_cast<size_t>(id)].line_hits;
  for (size_t line = 0; line < hits.size(); ++line)
    if (hits[line] != 0) out.push_back(static_cast<int>(line));
  return out;
}

void LuaScripting::clear_line_coverage() {
  for (Script& s : scripts_) std::fill(s.line_hits.begin(), s.line_hits.end(), 0);
}

}  // namespace locksim
