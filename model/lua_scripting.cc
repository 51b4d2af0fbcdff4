#include "model/lua_scripting.h"

#include <cassert>

#include "model/lua_state.h"
#include "model/sha1.h"

namespace locksim {

using lua_detail::RunState;

LuaScripting::LuaScripting() : state_(std::make_unique<RunState>()) {
  L_ = lua_newstate(lua_detail::lua_alloc, state_.get());
  if (L_ == nullptr) throw std::bad_alloc();
  lua_detail::install_sandbox(L_, state_.get());
  lua_settop(L_, 0);
}

LuaScripting::~LuaScripting() {
  if (L_ != nullptr) lua_close(L_);
}

int LuaScripting::load(std::string_view source) {
  std::string sha = sha1_hex(source);
  if (auto it = id_of_sha_.find(sha); it != id_of_sha_.end()) return it->second;
  if (luaL_loadbuffer(L_, source.data(), source.size(), "@user_script") != 0) {
    const char* msg = lua_tostring(L_, -1);
    std::string text = "ERR Error compiling script (new function): " + std::string(msg ? msg : "?");
    lua_settop(L_, 0);
    throw LuaCompileError(text);
  }
  lua_detail::push_script_env(L_);
  lua_setfenv(L_, -2);
  Script s;
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

// globals[name] = {strings...}, bypassing the read-only protection as Redis does.
void set_string_array(lua_State* L, const char* name, std::span<const std::string> values) {
  lua_pushstring(L, name);
  lua_createtable(L, static_cast<int>(values.size()), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_rawset(L, LUA_GLOBALSINDEX);
}

}  // namespace

void LuaScripting::run(int id, std::span<const std::string> keys, std::span<const std::string> argv,
                       CommandContext& ctx, ReplySink& reply) {
  assert(id >= 0 && static_cast<size_t>(id) < scripts_.size());
  const Script& script = scripts_[static_cast<size_t>(id)];
  RunState& s = *state_;
  s.ctx = &ctx;
  s.sha = &script.sha;
  s.abort.clear();
  s.hook_calls = 0;
  s.over_memory = false;
  lua_settop(L_, 0);
  if (!lua_checkstack(L_, static_cast<int>(keys.size() + argv.size()) + 16)) {
    throw LuaScriptAbort("too many KEYS and ARGV for the Lua stack");
  }
  set_string_array(L_, "KEYS", keys);
  set_string_array(L_, "ARGV", argv);
  lua_sethook(L_, lua_detail::step_hook, LUA_MASKCOUNT, lua_detail::kHookEveryInstructions);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, s.error_handler_ref);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, script.ref);
  const int status = lua_pcall(L_, 0, 1, 1);
  lua_sethook(L_, nullptr, 0, 0);
  s.ctx = nullptr;
  if (!s.abort.empty() || s.over_memory) {
    lua_settop(L_, 0);
    lua_gc(L_, LUA_GCCOLLECT, 0);
    throw LuaScriptAbort(!s.abort.empty() ? s.abort
                                          : "the script needed more than " +
                                                std::to_string(kMemoryLimitBytes >> 20) +
                                                " MB of Lua memory, the lua backend's limit");
  }
  if (status != 0) {
    reply.error(lua_detail::failed_run_text(L_, script.sha));
  } else {
    lua_detail::lua_value_to_reply(L_, -1, reply);
  }
  lua_settop(L_, 0);
}

Reply LuaScripting::run(int id, std::span<const std::string> keys, std::span<const std::string> argv,
                        CommandContext& ctx) {
  ReplyBuilder builder;
  run(id, keys, argv, ctx, builder);
  return builder.take();
}

void LuaScripting::reset() { lua_detail::rand48_seed(state_.get(), 0); }

}  // namespace locksim
