// The lua backend's commands against live redis-server, measured in one
// run: the same Lua script (100,000 HSETs on one key; 1,000 APPENDs of
// 100 KB; HINCRBY, RPUSH and LPOP, ZADD, ZSCORE and ZREM, ZRANK, ZRANGE by
// rank, SET PX) by EVAL on a redis-server started here and on the lua backend's
// embedded Lua over a Store charged to a run's memory account (as
// sim/lua_backend.h runs it). Prints each side's best time of three and
// their ratio, lua / live; the aim is 5 or less (a command costing what
// Redis's does: amortised constant per call, not the size of the value).
// A benchmark, not a test: it asserts nothing.
//
//   ./build/bench/bench_lua_commands
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "impl/redis_conn.h"
#include "redis/lua_scripting.h"
#include "redis/memory_account.h"
#include "redis/store.h"
#include "sim/lua_backend.h"
#include "tools/server/redis_server.h"

namespace {

using locksim::Reply;

struct Workload {
  const char* name;
  std::string script;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main() {
  const std::vector<Workload> workloads = {
      {"100000 HSETs on one key",
       "for i = 1, 100000 do redis.call('hset', KEYS[1], 'f' .. i, i) end return redis.call('hlen', KEYS[1])"},
      {"1000 APPENDs of 100 KB",
       "local v = string.rep('x', 102400) for i = 1, 1000 do redis.call('append', KEYS[1], v) end "
       "return redis.call('strlen', KEYS[1])"},
      {"100000 HINCRBYs, 1000 fields",
       "for i = 1, 100000 do redis.call('hincrby', KEYS[1], 'f' .. (i % 1000), 1) end return redis.call('hlen', KEYS[1])"},
      {"100000 RPUSHs then LPOPs",
       "for i = 1, 100000 do redis.call('rpush', KEYS[1], i) end "
       "for i = 1, 100000 do redis.call('lpop', KEYS[1]) end return redis.call('llen', KEYS[1])"},
      {"100000 ZADDs, scores mixed",
       "for i = 1, 100000 do redis.call('zadd', KEYS[1], (i * 7919) % 100003, 'm' .. i) end "
       "return redis.call('zcard', KEYS[1])"},
      {"100000 ZSCOREs and ZREMs",
       "for i = 1, 100000 do redis.call('zadd', KEYS[1], i, 'm' .. i) end "
       "for i = 1, 100000 do redis.call('zscore', KEYS[1], 'm' .. i) redis.call('zrem', KEYS[1], 'm' .. i) end "
       "return redis.call('zcard', KEYS[1])"},
      {"10000 ZRANKs, 10000 members",
       "for i = 1, 10000 do redis.call('zadd', KEYS[1], i, 'm' .. i) end "
       "for i = 1, 10000 do redis.call('zrank', KEYS[1], 'm' .. i) end return redis.call('zcard', KEYS[1])"},
      {"10000 ZRANGEs of 1 at the middle",
       "for i = 1, 10000 do redis.call('zadd', KEYS[1], i, 'm' .. i) end "
       "for i = 1, 10000 do redis.call('zrange', KEYS[1], 5000, 5000) end return redis.call('zcard', KEYS[1])"},
      {"100000 SETs PX, 1000 keys",
       "for i = 1, 100000 do redis.call('set', KEYS[1] .. (i % 1000), i, 'PX', 30000) end return 1"},
  };
  constexpr int kRounds = 3;
  locksim::RedisServer server;
  locksim::RedisConnOptions options;
  options.port = server.port();
  locksim::RedisConn conn = locksim::RedisConn::connect(options);
  std::printf("%-26s %10s %10s %8s\n", "workload", "live_s", "lua_s", "lua/live");
  bool all_within = true;
  for (const Workload& w : workloads) {
    double live_best = 1e9, lua_best = 1e9;
    Reply live_reply, lua_reply;
    for (int round = 0; round < kRounds; ++round) {
      conn.command({"FLUSHALL"});
      auto start = std::chrono::steady_clock::now();
      live_reply = conn.command({"EVAL", w.script, "1", "bench:key"});
      live_best = std::min(live_best, seconds_since(start));

      locksim::MemoryAccount memory(locksim::LuaBackend::kDefaultRunMemoryBytes);
      locksim::Store store;
      store.set_memory_account(&memory);
      locksim::LuaScripting lua(locksim::LuaBackend::default_limits(), locksim::LuaAllocation::Malloc, &memory);
      locksim::CommandContext ctx;
      ctx.store = &store;
      ctx.now_ms = 1'700'000'000'000;
      ctx.now_us = ctx.now_ms * 1000;
      const int id = lua.load(w.script);
      const std::vector<std::string> keys = {"bench:key"};
      start = std::chrono::steady_clock::now();
      lua_reply = lua.run(id, keys, {}, ctx);
      lua_best = std::min(lua_best, seconds_since(start));
    }
    const double ratio = lua_best / live_best;
    all_within = all_within && ratio <= 5.0;
    std::printf("%-26s %10.3f %10.3f %8.2f%s\n", w.name, live_best, lua_best, ratio,
                live_reply == lua_reply ? "" : "  (replies differ!)");
  }
  std::printf("aim: lua/live <= 5 for each: %s\n", all_within ? "met" : "not met");
  return 0;
}
