// The commands of redis/redis_commands.h called from a script on the lua
// backend's embedded Lua and on live redis-server 7.0: every reply (error
// texts included) and the keys afterwards identical. Hand-written sequences
// for each command's rules and errors, then seeded random sequences over the
// same commands, keys of every type and odd arguments.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/rng.h"
#include "tests/sim/lua_live_oracle.h"

namespace locksim {
namespace {

using testing_lua::expect_same;
using testing_lua::LuaLiveOracle;
using Cmds = std::vector<std::vector<std::string>>;

class LuaCommands : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { oracle_ = new LuaLiveOracle(); }
  static void TearDownTestSuite() {
    delete oracle_;
    oracle_ = nullptr;
  }
  static void same(const Cmds& cmds, const std::string& what) { expect_same(oracle_->commands(cmds), what); }
  static LuaLiveOracle* oracle_;
};

LuaLiveOracle* LuaCommands::oracle_ = nullptr;

TEST_F(LuaCommands, Keyspace) {
  same({{"set", "a", "1"}, {"rpush", "l", "x"}, {"hset", "h", "f", "v"}, {"zadd", "z", "1", "m"},
        {"exists", "a", "l", "nokey", "a"}, {"type", "a"}, {"type", "l"}, {"type", "h"}, {"type", "z"},
        {"type", "nokey"}, {"del", "a", "a", "nokey", "l"}, {"unlink", "h"}, {"exists", "a", "l", "h", "z"}},
       "keyspace");
}

TEST_F(LuaCommands, Expiry) {
  same({{"set", "k", "v"}, {"pttl", "k"}, {"ttl", "k"}, {"pttl", "nokey"}, {"ttl", "nokey"},
        {"pexpire", "k", "1500"}, {"pttl", "k"}, {"ttl", "k"}, {"expire", "k", "10"}, {"pttl", "k"},
        {"pexpiretime", "k"}, {"expiretime", "k"}, {"pexpire", "k", "100", "nx"}, {"pexpire", "k", "100", "xx"},
        {"pexpire", "k", "50", "gt"}, {"pexpire", "k", "50000", "gt"}, {"pexpire", "k", "50000", "lt"},
        {"pexpire", "k", "20", "lt"}, {"pttl", "k"}, {"persist", "k"}, {"persist", "k"}, {"pttl", "k"},
        {"pexpire", "k", "10", "GT"}, {"pexpire", "k", "10", "lt"}, {"pttl", "k"}, {"pexpire", "nokey", "10"},
        {"pexpire", "k", "abc"}, {"pexpire", "k", "10", "foo"}, {"pexpire", "nokey", "abc", "foo"},
        {"pexpire", "k", "10", "nx", "xx"}, {"pexpire", "k", "10", "gt", "lt"}, {"pexpire", "k", "10", "nx", "gt"},
        {"pexpire", "k", "9223372036854775807"}, {"expire", "k", "9223372036854775807"},
        {"expire", "k", "-9223372036854775807"}, {"pexpireat", "k", "1"}, {"exists", "k"},
        {"set", "k2", "v"}, {"pexpire", "k2", "0"}, {"exists", "k2"}, {"set", "k3", "v"}, {"expire", "k3", "-5"},
        {"exists", "k3"}, {"set", "k4", "v"}, {"pexpireat", "k4", "1700000005000"}, {"pttl", "k4"},
        {"expireat", "k4", "1700000010"}, {"pttl", "k4"}, {"expiretime", "k4"}, {"pexpire", "k4", "1", "xx", "gt"},
        {"pexpire", "k4"}},
       "expiry");
}

TEST_F(LuaCommands, Strings) {
  same({{"get", "s"}, {"set", "s", "v"}, {"get", "s"}, {"set", "s", "w", "nx"}, {"set", "s", "w", "xx"},
        {"set", "t", "w", "xx"}, {"set", "t", "w", "nx"}, {"set", "s", "x", "get"}, {"set", "u", "x", "get"},
        {"set", "s", "y", "px", "100"}, {"pttl", "s"}, {"set", "s", "y2", "keepttl"}, {"pttl", "s"},
        {"set", "s", "z", "ex", "5"}, {"pttl", "s"}, {"set", "s", "z"}, {"pttl", "s"},
        {"set", "s", "v", "px", "0"}, {"set", "s", "v", "px", "-5"}, {"set", "s", "v", "px", "abc"},
        {"set", "s", "v", "px", "10", "ex", "5"}, {"set", "s", "v", "foo"}, {"set", "s", "v", "nx", "xx"},
        {"set", "s", "v", "ex", "9223372036854775807"}, {"set", "s", "v", "px", "9223372036854775807"},
        {"set", "s", "v", "px"}, {"set", "s", "v", "keepttl", "px", "5"}, {"set", "s", "v", "PX", "5", "GET"},
        {"set", "s", "v", "exat", "1700000100"}, {"pttl", "s"}, {"set", "s", "v", "pxat", "1700000000500"},
        {"pttl", "s"}, {"set", "s", "v", "pxat", "1"}, {"exists", "s"}, {"setnx", "n", "1"}, {"setnx", "n", "2"},
        {"get", "n"}, {"setex", "e", "10", "v"}, {"pttl", "e"}, {"setex", "e", "0", "v"}, {"psetex", "e", "10", "v"},
        {"psetex", "e", "-1", "v"}, {"getset", "e", "w"}, {"pttl", "e"}, {"getdel", "e"}, {"getdel", "e"},
        {"mget", "n", "nokey", "e"}, {"strlen", "n"}, {"strlen", "nokey"}, {"append", "n", "23"},
        {"append", "new", "ab"}, {"get", "n"}},
       "strings");
}

TEST_F(LuaCommands, Counters) {
  same({{"incr", "c"}, {"incrby", "c", "10"}, {"decr", "c"}, {"decrby", "c", "3"}, {"incrby", "c", "x"},
        {"incrby", "c", "1.5"}, {"decrby", "c", "-9223372036854775808"}, {"set", "c", "9223372036854775806"},
        {"incr", "c"}, {"incr", "c"}, {"set", "c", "-9223372036854775808"}, {"decr", "c"}, {"set", "c", " 1"},
        {"incr", "c"}, {"set", "c", "01"}, {"incr", "c"}, {"set", "c", "-0"}, {"incr", "c"}, {"set", "c", "+1"},
        {"incr", "c"}, {"set", "c", "5"}, {"pexpire", "c", "1000"}, {"incr", "c"}, {"pttl", "c"},
        {"rpush", "l", "a"}, {"incr", "l"}, {"get", "l"}},
       "counters");
}

TEST_F(LuaCommands, Hashes) {
  same({{"hset", "h", "b", "1", "a", "2"}, {"hset", "h", "c", "3", "a", "4"}, {"hkeys", "h"}, {"hvals", "h"},
        {"hgetall", "h"}, {"hdel", "h", "b"}, {"hset", "h", "b", "5"}, {"hkeys", "h"}, {"hlen", "h"},
        {"hget", "h", "a"}, {"hget", "h", "zz"}, {"hget", "nokey", "a"}, {"hmget", "h", "a", "zz", "c"},
        {"hmget", "nokey", "a"}, {"hexists", "h", "a"}, {"hexists", "h", "zz"}, {"hstrlen", "h", "a"},
        {"hsetnx", "h", "a", "9"}, {"hsetnx", "h", "d", "9"}, {"hmset", "h", "e", "1"}, {"hset", "h", "odd"},
        {"hset", "h", "a", "1", "b"}, {"hmset", "h", "a"}, {"hincrby", "h", "a", "10"}, {"hincrby", "h", "new", "-1"},
        {"hincrby", "h", "new", "1"}, {"hexists", "h", "new"}, {"hincrby", "h", "a", "x"}, {"hset", "h", "s", "abc"},
        {"hincrby", "h", "s", "1"}, {"hset", "h", "big", "9223372036854775807"}, {"hincrby", "h", "big", "1"},
        {"hincrby", "h2", "f", "1"}, {"pexpire", "h2", "1000"}, {"hincrby", "h2", "f", "1"}, {"hset", "h2", "g", "1"},
        {"pttl", "h2"}, {"hdel", "h2", "f", "g", "zz"}, {"exists", "h2"}, {"hdel", "nokey", "f"},
        {"set", "s", "v"}, {"hset", "s", "f", "v"}, {"hget", "s", "f"}, {"hgetall", "s"}, {"hincrby", "s", "f", "1"},
        {"hdel", "s", "f"}, {"hlen", "s"}, {"hkeys", "nokey"}, {"hgetall", "nokey"}},
       "hashes");
}

TEST_F(LuaCommands, Lists) {
  same({{"rpush", "l", "a", "b", "c"}, {"lpush", "l", "z", "y"}, {"lrange", "l", "0", "-1"},
        {"lrange", "l", "-2", "100"}, {"lrange", "l", "3", "1"}, {"lrange", "l", "x", "1"}, {"lrange", "nokey", "0", "-1"},
        {"lindex", "l", "0"}, {"lindex", "l", "-1"}, {"lindex", "l", "99"}, {"lindex", "l", "x"},
        {"lindex", "nokey", "x"}, {"llen", "l"}, {"llen", "nokey"}, {"lpop", "l"}, {"rpop", "l"},
        {"lpop", "l", "2"}, {"lpop", "l", "0"}, {"lpop", "l", "-1"}, {"lpop", "l", "x"}, {"lpop", "nokey", "2"},
        {"lpop", "nokey"}, {"lpop", "l", "1", "2"}, {"rpush", "m", "x", "a", "x", "b", "x"}, {"lrem", "m", "1", "x"},
        {"lrem", "m", "-1", "x"}, {"lrange", "m", "0", "-1"}, {"lrem", "m", "0", "x"}, {"lrem", "m", "x", "a"},
        {"lrem", "nokey", "0", "a"}, {"lset", "m", "0", "A"}, {"lset", "m", "9", "A"}, {"lset", "nokey", "0", "A"},
        {"lset", "m", "x", "A"}, {"lrange", "m", "0", "-1"}, {"rpush", "t", "1", "2", "3", "4", "5"},
        {"ltrim", "t", "1", "-2"}, {"lrange", "t", "0", "-1"}, {"ltrim", "t", "5", "10"}, {"exists", "t"},
        {"ltrim", "nokey", "0", "1"}, {"lpushx", "nokey", "a"}, {"rpushx", "m", "c"}, {"lpushx", "m", "d"},
        {"lrange", "m", "0", "-1"}, {"rpop", "m", "10"}, {"exists", "m"}, {"set", "s", "v"}, {"rpush", "s", "a"},
        {"lindex", "s", "0"}, {"lrange", "s", "0", "1"}, {"lpop", "s"}, {"llen", "s"}, {"lrem", "s", "0", "a"}},
       "lists");
}

TEST_F(LuaCommands, SortedSets) {
  same({{"zadd", "z", "1", "a", "2", "b", "2", "c"}, {"zadd", "z", "0.1", "d"}, {"zscore", "z", "d"},
        {"zadd", "z", "1e20", "e", "inf", "f", "-inf", "g"}, {"zrange", "z", "0", "-1", "withscores"},
        {"zadd", "z", "nan", "h"}, {"zadd", "z", "abc", "h"}, {"zadd", "z", " 1", "h"}, {"zadd", "z", "0x10", "h"},
        {"zadd", "z", "1e400", "h"}, {"zadd", "z", "", "h"}, {"zadd", "z", "1"}, {"zadd", "z", "1", "a", "2"},
        {"zadd", "z", "nx", "xx", "1", "a"}, {"zadd", "z", "gt", "nx", "1", "a"}, {"zadd", "z", "incr", "1", "a", "1", "b"},
        {"zadd", "z", "nx", "5", "a", "5", "new"}, {"zadd", "z", "xx", "ch", "7", "a", "7", "nope"},
        {"zadd", "z", "gt", "ch", "1", "a", "9", "b"}, {"zadd", "z", "lt", "ch", "100", "a", "0", "c"},
        {"zadd", "z", "incr", "2", "a"}, {"zadd", "z", "incr", "nx", "2", "a"}, {"zadd", "z", "xx", "incr", "2", "nope"},
        {"zadd", "z", "gt", "incr", "-1", "a"}, {"zincrby", "z", "2.5", "b"}, {"zincrby", "z", "-5000", "newm"},
        {"zincrby", "z", "abc", "b"}, {"zincrby", "z", "inf", "f"}, {"zincrby", "z", "-inf", "f"},
        {"zadd", "z", "-0", "zero"}, {"zscore", "z", "zero"}, {"zincrby", "z", "-0", "negz"},
        {"zscore", "nokey", "a"}, {"zmscore", "z", "a", "nope", "b"}, {"zmscore", "nokey", "a"}, {"zcard", "z"},
        {"zcard", "nokey"}, {"zrank", "z", "b"}, {"zrevrank", "z", "b"}, {"zrank", "z", "nope"},
        {"zrange", "z", "0", "-1"}, {"zrange", "z", "1", "2", "withscores"}, {"zrange", "z", "-2", "-1"},
        {"zrange", "z", "5", "1"}, {"zrange", "z", "0", "-1", "rev"}, {"zrange", "z", "0", "1", "rev", "withscores"},
        {"zrange", "z", "(1", "5", "byscore"}, {"zrange", "z", "5", "(1", "byscore", "rev"},
        {"zrange", "z", "-inf", "+inf", "byscore", "limit", "1", "2"}, {"zrange", "z", "0", "1", "limit", "0", "1"},
        {"zrange", "z", "0", "1", "foo"}, {"zrange", "z", "x", "1"}, {"zrange", "z", "a", "b", "byscore"},
        {"zrevrange", "z", "0", "2", "withscores"}, {"zrevrange", "z", "0", "2", "rev"},
        {"zrangebyscore", "z", "1", "9", "withscores"}, {"zrangebyscore", "z", "-inf", "+inf", "limit", "2", "3"},
        {"zrangebyscore", "z", "-inf", "+inf", "limit", "-1", "3"}, {"zrangebyscore", "z", "-inf", "+inf", "limit", "0", "-1"},
        {"zrangebyscore", "z", "(2", "(7"}, {"zrangebyscore", "z", "5", "1"}, {"zrangebyscore", "z", "", "3"},
        {"zrevrangebyscore", "z", "9", "1"}, {"zrevrangebyscore", "z", "+inf", "-inf", "withscores", "limit", "1", "1"},
        {"zcount", "z", "1", "9"}, {"zcount", "z", "(1", "(9"}, {"zcount", "z", "x", "9"}, {"zcount", "nokey", "1", "2"},
        {"zrem", "z", "a", "nope", "a"}, {"zremrangebyscore", "z", "-inf", "(2"}, {"zremrangebyrank", "z", "0", "0"},
        {"zremrangebyrank", "z", "x", "0"}, {"zremrangebyscore", "z", "x", "1"}, {"zrange", "z", "0", "-1", "withscores"},
        {"zrem", "nokey", "a"}, {"zadd", "y", "1", "a"}, {"zrem", "y", "a"}, {"exists", "y"}, {"zadd", "y", "xx", "1", "a"},
        {"exists", "y"}, {"set", "s", "v"}, {"zadd", "s", "1", "a"}, {"zscore", "s", "a"}, {"zrange", "s", "0", "1"},
        {"zrange", "s", "x", "1"}, {"zrem", "s", "a"}, {"zcard", "s"}, {"zincrby", "s", "1", "a"}},
       "sorted sets");
}

TEST_F(LuaCommands, PubSubAndConnection) {
  same({{"publish", "ch", "msg"}, {"spublish", "ch", "msg"}, {"ping"}, {"ping", "hello"}, {"ping", "a", "b"},
        {"echo", "x"}, {"time"}, {"time", "extra"}},
       "pub/sub and connection");
}

// Random sequences over the commands above: keys of each type (and absent),
// members and fields from small sets, numbers that are sometimes not.
TEST_F(LuaCommands, RandomSequencesAgree) {
  Rng rng(20240531);
  const std::vector<std::string> keys = {"a", "b", "c", "d"};
  const std::vector<std::string> items = {"x", "y", "z", "1", "-1", "0", "abc"};
  auto pick = [&](const std::vector<std::string>& v) { return v[rng.uniform(0, static_cast<int64_t>(v.size()) - 1)]; };
  auto number = [&]() {
    switch (rng.uniform(0, 5)) {
      case 0: return std::string("x");
      case 1: return std::to_string(rng.uniform(-3, 3));
      case 2: return std::to_string(rng.uniform(-100000, 100000));
      case 3: return std::string("1.5");
      default: return std::to_string(rng.uniform(0, 5));
    }
  };
  const std::vector<std::vector<std::string>> templates = {
      {"set", "K", "I"}, {"set", "K", "I", "px", "N"}, {"set", "K", "I", "nx"}, {"set", "K", "I", "xx", "get"},
      {"get", "K"}, {"incrby", "K", "N"}, {"del", "K", "K"}, {"exists", "K", "K"}, {"type", "K"}, {"pttl", "K"},
      {"pexpire", "K", "N"}, {"pexpire", "K", "N", "gt"}, {"persist", "K"}, {"hset", "K", "I", "I"},
      {"hincrby", "K", "I", "N"}, {"hget", "K", "I"}, {"hdel", "K", "I"}, {"hgetall", "K"}, {"hkeys", "K"},
      {"hexists", "K", "I"}, {"rpush", "K", "I"}, {"lpush", "K", "I", "I"}, {"lpop", "K"}, {"rpop", "K", "N"},
      {"lindex", "K", "N"}, {"lrange", "K", "N", "N"}, {"lrem", "K", "N", "I"}, {"llen", "K"},
      {"ltrim", "K", "N", "N"}, {"zadd", "K", "N", "I"}, {"zadd", "K", "gt", "ch", "N", "I"}, {"zincrby", "K", "N", "I"},
      {"zscore", "K", "I"}, {"zrem", "K", "I"}, {"zrange", "K", "N", "N", "withscores"}, {"zrank", "K", "I"},
      {"zrangebyscore", "K", "N", "N"}, {"zcard", "K"}, {"zcount", "K", "N", "N"}, {"zremrangebyrank", "K", "N", "N"},
      {"publish", "K", "I"}};
  for (int seq = 0; seq < 150; ++seq) {
    Cmds cmds;
    const int length = static_cast<int>(rng.uniform(5, 25));
    for (int i = 0; i < length; ++i) {
      std::vector<std::string> c = templates[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(templates.size()) - 1))];
      for (size_t j = 1; j < c.size(); ++j) {
        if (c[j] == "K") c[j] = pick(keys);
        else if (c[j] == "I") c[j] = pick(items);
        else if (c[j] == "N") c[j] = number();
      }
      cmds.push_back(std::move(c));
    }
    std::string what = "sequence " + std::to_string(seq) + ":";
    for (const auto& c : cmds) {
      what += " [";
      for (const auto& a : c) what += a + " ";
      what += "]";
    }
    expect_same(oracle_->commands(cmds), what);
    if (HasFailure()) break;
  }
}

