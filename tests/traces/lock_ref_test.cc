// LockRef and OwnerId (traces/lock_ref.h, traces/owner_id.h): a lock's name
// and an owner's text are read once into their parts, the parts follow the
// one rule each header states (a group member is named "<group>@<i>", an
// owner "<uuid>:<task>"), and the text reads back byte for byte. Both trace
// decoders fill them alike.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "traces/fast_event_decoder.h"
#include "traces/lock_ref.h"
#include "traces/owner_id.h"
#include "traces/trace_format.h"

namespace locksim {
namespace {

TEST(LockRef, ALockThatIsNoMemberIsItsOwnGroup) {
  const LockRef lock("lsim:L0");
  EXPECT_FALSE(lock.is_member());
  EXPECT_EQ(lock.group(), "lsim:L0");
  EXPECT_TRUE(lock.is_or_member_of("lsim:L0"));
  EXPECT_FALSE(lock.is_or_member_of("lsim:L"));
  EXPECT_FALSE(lock.is_or_member_of("lsim:L00"));
  EXPECT_TRUE(LockRef().empty());
  EXPECT_FALSE(LockRef().is_member());
}

TEST(LockRef, AMemberKnowsItsGroup) {
  const LockRef member = LockRef::member_of("lsim:L1", 2);
  EXPECT_EQ(member.name(), "lsim:L1@2");
  EXPECT_TRUE(member.is_member());
  EXPECT_EQ(member.group(), "lsim:L1");
  EXPECT_TRUE(member.is_or_member_of("lsim:L1"));
  EXPECT_TRUE(member.is_or_member_of("lsim:L1@2"));
  EXPECT_FALSE(member.is_or_member_of("lsim:L"));   // a prefix of the group is no group
  EXPECT_FALSE(member.is_or_member_of("lsim:L1@"));
  // The group is what comes before the last '@'.
  EXPECT_EQ(LockRef("a@b@3").group(), "a@b");
  EXPECT_EQ(LockRef("@0").group(), "");
}

TEST(LockRef, AssignForgetsTheOldGroup) {
  LockRef lock("G@1");
  lock.assign("H");
  EXPECT_FALSE(lock.is_member());
  EXPECT_EQ(lock.group(), "H");
  lock.assign("K@0");
  EXPECT_EQ(lock.group(), "K");
  lock.clear();
  EXPECT_TRUE(lock.empty());
  EXPECT_FALSE(lock.is_member());
}

RC_GTEST_PROP(LockRef, EveryNameReadsBackAndSplitsAtItsLastAt, (const std::string& name)) {
  const LockRef lock(name);
  RC_ASSERT(lock.name() == name);
  const size_t at = name.rfind('@');
  RC_ASSERT(lock.is_member() == (at != std::string::npos));
  RC_ASSERT(lock.group() == (at == std::string::npos ? name : name.substr(0, at)));
  RC_ASSERT(lock.is_or_member_of(name));
  RC_ASSERT(lock == LockRef(name));
}

TEST(OwnerId, AnOwnerSplitsIntoItsUuidAndTask) {
  const OwnerId owner("4b1c-77:12");
  EXPECT_EQ(owner.uuid(), "4b1c-77");
  EXPECT_EQ(owner.task(), 12);
  EXPECT_EQ(OwnerId("4b1c-77", 12), owner);
  EXPECT_EQ(OwnerId("4b1c-77", 12).str(), "4b1c-77:12");
  // The uuid is all before the last ':'; the task only decimal digits.
  EXPECT_EQ(OwnerId("a:b:7").uuid(), "a:b");
  EXPECT_EQ(OwnerId("a:b:7").task(), 7);
  for (const char* text : {"abc", "abc:", "abc:x1", "abc:-1", "abc:1 ", "abc:1234567890"}) {
    EXPECT_FALSE(OwnerId(text).task()) << text;
  }
  EXPECT_EQ(OwnerId("abc").uuid(), "abc");
  EXPECT_EQ(OwnerId("abc:x1").uuid(), "abc");
  EXPECT_EQ(OwnerId("abc:123456789").task(), 123456789);
}

TEST(OwnerId, AssignForgetsTheOldTask) {
  OwnerId owner("u:3");
  owner.assign("v");
  EXPECT_FALSE(owner.task());
  EXPECT_EQ(owner.uuid(), "v");
  owner.clear();
  EXPECT_TRUE(owner.empty());
  EXPECT_FALSE(owner.task());
}

RC_GTEST_PROP(OwnerId, EveryTextReadsBack, (const std::string& text)) {
  const OwnerId owner(text);
  RC_ASSERT(owner.str() == text);
  const size_t colon = text.rfind(':');
  RC_ASSERT(owner.uuid() == (colon == std::string::npos ? text : text.substr(0, colon)));
  if (const auto task = owner.task()) RC_ASSERT(OwnerId(owner.uuid(), *task) == owner);
}

TEST(LockRefAndOwnerId, BothDecodersReadTheirParts) {
  const std::string line = R"({"id":4,"t":10,"k":"invoke","c":1,"o":"9f2e:3","l":"lsim:L0@1","op":"lock","opid":2})";
  Event slow;
  std::string error;
  ASSERT_TRUE(decode_event(line, &slow, &error)) << error;
  Event fast;
  FastEventDecoder decoder;
  ASSERT_TRUE(decoder.decode(line, &fast));
  for (const Event* e : {&slow, &fast}) {
    EXPECT_EQ(e->lock.group(), "lsim:L0");
    EXPECT_TRUE(e->lock.is_member());
    EXPECT_EQ(e->owner.uuid(), "9f2e");
    EXPECT_EQ(e->owner.task(), 3);
    EXPECT_EQ(encode_event(*e), line);
  }
  // A reused event read again from a line without a group or task keeps none.
  const std::string plain = R"({"id":5,"t":11,"k":"invoke","c":1,"o":"9f2e","l":"lsim:L0","op":"lock","opid":3})";
  ASSERT_TRUE(decoder.decode(plain, &fast));
  EXPECT_FALSE(fast.lock.is_member());
  EXPECT_FALSE(fast.owner.task());
}

}  // namespace
}  // namespace locksim
