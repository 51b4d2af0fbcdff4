// Op (traces/op.h): every operation has one name and reads back from it;
// any other name is refused, by the trace reader's both decoders alike.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "traces/fast_event_decoder.h"
#include "traces/op.h"
#include "traces/trace_format.h"

namespace locksim {
namespace {

TEST(Op, EveryOpReadsBackFromItsName) {
  std::set<std::string_view> names;
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    EXPECT_EQ(op_from_name(op_name(op)), op) << i;
    EXPECT_TRUE(names.insert(op_name(op)).second) << op_name(op);
  }
  EXPECT_EQ(op_name(Op::None), "");
  EXPECT_EQ(op_name(Op::TryLock), "try_lock");
  EXPECT_EQ(op_name(Op::RedisRestart), "redis_restart");
}

TEST(Op, OtherNamesAreRefused) {
  for (const char* name : {"Lock", "lock ", "try_locipt", "script", "locks", "x"}) EXPECT_FALSE(op_from_name(name)) << name;
}

TEST(Op, ATraceLineWithAnUnknownOpIsRefused) {
  const std::string line = R"({"id":3,"t":10,"k":"invoke","c":0,"op":"try_locipt","opid":1})";
  Event e;
  std::string error;
  EXPECT_FALSE(decode_event(line, &e, &error));
  EXPECT_EQ(error, "unknown operation \"try_locipt\" (field \"op\")");
  FastEventDecoder fast;
  EXPECT_FALSE(fast.decode(line, &e));  // declined: decode_event words the error
  // A known one reads as its Op, and writes back as its name.
  const std::string known = R"({"id":3,"t":10,"k":"invoke","c":0,"op":"force_unlock","opid":1})";
  ASSERT_TRUE(decode_event(known, &e, &error)) << error;
  EXPECT_EQ(e.op, Op::ForceUnlock);
  EXPECT_EQ(encode_event(e), known);
  Event f;
  ASSERT_TRUE(fast.decode(known, &f));
  EXPECT_EQ(f, e);
}

}  // namespace
}  // namespace locksim
