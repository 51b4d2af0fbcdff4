// LuaLiveOracle (tests): one live redis-server on a virtual clock, the
// oracle, and the same Lua script run on it (EVAL) and on LuaScripting over a
// fresh Store (redis/lua_scripting.h) at the same server time. A test
// compares the two replies (exactly: error texts included) and the keys each
// side holds afterwards (LiveBackend's snapshot, rendered like the Store's).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "redis/lua_scripting.h"
#include "redis/store.h"
#include "sim/live_backend.h"
#include "tools/server/redis_server.h"

namespace locksim::testing_lua {

inline constexpr int64_t kOracleNowMs = 1'700'000'000'000;

struct Outcome {
  Reply live;
  Reply lua;
  std::vector<KeyState> live_keys;
  std::vector<KeyState> lua_keys;
};

class LuaLiveOracle {
 public:
  LuaLiveOracle() : server_(std::make_unique<RedisServer>()) {
    RedisConnOptions o;
    o.port = server_->port();
    conn_ = std::make_unique<RedisConn>(RedisConn::connect(o));
    live_ = std::make_unique<LiveBackend>(std::vector<ServerControl*>{server_.get()},
                                          ScriptPack::load(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua"), "");
  }

  // Both sides empty, then each script of `setup` and finally `script`, all
  // at now_ms, on both; the last replies and the keys after.
  Outcome run(const std::vector<std::string>& setup, const std::string& script,
              const std::vector<std::string>& keys = {}, const std::vector<std::string>& argv = {},
              int64_t now_ms = kOracleNowMs) {
    live_->wipe();
    Store store;
    LuaScripting lua;
    CommandContext ctx;
    ctx.store = &store;
    ctx.now_ms = now_ms;
    ctx.now_us = now_ms * 1000;
    ctx.publish_receivers = 1;  // live_ listens on this server (PSUBSCRIBE *)
    server_->set_clock_us(now_ms * 1000);
    Outcome out;
    auto both = [&](const std::string& text, const std::vector<std::string>& k, const std::vector<std::string>& a) {
      std::vector<std::string> cmd = {"EVAL", text, std::to_string(k.size())};
      cmd.insert(cmd.end(), k.begin(), k.end());
      cmd.insert(cmd.end(), a.begin(), a.end());
      out.live = conn_->command(cmd);
      try {
        out.lua = lua.run(lua.load(text), k, a, ctx);
      } catch (const LuaCompileError& e) {
        out.lua = Reply::error(e.what());
      }
      store.take_published();
    };
    for (const std::string& s : setup) both(s, {}, {});
    both(script, keys, argv);
    out.live_keys = live_->snapshot(0, now_ms * 1000);
    out.lua_keys = store.snapshot(now_ms);
    return out;
  }

  // A sequence of commands through redis.pcall in one script; every reply
  // (errors and statuses too) comes back in one array.
  Outcome commands(const std::vector<std::vector<std::string>>& cmds, int64_t now_ms = kOracleNowMs) {
    std::vector<std::string> argv;
    for (const auto& c : cmds) {
      argv.insert(argv.end(), c.begin(), c.end());
      argv.push_back(kSep);
    }
    return run({}, kSequenceScript, {}, argv, now_ms);
  }

  RedisConn& conn() { return *conn_; }
  int port() const { return server_->port(); }

 private:
  static constexpr const char* kSep = "\x01|\x01";
  static constexpr const char* kSequenceScript = R"lua(
local out, cmd = {}, {}
for i = 1, #ARGV do
  if ARGV[i] == '\1|\1' then
    local r = redis.pcall(unpack(cmd))
    if r == nil then r = false end
    out[#out + 1] = r
    cmd = {}
  else
    cmd[#cmd + 1] = ARGV[i]
  end
end
return out
)lua";

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisConn> conn_;
  std::unique_ptr<LiveBackend> live_;
};

inline std::string keys_text(const std::vector<KeyState>& keys) {
  std::string out;
  for (const KeyState& k : keys) out += k.key + " " + k.type + " {" + k.value + "} " + std::to_string(k.pttl_ms) + "; ";
  return out;
}

// EXPECTs that both sides agree, naming `what`.
inline void expect_same(const Outcome& o, const std::string& what) {
  EXPECT_EQ(o.lua, o.live) << what << "\n  lua:  " << o.lua.to_string() << "\n  live: " << o.live.to_string();
  EXPECT_EQ(o.lua_keys, o.live_keys) << what << "\n  lua keys:  " << keys_text(o.lua_keys)
                                     << "\n  live keys: " << keys_text(o.live_keys);
}

}  // namespace locksim::testing_lua
