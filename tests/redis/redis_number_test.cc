// Redis's number rules (redis/redis_number.h): each case is what Redis 7.0
// answers for the same text (string2ll, getDoubleFromObject, d2string; the
// live comparisons in tests/sim run them through commands too).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "redis/redis_number.h"

namespace locksim {
namespace {

TEST(RedisNumber, IntegersAsString2ll) {
  int64_t v = 0;
  EXPECT_TRUE(redis_string_to_int64("0", &v) && v == 0);
  EXPECT_TRUE(redis_string_to_int64("-5", &v) && v == -5);
  EXPECT_TRUE(redis_string_to_int64("9223372036854775807", &v) && v == std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(redis_string_to_int64("-9223372036854775808", &v) && v == std::numeric_limits<int64_t>::min());
  for (const char* bad : {"", "-", "-0", "007", "+1", " 1", "1 ", "1.0", "9223372036854775808",
                          "-9223372036854775809", "99999999999999999999", "0x10"}) {
    EXPECT_FALSE(redis_string_to_int64(bad, &v)) << bad;
  }
}

TEST(RedisNumber, DoublesAsGetDoubleFromObject) {
  double d = 0;
  EXPECT_TRUE(redis_string_to_double("1.5", &d) && d == 1.5);
  EXPECT_TRUE(redis_string_to_double("inf", &d) && std::isinf(d));
  EXPECT_TRUE(redis_string_to_double("0x10", &d) && d == 16);
  EXPECT_TRUE(redis_string_to_double("1e-5", &d) && d == 1e-5);
  for (const char* bad : {"", " 1", "1 ", "abc", "nan", "1e400", "-1e400", "1e-400"}) {
    EXPECT_FALSE(redis_string_to_double(bad, &d)) << bad;
  }
}

TEST(RedisNumber, ScoreTextAsD2string) {
  EXPECT_EQ(redis_double_text(1800000005000.0), "1800000005000");
  EXPECT_EQ(redis_double_text(0.1), "0.10000000000000001");
  EXPECT_EQ(redis_double_text(1e20), "1e+20");
  EXPECT_EQ(redis_double_text(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(redis_double_text(2.5e-7), "2.4999999999999999e-07");
  EXPECT_EQ(redis_double_text(-0.0), "-0");
  EXPECT_EQ(redis_double_text(-INFINITY), "-inf");
}

TEST(RedisNumber, LuaNumbers) {
  char buf[64];
  auto arg = [&buf](double v) { return std::string(buf, lua_number_arg_text(v, buf, sizeof buf)); };
  EXPECT_EQ(arg(3.0), "3");
  EXPECT_EQ(arg(-5000), "-5000");
  EXPECT_EQ(arg(-0.0), "-0");
  EXPECT_EQ(arg(0.1), "0.10000000000000001");
  EXPECT_EQ(arg(1e20), "1e+20");
  EXPECT_EQ(arg(1e15), "1000000000000000");
  EXPECT_EQ(lua_number_to_reply_int(2.9), 2);
  EXPECT_EQ(lua_number_to_reply_int(-2.9), -2);
  EXPECT_EQ(lua_number_to_reply_int(1e20), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(lua_number_to_reply_int(NAN), std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace locksim
