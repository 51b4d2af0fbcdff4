// The sandbox's limits on their own (redis/lua_scripting.h, redis/store.h,
// redis/hash_fields.h): what live comparisons cannot show, because Redis
// itself crashes or runs on. Each case stops with LuaScriptAbort naming the
// budget or the limit, and the state goes on afterwards.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "redis/hash_fields.h"
#include "redis/lua_scripting.h"
#include "redis/memory_account.h"
#include "redis/store.h"

namespace locksim {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;

class SandboxLimits : public ::testing::Test {
 protected:
  SandboxLimits() : memory_(size_t{64} << 20), lua_(LuaLimits{5'000'000, 0}, LuaAllocation::Malloc, &memory_) {
    store_.set_memory_account(&memory_);
    ctx_.store = &store_;
    ctx_.now_ms = kNow;
    ctx_.now_us = kNow * 1000;
  }
  // The abort's text, or "" when the script returned.
  std::string stop_of(const std::string& script) {
    try {
      lua_.run(lua_.load(script), std::vector<std::string>{"k"}, {}, ctx_);
    } catch (const LuaScriptAbort& e) {
      return e.what();
    }
    return "";
  }
  MemoryAccount memory_;
  Store store_;
  LuaScripting lua_;
  CommandContext ctx_;
};

TEST_F(SandboxLimits, WorkInCAndInErrorHandlersIsCharged) {
  for (const char* script : {
           "xpcall(function() while true do end end, function(e) while true do end end)",
           "while true do local s = string.rep('x', 1e6) end",
           "return string.find(string.rep('a', 40), string.rep('a*', 40) .. 'b')",
           "local t = {1} table.insert(t, -2147483647, 'x')",
           "local t = {} for i = 1, 1000 do t[i] = i end while true do table.sort(t) end",
           "return load(function() return 5 end)",
           "while true do pcall(coroutine.resume, coroutine.create(function() while true do end end)) end",
       }) {
    EXPECT_NE(stop_of(script).find("budget of 5000000 steps"), std::string::npos) << script;
  }
  EXPECT_EQ(stop_of("return 1"), "");  // the state goes on
}

TEST_F(SandboxLimits, DeepPatternsStopWhereRedisCrashes) {
  EXPECT_NE(stop_of("return string.find(string.rep('a', 2e5), string.rep('a?', 2e5))").find("nested deeper"),
            std::string::npos);
  EXPECT_EQ(stop_of("return string.find(string.rep('a', 1000), string.rep('a?', 1000))"), "");
}

TEST_F(SandboxLimits, OneLimitForTheHeapAndTheStore) {
  EXPECT_NE(stop_of("local v = string.rep('x', 1e6) for i = 1, 100 do redis.call('set', 'k' .. i, v) end")
                .find("64 MiB of memory"),
            std::string::npos);
  EXPECT_NE(stop_of("local v = string.rep('y', 1e5) while true do redis.call('rpush', 'l', v) end")
                .find("64 MiB of memory"),
            std::string::npos);
  EXPECT_NE(stop_of("return #string.rep('x', 2^31 - 1)").find("MiB of memory"), std::string::npos);
  EXPECT_NE(stop_of("local s = string.rep('j', 1e6) local t = {} for i = 1, 200 do t[i] = s end "
                    "return #cjson.encode(t)")
                .find("MiB of memory"),
            std::string::npos);
  // Everything the store held goes back to the account when it is emptied.
  store_.clear();
  EXPECT_EQ(store_.charged_bytes(), 0u);
  EXPECT_LT(memory_.used_bytes(), size_t{8} << 20);  // the Lua heap alone
  EXPECT_EQ(stop_of("redis.call('set', 'a', string.rep('z', 1e6)) return 1"), "");
}

TEST(StoreMemory, ChargesAreGivenBack) {
  MemoryAccount memory(size_t{1} << 30);
  Store s;
  s.set_memory_account(&memory);
  s.set("a", std::string(1000, 'x'), std::nullopt, kNow);
  s.hset("h", "f", std::string(100, 'v'), kNow);
  s.hset("h", "f", std::string(300, 'w'), kNow);
  s.rpush("l", std::string(50, 'e'), kNow);
  s.lpush("l", "short", kNow);
  s.zadd("z", 1, std::string(40, 'm'), kNow);
  for (int i = 0; i < 10; ++i) s.append("s", std::string(5000, 'a'), kNow);
  s.publish("c", std::string(100, 'p'));
  EXPECT_EQ(memory.used_bytes(), s.charged_bytes());
  EXPECT_GT(s.charged_bytes(), 51'000u);
  s.take_published();
  s.hdel("h", "f", kNow);
  s.lpop("l", kNow);
  s.rpop("l", kNow);
  s.zrem("z", std::string(40, 'm'), kNow);
  s.del("a", kNow);
  s.del("s", kNow);
  EXPECT_EQ(s.charged_bytes(), 0u);
  EXPECT_EQ(memory.used_bytes(), 0u);
  MemoryAccount small(size_t{1} << 20);
  Store t;
  t.set_memory_account(&small);
  EXPECT_THROW(t.set("big", std::string(2 << 20, 'x'), std::nullopt, kNow), StoreMemoryError);
  EXPECT_FALSE(t.exists("big", kNow));  // nothing of the refused write
}

TEST(HashFieldsOrder, InsertionOrderThroughTheIndexAndCompaction) {
  HashFields h;
  std::vector<std::string> expected;
  for (int i = 0; i < 200; ++i) {
    h.add("f" + std::to_string(i)).value = std::to_string(i);
    expected.push_back("f" + std::to_string(i));
  }
  for (int i = 0; i < 200; i += 3) {
    EXPECT_TRUE(h.erase("f" + std::to_string(i)));
    expected.erase(std::find(expected.begin(), expected.end(), "f" + std::to_string(i)));
  }
  EXPECT_FALSE(h.erase("f0"));
  h.add("again").value = "x";
  expected.push_back("again");
  std::vector<std::string> seen;
  for (const HashFields::Entry& e : h) seen.push_back(e.field);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(h.size(), expected.size());
  ASSERT_NE(h.find("f199"), nullptr);
  EXPECT_EQ(h.find("f199")->value, "199");
  EXPECT_EQ(h.find("f3"), nullptr);
  for (int i = 1; i < 200; ++i) h.erase("f" + std::to_string(i));
  seen.clear();
  for (const HashFields::Entry& e : h) seen.push_back(e.field);
  EXPECT_EQ(seen, std::vector<std::string>{"again"});
}

}  // namespace
}  // namespace locksim
