// The detail's words (traces/event_detail.h, traces/lost_message.h): what a
// trace's "d" says reads into the event's typed facts, and every text,
// whatever it says, writes back to the same bytes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "traces/event_detail.h"
#include "traces/fault_kind.h"

namespace locksim {
namespace {

Event read(EventKind kind, Op op, const std::string& text) {
  Event e;
  e.kind = kind;
  e.op = op;
  read_detail_text(text, &e);
  return e;
}

TEST(EventDetail, TheFactsOfEachKind) {
  EXPECT_TRUE(read(EventKind::Invoke, Op::TryLock, "once").once);
  EXPECT_EQ(read(EventKind::Info, Op::Lock, "timeout").reason, EndReason::Timeout);
  EXPECT_EQ(read(EventKind::Info, Op::Unlock, "crashed").reason, EndReason::Crashed);
  const Event group = read(EventKind::Fail, Op::Unlock, "illegal monitor state (the group was lost)");
  EXPECT_EQ(group.reason, EndReason::IllegalMonitorState);
  EXPECT_EQ(group.detail, "(the group was lost)");
  EXPECT_TRUE(read(EventKind::Script, Op::Lock, kDeclaredReplyDetail).error_declared);
  EXPECT_EQ(read(EventKind::Fault, Op::RedisRestart, "persistence always").persistence, Persistence::Always);
  // A note is a note: no fact, the whole text.
  const Event gave_up = read(EventKind::Fail, Op::TryLock, "wait budget exhausted");
  EXPECT_EQ(gave_up.reason, EndReason::None);
  EXPECT_EQ(gave_up.detail, "wait budget exhausted");
  // Words that are a fact of another kind are a note here.
  EXPECT_FALSE(read(EventKind::Info, Op::Lock, "once").once);
  EXPECT_EQ(read(EventKind::Info, Op::Lock, "once").detail, "once");
  EXPECT_EQ(read(EventKind::Fault, Op::Failover, "persistence always").persistence, Persistence::None);
  EXPECT_EQ(read(EventKind::Invoke, Op::Lock, "timeout").reason, EndReason::None);
}

TEST(EventDetail, LostMessages) {
  const Event request = read(EventKind::Fault, Op::Lost, "request fair_acquire_failed lsim:L0@1");
  EXPECT_EQ(request.lost.what, LostMessage::What::Request);
  EXPECT_EQ(request.lost.script, "fair_acquire_failed");
  EXPECT_EQ(request.lost.lock.name(), "lsim:L0@1");
  EXPECT_EQ(request.lost.lock.group(), "lsim:L0");
  EXPECT_TRUE(request.detail.empty());
  EXPECT_EQ(fault_kind_of(request), FaultKind::LostRequest);
  const Event wakeup = read(EventKind::Fault, Op::Lost, "message redisson_lock__channel:{lsim:L1}:a:1");
  EXPECT_EQ(wakeup.lost.what, LostMessage::What::Message);
  EXPECT_EQ(wakeup.lost.channel, "redisson_lock__channel:{lsim:L1}:a:1");
  EXPECT_EQ(wakeup.lost.lock.name(), "lsim:L1");  // the channel's hash tag
  EXPECT_EQ(fault_kind_of(wakeup), FaultKind::LostMessage);
  EXPECT_EQ(fault_kind_of(read(EventKind::Fault, Op::Lost, "subscribe_ack c")), FaultKind::LostSubscribe);
  EXPECT_EQ(read(EventKind::Fault, Op::Delayed, "reply rlock_acquire L").lost.what, LostMessage::What::Reply);
  // Not a message this build writes: a note, the message unknown.
  const Event odd = read(EventKind::Fault, Op::Lost, "request rlock_acquire");
  EXPECT_TRUE(odd.lost.empty());
  EXPECT_EQ(odd.detail, "request rlock_acquire");
  EXPECT_EQ(detail_text(odd), "request rlock_acquire");
}

TEST(EventDetail, TypedFactsWriteTheirWords) {
  Event e;
  e.kind = EventKind::Fault;
  e.op = Op::Lost;
  e.lost = LostMessage::reply("rlock_renew", "lsim:L0");
  EXPECT_EQ(detail_text(e), "reply rlock_renew lsim:L0");
  e.lost = LostMessage::on_channel(LostMessage::What::SubscribeAck, "redisson_lock__channel:{L}");
  EXPECT_EQ(detail_text(e), "subscribe_ack redisson_lock__channel:{L}");
  Event f;
  f.kind = EventKind::Fail;
  f.op = Op::Unlock;
  f.reason = EndReason::IllegalMonitorState;
  f.detail = "(the group was lost)";
  EXPECT_EQ(detail_text(f), "illegal monitor state (the group was lost)");
  Event none;
  EXPECT_FALSE(has_detail_text(none));
}

// Texts near the words of every fact, and any text.
rc::Gen<std::string> detail_like() {
  static const std::vector<std::string> kWords = {
      "once", "timeout", "crashed", "illegal monitor state", "illegal monitor state (x)", kDeclaredReplyDetail,
      "persistence always", "request rlock_acquire lsim:L0", "reply fair_acquire L@2", "subscribe c{L}",
      "subscribe_ack c", "message redisson_lock__channel:{L}", "request a  b", "request x", "message ", "",
      "timeout ", "once once", "wait budget exhausted"};
  return rc::gen::oneOf(rc::gen::elementOf(kWords),
                        rc::gen::map(rc::gen::pair(rc::gen::elementOf(kWords), rc::gen::string<std::string>()),
                                     [](const std::pair<std::string, std::string>& p) { return p.first + p.second; }),
                        rc::gen::string<std::string>());
}

RC_GTEST_PROP(EventDetail, EveryTextWritesBackToItsBytes, ()) {
  const auto kind = *rc::gen::element(EventKind::Invoke, EventKind::Ok, EventKind::Fail, EventKind::Info,
                                      EventKind::Script, EventKind::Deliver, EventKind::Fault, EventKind::Verdict);
  const auto op = static_cast<Op>(*rc::gen::inRange(0, kOpCount));
  const std::string text = *detail_like();
  const Event e = read(kind, op, text);
  RC_ASSERT(detail_text(e) == text);
  RC_ASSERT(has_detail_text(e) == !text.empty());
  // And read again, the same facts.
  RC_ASSERT(read(kind, op, detail_text(e)) == e);
}

}  // namespace
}  // namespace locksim