// The range commands of a sorted set with ties, infinities and both kinds of
// bound, at random: by rank (negative, reversed, out of range), by score
// (exclusive, infinite, empty, reversed, with LIMIT offsets and counts of
// every sign), counts, ranks and removals by either.
TEST_F(LuaCommands, SortedSetRangesAtRandom) {
  Rng rng(1717);
  const std::vector<std::string> scores = {"-inf", "-3", "-1", "0", "0", "0", "1", "1", "2.5", "7", "7", "7", "1e9", "inf"};
  auto score_bound = [&]() {
    const std::string s = scores[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(scores.size()) - 1))];
    const std::string text = rng.uniform(0, 3) == 0 && s == "inf" ? "+inf" : s;
    return rng.uniform(0, 2) == 0 ? "(" + text : text;
  };
  auto index = [&]() { return std::to_string(rng.uniform(-20, 20)); };
  for (int seq = 0; seq < 60; ++seq) {
    Cmds cmds;
    const int members = static_cast<int>(rng.uniform(0, 30));
    for (int m = 0; m < members; ++m) {
      const std::string s = scores[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(scores.size()) - 1))];
      cmds.push_back({"zadd", "z", s, "m" + std::to_string(rng.uniform(0, 40))});
    }
    for (int q = 0; q < 30; ++q) {
      std::vector<std::string> c;
      switch (rng.uniform(0, 10)) {
        case 0: c = {"zrange", "z", index(), index()}; break;
        case 1: c = {"zrange", "z", index(), index(), "rev", "withscores"}; break;
        case 2: c = {"zrevrange", "z", index(), index()}; break;
        case 3: c = {"zrangebyscore", "z", score_bound(), score_bound(), "withscores"}; break;
        case 4: c = {"zrevrangebyscore", "z", score_bound(), score_bound()}; break;
        case 5: c = {"zrange", "z", score_bound(), score_bound(), "byscore", "limit", index(), index()}; break;
        case 6: c = {"zrange", "z", score_bound(), score_bound(), "byscore", "rev", "limit", index(), index()}; break;
        case 7: c = {"zcount", "z", score_bound(), score_bound()}; break;
        case 8:
          c = {rng.uniform(0, 1) == 0 ? "zrank" : "zrevrank", "z", "m" + std::to_string(rng.uniform(0, 40))};
          break;
        case 9: c = {"zremrangebyscore", "z", score_bound(), score_bound()}; break;
        default: c = {"zremrangebyrank", "z", index(), index()}; break;
      }
      cmds.push_back(std::move(c));
    }
    cmds.push_back({"zrange", "z", "0", "-1", "withscores"});
    std::string what = "sequence " + std::to_string(seq) + ":";
    for (const auto& c : cmds) {
      what += " [";
      for (const auto& a : c) what += a + " ";
      what += "]";
    }
    same(cmds, what);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace locksim
