// LuaScripting (redis/lua_scripting.h) on its own, without a server: what
// the live comparisons cannot show. A script never sees what an earlier one
// did to KEYS or ARGV (Redis builds them anew per call; here they are
// refilled), the step budget and the memory limit stop a run (a pcall in the
// script cannot keep it going), an unimplemented command stops it naming
// the command, math.random restarts with reset(), and the same runs give
// the same replies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "redis/lua_scripting.h"
#include "redis/store.h"

namespace locksim {
namespace {

class LuaScriptingTest : public ::testing::Test {
 protected:
  // Small limits, so that a runaway script stops in milliseconds.
  LuaScriptingTest() : lua_(LuaLimits{2'000'000, size_t{16} << 20}) {
    ctx_.store = &store_;
    ctx_.now_ms = 1'700'000'000'000;
    ctx_.now_us = ctx_.now_ms * 1000;
  }
  Reply run(const std::string& script, std::vector<std::string> keys = {}, std::vector<std::string> argv = {}) {
    return lua_.run(lua_.load(script), keys, argv, ctx_);
  }
  Store store_;
  LuaScripting lua_;
  CommandContext ctx_;
};

TEST_F(LuaScriptingTest, KeysAndArgvAreFreshForEveryRun) {
  const std::string grow = "KEYS[5] = 'x'; ARGV.extra = 1; return #KEYS";
  EXPECT_EQ(run(grow, {"a"}), Reply::of_int(1));
  EXPECT_EQ(run(grow, {"a"}), Reply::of_int(1));  // the earlier KEYS[5] is gone
  EXPECT_EQ(run("return tostring(ARGV.extra)", {}, {"1"}), Reply::bulk("nil"));
  const std::string shape = "local n = 0 for k in pairs(KEYS) do n = n + 1 end return {n, #KEYS, KEYS[1], KEYS[2]}";
  const std::string clear = "KEYS[1] = nil; KEYS[2] = nil; return 0";
  EXPECT_EQ(run(clear, {"a", "b"}), Reply::of_int(0));
  EXPECT_EQ(run(clear, {"c", "d"}), Reply::of_int(0));
  Reply expected;
  expected.kind = Reply::Kind::Array;
  expected.elements = {Reply::of_int(2), Reply::of_int(2), Reply::bulk("e"), Reply::bulk("f")};
  EXPECT_EQ(run(shape, {"e", "f"}), expected);
  const std::string meta = "local had = getmetatable(KEYS) ~= nil; setmetatable(KEYS, {}); return tostring(had)";
  EXPECT_EQ(run(meta, {"a"}), Reply::bulk("false"));
  EXPECT_EQ(run(meta, {"a"}), Reply::bulk("false"));
  EXPECT_EQ(run("return {KEYS[1], ARGV[1], #KEYS, #ARGV}", {"k"}, {"v"}).elements.size(), 4u);
}

TEST_F(LuaScriptingTest, AnEndlessLoopStopsAtTheStepBudget) {
  for (const char* script : {"while true do end", "while true do pcall(function() while true do end end) end",
                             "while true do xpcall(function() while true do end end, function(e) return e end) end",
                             "while true do coroutine.resume(coroutine.create(function() while true do end end)) end"}) {
    try {
      run(script);
      ADD_FAILURE() << script << " returned";
    } catch (const LuaScriptAbort& e) {
      EXPECT_NE(std::string(e.what()).find("budget of 2000000 steps"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(run("local n = 0 for i = 1, 100000 do n = n + i end return n"), Reply::of_int(5000050000));
}

TEST_F(LuaScriptingTest, TooMuchMemoryStopsTheRun) {
  try {
    run("local s = 'x' while true do s = s .. s end");
    ADD_FAILURE() << "returned";
  } catch (const LuaScriptAbort& e) {
    EXPECT_NE(std::string(e.what()).find("16 MiB of memory"), std::string::npos) << e.what();
  }
  try {  // caught by the script's pcall, it still stops the run (a budget that lasts past the memory)
    LuaScripting lua(LuaLimits{100'000'000, size_t{16} << 20});
    lua.run(lua.load("local t = {} while true do pcall(function() local s = string.rep('x', 1e5) t[#t + 1] = s .. #t "
                     "end) end"),
            {}, {}, ctx_);
    ADD_FAILURE() << "returned";
  } catch (const LuaScriptAbort& e) {
    EXPECT_NE(std::string(e.what()).find("16 MiB of memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run("return 1"), Reply::of_int(1));  // the state goes on
}

TEST_F(LuaScriptingTest, AnUnimplementedCommandStopsTheRunNamingIt) {
  for (const char* script : {"return redis.call('hincrbyfloat', 'h', 'f', '1.5')",
                             "return redis.pcall('HINCRBYFLOAT', 'h', 'f', '1.5')",
                             "local ok = pcall(redis.call, 'hincrbyfloat', 'h', 'f', 1) return 1"}) {
    try {
      run(script);
      ADD_FAILURE() << script << " returned";
    } catch (const LuaScriptAbort& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("HINCRBYFLOAT"), std::string::npos) << what;
      EXPECT_NE(what.find("--backend live"), std::string::npos) << what;
    }
  }
  for (const char* script : {"return redis.acl_check_cmd('get')", "return redis.setresp(3)",
                             "return redis.call('zrange', 'z', 'a', 'b', 'bylex')"}) {
    EXPECT_THROW(run(script), LuaScriptAbort) << script;
  }
  // Unknown to Redis too: Redis's own error, no abort.
  EXPECT_EQ(run("return redis.pcall('nosuchcommand')"), Reply::error("ERR Unknown Redis command called from script"));
}

TEST_F(LuaScriptingTest, RandomRestartsWithReset) {
  const std::string script = "return {math.random(1000000), math.random(1000000)}";
  const Reply first = run(script);
  EXPECT_NE(run(script), first);
  lua_.reset();
  EXPECT_EQ(run(script), first);
}

TEST_F(LuaScriptingTest, CompileErrorsAreRedisText) {
  try {
    lua_.load("if then");
    ADD_FAILURE() << "compiled";
  } catch (const LuaCompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "ERR Error compiling script (new function): user_script:1: unexpected symbol near 'then'");
  }
  EXPECT_EQ(lua_.load("return 1"), lua_.load("return 1"));  // one id per text
  EXPECT_EQ(lua_.sha(lua_.load("return 1")), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
}

TEST_F(LuaScriptingTest, TheSameRunsGiveTheSameReplies) {
  const std::string script =
      "redis.call('hincrby', KEYS[1], ARGV[1], 1) redis.call('zadd', KEYS[2], ARGV[2], ARGV[1]) "
      "return {redis.call('hgetall', KEYS[1]), redis.call('zrange', KEYS[2], 0, -1, 'withscores'), math.random(100)}";
  std::vector<Reply> replies[2];
  for (auto& out : replies) {
    store_.clear();
    lua_.reset();
    for (int i = 0; i < 20; ++i) {
      out.push_back(run(script, {"h", "z"}, {"f" + std::to_string(i % 3), std::to_string(i * 1.5)}));
    }
  }
  EXPECT_EQ(replies[0], replies[1]);
}

}  // namespace
}  // namespace locksim
