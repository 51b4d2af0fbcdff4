// Redis 7.0's scripting contract on the lua backend's embedded Lua
// (redis/lua_scripting.h), one test per conversion rule and per sandbox
// rule, each script run on live redis-server too: replies (error texts
// included, with the script's sha and line) and the keys afterwards must be
// identical.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/sim/lua_live_oracle.h"

namespace locksim {
namespace {

using testing_lua::expect_same;
using testing_lua::LuaLiveOracle;

class LuaContract : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { oracle_ = new LuaLiveOracle(); }
  static void TearDownTestSuite() {
    delete oracle_;
    oracle_ = nullptr;
  }
  // Each script on both sides (from empty), compared.
  static void same(const std::vector<std::string>& scripts, const std::vector<std::string>& setup = {}) {
    for (const std::string& s : scripts) expect_same(oracle_->run(setup, s), s);
  }
  static LuaLiveOracle* oracle_;
};

LuaLiveOracle* LuaContract::oracle_ = nullptr;

// ---- Lua -> reply ---------------------------------------------------------

TEST_F(LuaContract, NumberBecomesATruncatedInteger) {
  same({"return 2.9", "return -2.9", "return 0.5", "return 1e15 + 0.5", "return 2^53", "return 1e20",
        "return -1e20", "return 0/0", "return 1/0", "return -1/0", "return 9.2233720368547758e18"});
}

TEST_F(LuaContract, BooleansAndNil) {
  same({"return true", "return false", "return nil", "return", "return {true, false, 1}"});
}

TEST_F(LuaContract, TableBecomesAnArrayUpToItsFirstNil) {
  same({"return {1, 2, nil, 3}", "return {}", "return {a = 1}", "return {[1] = 'a', [3] = 'c'}",
        "return {1, 'a', {2, {3, {}}}, 2.5}", "return {1, nil, 3, n = 5}",
        "return setmetatable({}, {__index = function() return 1 end})"});
}

TEST_F(LuaContract, ErrAndOkTables) {
  same({"return {err = 'boom'}", "return {err = 'ERR spaced out'}", "return {err = '-ERR dash'}",
        "return {err = 'a\\nb'}", "return {err = '\\nx\\n'}", "return {err = ''}", "return {err = 5}",
        "return {ok = 'fine'}", "return {ok = '+OK'}", "return {ok = 'a\\r\\nb'}", "return {ok = 5}",
        "return {ok = 'a', err = 'b'}", "return {'x', ok = 'a'}", "return {1, {err = 'inner'}, {ok = 's'}}"});
}

TEST_F(LuaContract, Resp3ShapedTablesInResp2) {
  same({"return {double = 1.5}", "return {double = '1.5'}", "return {double = 1e300 * 10}",
        "return {map = {a = 1}}", "return {set = {a = true}}", "return {big_number = '123'}",
        "return {verbatim_string = {format = 'txt', string = 'x'}}"});
}

TEST_F(LuaContract, OtherValuesAreNil) {
  same({"return function() end", "return coroutine.create(function() end)", "return {function() end, 1}"});
}

// ---- reply -> Lua ---------------------------------------------------------

TEST_F(LuaContract, IntegerAndBulkRepliesBecomeNumbersAndStrings) {
  same({"return type(redis.call('incr', 'n'))", "return type(redis.call('get', 'n'))",
        "redis.call('set', 'n', 7); return redis.call('incrby', 'n', 5) + 0.5",
        "redis.call('set', 's', 'x'); return redis.call('get', 's') .. 'y'",
        "return redis.call('echo', 'abc')"});
}

TEST_F(LuaContract, NilReplyBecomesFalse) {
  same({"return tostring(redis.call('get', 'nokey'))", "return redis.call('lindex', 'nolist', 0) == false",
        "return tostring(redis.call('zscore', 'noz', 'm'))", "return tostring(redis.call('lpop', 'nolist'))",
        "return type(redis.call('lpop', 'nolist', 2))"});
}

TEST_F(LuaContract, ArrayReplyBecomesATable) {
  same({"redis.call('rpush', 'l', 'a', 'b', 'c'); local t = redis.call('lrange', 'l', 0, -1); return {#t, t[1], t[3]}",
        "return type(redis.call('lrange', 'nolist', 0, -1))",
        "redis.call('zadd', 'z', 1, 'a', 2, 'b'); return redis.call('zrange', 'z', 0, -1, 'withscores')"});
}

TEST_F(LuaContract, StatusReplyBecomesAnOkTable) {
  same({"return redis.call('set', 'a', 'b')", "local t = redis.call('set', 'a', 'b'); return t.ok",
        "return redis.call('type', 'nokey').ok", "return redis.call('ping')",
        "local t = redis.call('set', 'a', 'b'); local out = {} for k, v in pairs(t) do out[#out + 1] = k .. '=' .. "
        "tostring(v) end return out"});
}

TEST_F(LuaContract, ArgumentsToCommands) {
  same({"redis.call('set', 'n', 3.0); return redis.call('get', 'n')",
        "redis.call('set', 'n', 0.1); return redis.call('get', 'n')",
        "redis.call('set', 'n', 1e20); return redis.call('get', 'n')",
        "redis.call('set', 'n', 2^53 + 1); return redis.call('get', 'n')",
        "redis.call('set', 'n', -0.0); return redis.call('get', 'n')",
        "redis.call('set', 'n', 123456789012345678); return redis.call('get', 'n')",
        "return redis.call('set', 'n', true)", "return redis.call('get', {})", "return redis.call('get', nil)",
        "return redis.call()", "return redis.call(1)", "return redis.call({})", "return redis.pcall('get', {})",
        "return redis.pcall()", "return redis.call('GeT', 'x')"});
}

TEST_F(LuaContract, KeysAndArgvAreStrings) {
  expect_same(oracle_->run({}, "return {type(KEYS[1]), KEYS[1], ARGV[1], ARGV[2], #KEYS, #ARGV}", {"k1"}, {"1", ""}),
              "KEYS/ARGV");
  expect_same(oracle_->run({}, "KEYS[1] = 'x'; return KEYS[1]", {"k1"}, {}), "KEYS is writable");
  expect_same(oracle_->run({}, "return {#KEYS, #ARGV}"), "empty KEYS/ARGV");
}

// ---- errors -----------------------------------------------------------------

TEST_F(LuaContract, CallRaisesTheCommandsError) {
  same({"return redis.call('set', 'k', 'v', 'px', 0)", "redis.call('set', 's', 'x')\nreturn redis.call('hget', 's', 'f')",
        "local x = 1\nlocal y = 2\nreturn redis.call('incr', 'k', 'extra')", "return redis.call('foo')",
        "return redis.call('subscribe', 'x')", "return redis.call('subscribe')", "return redis.call('get')"});
}

TEST_F(LuaContract, PcallReturnsTheErrorTable) {
  const char* dump = "local out = {} for k, v in pairs(t) do out[#out + 1] = k .. '=' .. tostring(v) end "
                     "table.sort(out) return out";
  same({"return redis.pcall('set', 'k', 'v', 'px', 0)", std::string("local t = redis.pcall('nosuch'); ") + dump,
        std::string("local t = redis.pcall({}); ") + dump, std::string("local t = redis.pcall(); ") + dump,
        std::string("local t = redis.pcall('get'); ") + dump,
        std::string("redis.call('set', 's', 'x'); local t = redis.pcall('hget', 's', 'f'); ") + dump,
        "return redis.pcall('lpush', 'k', 'x')"},
       {"redis.call('set', 'k', 'v')"});
}

TEST_F(LuaContract, LuaPcallCatchesACallErrorAsItsText) {
  same({"local ok, e = pcall(function() redis.call('set', 'k', 'v', 'px', 0) end); return {tostring(ok), type(e), e}",
        "local ok, e = pcall(function() redis.call('foo') end); return e",
        "local ok, e = pcall(function() error('y') end); return {tostring(ok), e}",
        "local ok, e = pcall(function() error({err = 'z'}) end); return e",
        "local ok, e = pcall(function() error({x = 1}) end); return type(e)",
        "return pcall(function() return 1, 2 end)",
        "local ok, e = xpcall(function() redis.call('foo') end, function(m) return type(m) end); return e"});
}

TEST_F(LuaContract, RaisedErrorsNameTheScriptAndLine) {
  same({"error('hello')", "error({err = 'tbl'})", "error(nil)", "error(123)", "error('a\\nb')", "error('a\\r\\n')",
        "error({err = 'x\\ny'})", "local x = nil + 1", "local function f()\n  error('x')\nend\nf()",
        "\n\nlocal t = {}\nreturn t.x.y", "error('lvl2', 2)", "error('nolevel', 0)", "assert(false, 'asserted')",
        "assert(1 == 2)", "return redis.call('get', 'a', 'b')", "if then"});
}

TEST_F(LuaContract, ErrorAndStatusReplyHelpers) {
  same({"return redis.error_reply('no space')", "return redis.error_reply('oneword')",
        "return redis.error_reply('-no dash')", "return redis.error_reply('')", "return redis.error_reply()",
        "return redis.error_reply(5)", "return redis.status_reply('GOOD')", "return redis.status_reply('x y')",
        "return redis.status_reply(5)", "return redis.status_reply('a\\r\\nb')",
        "local t = redis.error_reply('x y'); return t.err"});
}

TEST_F(LuaContract, Sha1hexAndLog) {
  same({"return redis.sha1hex('')", "return redis.sha1hex('abc')", "return redis.sha1hex(12)",
        "return redis.sha1hex({})", "return redis.sha1hex()",
        "return redis.sha1hex(string.rep('x', 1000))",
        "return redis.log(redis.LOG_WARNING, 'x')", "return redis.log('x')", "return redis.log(redis.LOG_WARNING)",
        "return redis.log(99, 'x')", "return redis.log('a', 'x')"});
}

TEST_F(LuaContract, RedisLibraryConstantsAndHelpers) {
  same({"return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING, redis.REPL_ALL, "
        "redis.REPL_AOF, redis.REPL_NONE, redis.REPL_REPLICA, redis.REPL_SLAVE, redis.REDIS_VERSION, "
        "redis.REDIS_VERSION_NUM}",
        "return redis.replicate_commands()", "return redis.setresp(2)", "return redis.setresp(4)",
        "return redis.set_repl(redis.REPL_ALL)", "return redis.set_repl(8)", "return redis.breakpoint()",
        "local out = {} for k, v in pairs(redis) do out[#out + 1] = k .. ':' .. type(v) end table.sort(out) return out"});
}

// ---- the sandbox ------------------------------------------------------------

TEST_F(LuaContract, GlobalWritesAreRefused) {
  same({"x = 1", "local function f() y = 2 end f()", "_G.z = 1", "rawset(_G, 'a', 1)", "setmetatable(_G, nil)",
        "KEYS = {}", "redis = nil", "_G['KEYS'] = 1"});
  // The globals' metatable gives no way round: its __index is a function,
  // and the metatable itself refuses writes.
  same({"return type(getmetatable(_G).__index)", "local g = getmetatable(_G).__index; g.KEYS = 5",
        "getmetatable(_G).__index = nil", "getmetatable(_G).__newindex = nil; x = 1",
        "return getmetatable(_G).__index(_G, 'KEYS') ~= nil", "return type(getmetatable(redis).__index)",
        "local g = getmetatable(string).__index; g.x = 1", "getmetatable('').__index = nil",
        "getmetatable('').x = 1", "return type(getmetatable('').__index)", "return ('abc'):upper()"});
}

TEST_F(LuaContract, LibraryTablesAreReadOnly) {
  same({"string.foo = 1", "redis.call = nil", "math.pi = 3", "table.insert2 = 1", "coroutine.x = 1",
        "rawset(string, 'x', 1)", "setmetatable(redis, {})", "getmetatable('').__index.upper = nil",
        "return string.foo", "return ('abc'):upper()", "return string.format('%05d', 42)"});
}

TEST_F(LuaContract, MissingGlobalsAreErrors) {
  same({"return y", "return os", "return io", "return loadfile", "return dofile", "return print", "return getfenv",
        "return setfenv", "return newproxy", "return require", "return module", "return debug", "return package",
        "return os.time()"});
}

TEST_F(LuaContract, TheGlobalsAreRedisOnes) {
  same({"local t = {} for k, v in pairs(_G) do t[#t + 1] = k .. ':' .. type(v) end table.sort(t) return t",
        "local t = {} for k in pairs(string) do t[#t + 1] = k end table.sort(t) return t",
        "local t = {} for k in pairs(math) do t[#t + 1] = k end table.sort(t) return t",
        "local t = {} for k in pairs(table) do t[#t + 1] = k end table.sort(t) return t",
        "local t = {} for k in pairs(coroutine) do t[#t + 1] = k end table.sort(t) return t",
        "return {type(bit), type(cjson), type(cmsgpack), type(struct), _VERSION}",
        "return rawget(_G, 'KEYS') ~= nil", "return type(_G)", "return next(_G) ~= nil",
        "local n = 0 for i, v in ipairs(KEYS) do n = n + 1 end return n"});
}

TEST_F(LuaContract, LoadstringRunsInTheSandbox) {
  same({"return loadstring('return 1 + 1')()", "return loadstring('x = 1')()", "return loadstring('return zz')()",
        "local f, e = loadstring('if'); return e", "return load(function() return nil end) ~= nil"});
}

TEST_F(LuaContract, MathRandomIsRedisRand48) {
  same({"math.randomseed(1); return {math.random(1000), math.random(1000), math.random(5, 9)}",
        "math.randomseed(42); return tostring(math.random())", "math.randomseed(7); return math.random(0)",
        "return math.random(1, 2, 3)"});
}

TEST_F(LuaContract, CommandsScriptsMayNotCall) {
  same({"return redis.pcall('subscribe', 'x')", "return redis.pcall('multi')", "return redis.pcall('eval', 'return 1', 0)",
        "return redis.pcall('watch', 'k')", "return redis.pcall('config')"});
}

}  // namespace
}  // namespace locksim
