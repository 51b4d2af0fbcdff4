// EventReply (traces/event_reply.h): a reply's text reads into its kind and
// writes back to the same bytes, for any text; a typed reply's text reads
// back to the same reply.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "traces/event_reply.h"

namespace locksim {
namespace {

TEST(EventReply, ReadsEachKindFromItsText) {
  EXPECT_EQ(EventReply::parse(""), EventReply{});
  EXPECT_EQ(EventReply::parse("nil"), EventReply::nil());
  EXPECT_EQ(EventReply::parse("0"), EventReply::of_int(0));
  EXPECT_EQ(EventReply::parse("-29752"), EventReply::of_int(-29752));
  EXPECT_EQ(EventReply::parse("9223372036854775807"), EventReply::of_int(INT64_MAX));
  EXPECT_EQ(EventReply::parse("error: ERR x"), EventReply::error("ERR x"));
  EXPECT_EQ(EventReply::parse("error: "), EventReply::error(""));
  // Not an integer as a Reply writes one: kept as text.
  for (const char* t : {"+1", "01", "-0", "-", "1 ", "9223372036854775808", "\"7\"", "[nil, 1]", "errors"})
    EXPECT_EQ(EventReply::parse(t), EventReply::other(t)) << t;
  EXPECT_TRUE(EventReply::parse("1").is(1));
  EXPECT_FALSE(EventReply::parse("\"1\"").is(1));
}

RC_GTEST_PROP(EventReply, EveryTextWritesBackToItsBytes, (const std::string& text)) {
  const EventReply r = EventReply::parse(text);
  RC_ASSERT(r.to_text() == text);
  RC_ASSERT(EventReply::parse(r.to_text()) == r);
}

RC_GTEST_PROP(EventReply, EveryIntegerReadsBack, (int64_t v)) {
  RC_ASSERT(EventReply::parse(EventReply::of_int(v).to_text()) == EventReply::of_int(v));
  RC_ASSERT(EventReply::of_int(v).to_text() == std::to_string(v));
}

}  // namespace
}  // namespace locksim
