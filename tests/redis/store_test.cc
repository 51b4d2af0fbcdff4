// Store: Redis 7.0 rules of docs/redis-facts.md, one behaviour per test.
#include "redis/store.h"

#include <gtest/gtest.h>

#include <cmath>

#include "redis/score_format.h"

namespace locksim {
namespace {

constexpr int64_t kT = 1'000'000;

TEST(Store, ExpiryBoundary_ExistsAtExpireAtGoneOneMsLater) {
  Store s;
  s.hincrby("k", "f", 1, kT);
  ASSERT_EQ(s.pexpire("k", 100, kT), 1);
  EXPECT_TRUE(s.exists("k", kT + 100));
  EXPECT_EQ(s.pttl("k", kT + 100), 0);
  EXPECT_FALSE(s.exists("k", kT + 101));
  EXPECT_EQ(s.pttl("k", kT + 101), -2);
}

TEST(Store, Pttl_AbsentNoExpiryRemaining) {
  Store s;
  EXPECT_EQ(s.pttl("k", kT), -2);
  s.set("k", "v", std::nullopt, kT);
  EXPECT_EQ(s.pttl("k", kT), -1);
  s.pexpire("k", 250, kT);
  EXPECT_EQ(s.pttl("k", kT + 50), 200);
}

TEST(Store, Pexpire_ZeroOrNegativeDeletesAndReturnsOne) {
  for (int64_t ms : {0, -1, -1000}) {
    Store s;
    s.hset("k", "f", "1", kT);
    EXPECT_EQ(s.pexpire("k", ms, kT), 1) << ms;
    EXPECT_FALSE(s.exists("k", kT)) << ms;
  }
}

TEST(Store, Pexpire_AbsentKeyReturnsZero) {
  Store s;
  EXPECT_EQ(s.pexpire("k", 100, kT), 0);
  EXPECT_EQ(s.pexpire("k", 0, kT), 0);
}

TEST(Store, SetPx_ZeroOrNegativeIsErrorAndLeavesKey) {
  Store s;
  s.set("k", "old", std::nullopt, kT);
  EXPECT_THROW(s.set("k", "new", 0, kT), StoreError);
  EXPECT_THROW(s.set("k", "new", -5, kT), StoreError);
  EXPECT_EQ(s.get("k", kT), "old");
}

TEST(Store, SetPx_SetsExpiryAndSetWithoutPxDropsIt) {
  Store s;
  s.set("k", "v", 500, kT);
  EXPECT_EQ(s.pttl("k", kT), 500);
  s.set("k", "w", std::nullopt, kT);
  EXPECT_EQ(s.pttl("k", kT), -1);
}

TEST(Store, Hincrby_KeepsExpiry) {
  Store s;
  s.hincrby("k", "f", 1, kT);
  s.pexpire("k", 1000, kT);
  s.hincrby("k", "f", 1, kT + 10);
  s.hset("k", "g", "x", kT + 10);
  EXPECT_EQ(s.pttl("k", kT + 10), 990);
}

TEST(Store, Hincrby_DownToZeroKeepsField) {
  Store s;
  s.hincrby("k", "f", 1, kT);
  EXPECT_EQ(s.hincrby("k", "f", -1, kT), 0);
  EXPECT_TRUE(s.hexists("k", "f", kT));
  EXPECT_EQ(s.hget("k", "f", kT), "0");
}

TEST(Store, Hincrby_MissingKeyCreatesHash) {
  Store s;
  EXPECT_EQ(s.hincrby("k", "f", -1, kT), -1);
  EXPECT_EQ(s.type("k", kT), Store::Type::Hash);
  EXPECT_EQ(s.pttl("k", kT), -1);
}

TEST(Store, Hincrby_OnExpiredKeyStartsFresh) {
  Store s;
  s.hincrby("k", "f", 5, kT);
  s.pexpire("k", 10, kT);
  EXPECT_EQ(s.hincrby("k", "f", 1, kT + 11), 1);
  EXPECT_EQ(s.pttl("k", kT + 11), -1);
}

TEST(Store, Hincrby_NonIntegerFieldIsError) {
  Store s;
  s.hset("k", "f", "abc", kT);
  EXPECT_THROW(s.hincrby("k", "f", 1, kT), StoreError);
}

TEST(Store, WrongType_IsError) {
  Store s;
  s.set("k", "v", std::nullopt, kT);
  EXPECT_THROW(s.hexists("k", "f", kT), StoreError);
  EXPECT_THROW(s.lindex("k", 0, kT), StoreError);
  EXPECT_THROW(s.zscore("k", "m", kT), StoreError);
  s.hset("h", "f", "1", kT);
  EXPECT_THROW(s.get("h", kT), StoreError);
}

TEST(Store, Lists_MissingIsNilAndPoppingLastDeletes) {
  Store s;
  EXPECT_EQ(s.lpop("l", kT), std::nullopt);
  EXPECT_EQ(s.lindex("l", 0, kT), std::nullopt);
  s.rpush("l", "a", kT);
  s.rpush("l", "b", kT);
  EXPECT_EQ(s.lindex("l", 0, kT), "a");
  EXPECT_EQ(s.lindex("l", -1, kT), "b");
  EXPECT_EQ(s.lindex("l", 2, kT), std::nullopt);
  EXPECT_EQ(s.lindex("l", -3, kT), std::nullopt);
  EXPECT_EQ(s.lpop("l", kT), "a");
  EXPECT_EQ(s.lpop("l", kT), "b");
  EXPECT_FALSE(s.exists("l", kT));
}

TEST(Store, Lrem_CountDirections) {
  Store s;
  for (const char* v : {"x", "a", "x", "b", "x"}) s.rpush("l", v, kT);
  EXPECT_EQ(s.lrem("l", 1, "x", kT), 1);
  EXPECT_EQ(s.lrange_all("l", kT), (std::vector<std::string>{"a", "x", "b", "x"}));
  EXPECT_EQ(s.lrem("l", -1, "x", kT), 1);
  EXPECT_EQ(s.lrange_all("l", kT), (std::vector<std::string>{"a", "x", "b"}));
  s.rpush("l", "x", kT);
  EXPECT_EQ(s.lrem("l", 0, "x", kT), 2);
  EXPECT_EQ(s.lrange_all("l", kT), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.lrem("l", 0, "a", kT), 1);
  EXPECT_EQ(s.lrem("l", 0, "b", kT), 1);
  EXPECT_FALSE(s.exists("l", kT));
}

TEST(Store, Zset_EqualScoresOrderByMemberBytewise) {
  Store s;
  s.zadd("z", 5, "b", kT);
  s.zadd("z", 5, "B", kT);
  s.zadd("z", 5, "a", kT);
  s.zadd("z", 1, "z", kT);
  s.zadd("z", 5, "ab", kT);
  EXPECT_EQ(s.zrange_all("z", kT), (std::vector<std::string>{"z", "B", "a", "ab", "b"}));
}

TEST(Store, Zset_ZaddUpdatesAndReportsNew) {
  Store s;
  EXPECT_EQ(s.zadd("z", 5, "m", kT), 1);
  EXPECT_EQ(s.zadd("z", 1, "m", kT), 0);
  EXPECT_EQ(s.zscore("z", "m", kT), 1.0);
  EXPECT_EQ(s.zincrby("z", -3, "m", kT), -2.0);
  EXPECT_EQ(s.zincrby("z", 2.5, "new", kT), 2.5);
  EXPECT_EQ(s.zrange_all("z", kT), (std::vector<std::string>{"m", "new"}));
}

TEST(Store, Zset_RemovingLastMemberDeletes) {
  Store s;
  s.zadd("z", 1, "m", kT);
  EXPECT_EQ(s.zrem("z", "x", kT), 0);
  EXPECT_EQ(s.zrem("z", "m", kT), 1);
  EXPECT_FALSE(s.exists("z", kT));
  EXPECT_EQ(s.zrem("z", "m", kT), 0);
}

TEST(Store, Del_CountsOnlyLiveKeys) {
  Store s;
  s.set("a", "1", 10, kT);
  EXPECT_EQ(s.del("a", kT + 11), 0);
  s.set("b", "1", std::nullopt, kT);
  EXPECT_EQ(s.del("b", kT), 1);
  EXPECT_EQ(s.del("b", kT), 0);
}

TEST(Store, Publish_LogIsDrainedInOrder) {
  Store s;
  s.publish("c1", "0");
  s.publish("c2", "x");
  const auto got = s.take_published();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (Published{"c1", "0"}));
  EXPECT_EQ(got[1], (Published{"c2", "x"}));
  EXPECT_TRUE(s.take_published().empty());
}

TEST(Store, Snapshot_RendersEveryTypeSortedAndSkipsExpired) {
  Store s;
  s.hset("h", "b", "2", kT);
  s.hset("h", "a", "1", kT);
  s.pexpire("h", 1000, kT);
  s.rpush("l", "x", kT);
  s.rpush("l", "y", kT);
  s.zadd("z", 2.5, "m2", kT);
  s.zadd("z", 1700000000000.0, "m1", kT);
  s.zadd("z", -3, "m0", kT);
  s.set("s", "text", std::nullopt, kT);
  s.set("gone", "v", 5, kT);
  const std::vector<KeyState> want = {
      {"h", "hash", "a=1,b=2", 900},
      {"l", "list", "x,y", -1},
      {"s", "string", "text", -1},
      {"z", "zset", "m0:-3,m2:2.5,m1:1700000000000", -1},
  };
  EXPECT_EQ(s.snapshot(kT + 100), want);
}

TEST(Store, Holders_SortedFieldsOrEmpty) {
  Store s;
  EXPECT_TRUE(s.holders("L", kT).empty());
  s.hincrby("L", "b:1", 1, kT);
  s.hincrby("L", "a:1", 1, kT);
  EXPECT_EQ(s.holders("L", kT), (std::vector<std::string>{"a:1", "b:1"}));
  s.pexpire("L", 10, kT);
  EXPECT_TRUE(s.holders("L", kT + 11).empty());
  s.set("S", "v", std::nullopt, kT);
  EXPECT_TRUE(s.holders("S", kT).empty());
}

TEST(Store, SweepExpired_DeletesOnlyDueKeys) {
  Store s;
  s.set("a", "1", 10, kT);
  s.set("b", "1", 20, kT);
  s.set("c", "1", std::nullopt, kT);
  s.sweep_expired(kT + 10);
  EXPECT_EQ(s.key_count(), 3u);  // a expires at kT+10: still alive at kT+10
  s.sweep_expired(kT + 11);
  EXPECT_EQ(s.key_count(), 2u);
  s.sweep_expired(kT + 1000);
  EXPECT_EQ(s.key_count(), 1u);
  EXPECT_TRUE(s.exists("c", kT + 1000));
}

TEST(Store, Clear_ForgetsEverything) {
  Store s;
  s.set("a", "1", 10, kT);
  s.hset("h", "f", "1", kT);
  s.publish("c", "0");
  s.clear();
  EXPECT_EQ(s.key_count(), 0u);
  EXPECT_TRUE(s.snapshot(kT).empty());
  EXPECT_TRUE(s.take_published().empty());
}

TEST(ScoreFormat, IntegersPlainOthersShortestRoundTrip) {
  EXPECT_EQ(format_score(0.0), "0");
  EXPECT_EQ(format_score(-0.0), "0");
  EXPECT_EQ(format_score(-5.0), "-5");
  EXPECT_EQ(format_score(1800000045000.0), "1800000045000");
  EXPECT_EQ(format_score(2.5), "2.5");
  EXPECT_EQ(format_score(0.1), "0.1");
  EXPECT_EQ(format_score(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(format_score(1e300), "1e+300");
  EXPECT_EQ(format_score(INFINITY), "inf");
  EXPECT_EQ(format_score(-INFINITY), "-inf");
}

TEST(ScoreFormat, ParseIsInverseAndRejectsJunk) {
  for (double v : {0.0, -5.0, 2.5, 0.1, 1.0 / 3.0, 1e300, 1800000045000.0, 9007199254740993.0, static_cast<double>(INFINITY)}) {
    double back = 0;
    ASSERT_TRUE(parse_score(format_score(v), &back)) << v;
    EXPECT_EQ(back, v);
  }
  double v = 0;
  EXPECT_TRUE(parse_score("1.7000000000000000e+12", &v));  // Redis's %.17g style
  EXPECT_EQ(v, 1.7e12);
  EXPECT_FALSE(parse_score("", &v));
  EXPECT_FALSE(parse_score("12x", &v));
  EXPECT_FALSE(parse_score("nan", &v));
}

// A hash whose long fields are deleted and whose short fields are then
// moved by the field table's compaction (a faster multi-lock's group hash:
// "<value>:<owner>:expire_time" fields beside one-character values) gives
// every byte back: the account is at zero once the key is gone.
TEST(StoreMemory, AHashGivesEveryByteBackAfterDeletesAndCompaction) {
  MemoryAccount account;
  Store s;
  s.set_memory_account(&account);
  const std::string owner = "c2fc5f09-c5d7-0ea1-7959-85eab70ff5aa:1";
  for (int round = 0; round < 3; ++round) {
    for (int v = 0; v < 12; ++v) {
      const std::string value = std::to_string(v);
      s.hset("G", value, owner, 1);
      s.hset("G", value + ":" + owner + ":expire_time", "1000000030000", 1);
      s.hincrby("G", value + ":" + owner + ":lock_count", 1, 1);
    }
    for (int v = 0; v < 12; ++v) {  // the long fields first: the short ones move down
      const std::string value = std::to_string(v);
      EXPECT_EQ(s.hdel("G", value + ":" + owner + ":expire_time", 1), 1);
      EXPECT_EQ(s.hdel("G", value + ":" + owner + ":lock_count", 1), 1);
    }
    for (int v = 0; v < 12; ++v) EXPECT_EQ(s.hdel("G", std::to_string(v), 1), 1);
    EXPECT_FALSE(s.exists("G", 1));
  }
  s.set_memory_account(nullptr);
  EXPECT_EQ(account.used_bytes(), 0u);
}

}  // namespace
}  // namespace locksim
