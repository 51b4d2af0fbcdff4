// The multi-lock and RedLock client pinned to lock-semantics.md section 4:
// per-lock wait slices, the failure budget, release of every touched member
// (timed-out attempts too) before a retry, the provisional 2 * wait lease
// and its reset, majority and validity, unlock of every member, and the
// group lost when its members are. Hand-made worlds over N model servers.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "impl/multi_lock.h"
#include "sim/model_backend.h"
#include "sim/world.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

constexpr int64_t kMs = 1000;

struct GroupHarness {
  GroupHarness(int servers, GroupKind kind, int64_t latency_us = 1000, bool validity = false)
      : backend(servers) {
    WorldConfig wc;
    wc.seed = 11;
    wc.clients = 2;
    wc.link = LinkProfile{latency_us, latency_us, 0.0, 0, 0.0};
    wc.groups = true;
    wc.group_options.validity = validity;
    world = std::make_unique<World>(wc, backend, sink);
    group.name = "lsim:G";
    group.kind = kind;
    for (int s = 0; s < servers; ++s) group.members.push_back(LockSpec{"lsim:G@" + std::to_string(s), LockKind::Reentrant, s, {}});
  }

  // Another owner takes member m directly on its server (30 s lease).
  void hold_member_elsewhere(int m) {
    ScriptCall call;
    call.kind = ScriptKind::RlockAcquire;
    call.params.lock = group.members[m].name;
    call.params.owner = "someone-else:1";
    call.params.lease_ms = 30'000;
    ASSERT_TRUE(backend.execute(m, call, world->server_now_us(m)).reply.is_nil());
  }
  bool member_held_by(int m, const std::string& owner) {
    for (const auto& k : backend.snapshot(m, world->server_now_us(m))) {
      if (k.key == group.members[m].name && k.value.find(owner + "=") != std::string::npos) return true;
    }
    return false;
  }
  std::vector<Event> scripts(const std::string& script, const std::string& lock = "") const {
    std::vector<Event> out;
    for (const auto& e : sink.events)
      if (e.kind == EventKind::Script && e.script == script && (lock.empty() || e.lock == lock)) out.push_back(e);
    return out;
  }
  std::vector<Event> ops(EventKind kind, std::optional<Op> op = std::nullopt) const {
    std::vector<Event> out;
    for (const auto& e : sink.events)
      if (e.kind == kind && (!op || e.op == *op)) out.push_back(e);
    return out;
  }
  void run() {
    for (int i = 0; i < 1'000'000 && world->step(); ++i) {
    }
  }
  std::string owner(int c, int task = 1) { return world->group_client(c).owner(task); }

  ModelBackend backend;
  VectorSink sink;
  std::unique_ptr<World> world;
  GroupRef group;
};

TEST(MultiLockArithmetic, FailureBudgetMajorityAndSlices) {
  EXPECT_EQ(MultiLockClient::failure_budget(GroupKind::Multi, 5), 0);
  EXPECT_EQ(MultiLockClient::failure_budget(GroupKind::RedLock, 5), 2);
  EXPECT_EQ(MultiLockClient::failure_budget(GroupKind::RedLock, 4), 1);
  EXPECT_EQ(MultiLockClient::failure_budget(GroupKind::RedLock, 3), 1);
  EXPECT_EQ(MultiLockClient::failure_budget(GroupKind::RedLock, 1), 0);
  EXPECT_EQ(MultiLockClient::needed(GroupKind::RedLock, 5), 3);
  EXPECT_EQ(MultiLockClient::needed(GroupKind::RedLock, 4), 3);
  EXPECT_EQ(MultiLockClient::needed(GroupKind::Multi, 4), 4);
  EXPECT_EQ(MultiLockClient::per_lock_wait_ms(GroupKind::Multi, 5, 1000), 1000);
  EXPECT_EQ(MultiLockClient::per_lock_wait_ms(GroupKind::RedLock, 5, 1000), 200);
  EXPECT_EQ(MultiLockClient::per_lock_wait_ms(GroupKind::RedLock, 5, 3), 1);  // at least 1 ms
  EXPECT_EQ(MultiLockClient::drift_ms(10'000), 102);
  EXPECT_EQ(MultiLockClient::validity_ms(10'000, 100), 10'000 - 100 - 102);
  EXPECT_LE(MultiLockClient::validity_ms(2'000, 1'980), 0);
}

TEST(MultiLock, RedLockStopsAtAMajorityAndUnlocksEveryMember) {
  GroupHarness h(5, GroupKind::RedLock);
  std::optional<AcquireResult> got;
  h.world->group_client(0).try_lock(1, h.group, 1'000, -1, [&](AcquireResult r) { got = r; });
  h.world->run_until(500 * kMs);
  ASSERT_EQ(got, AcquireResult::Acquired);
  // Members 0, 1, 2 taken; 3 and 4 never tried.
  ASSERT_EQ(h.scripts("rlock_acquire").size(), 3u);
  for (int m = 0; m < 3; ++m) EXPECT_TRUE(h.member_held_by(m, h.owner(0)));
  const auto ok = h.ops(EventKind::Ok, Op::TryLock);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].lock, "lsim:G");  // recorded on the group
  for (const Event& s : h.scripts("rlock_acquire")) EXPECT_EQ(s.op_id, ok[0].op_id);

  bool unlocked = false;
  h.world->group_client(0).unlock(1, h.group, [&](bool released) { unlocked = released; });
  h.world->run_until(1'000 * kMs);
  EXPECT_TRUE(unlocked);
  EXPECT_EQ(h.scripts("rlock_release").size(), 5u);  // every member, held or not
  for (int m = 0; m < 5; ++m) EXPECT_FALSE(h.member_held_by(m, h.owner(0)));
  EXPECT_EQ(h.ops(EventKind::Ok, Op::Unlock).size(), 1u);
  EXPECT_TRUE(h.ops(EventKind::Fail).empty());  // member failures (nil) are not recorded
}

TEST(MultiLock, RedLockSkipsFailuresWithinTheBudget) {
  GroupHarness h(5, GroupKind::RedLock);
  h.hold_member_elsewhere(0);
  h.hold_member_elsewhere(2);
  std::optional<AcquireResult> got;
  h.world->group_client(0).try_lock_once(1, h.group, 5'000, [&](AcquireResult r) { got = r; });
  h.world->run_until(500 * kMs);
  ASSERT_EQ(got, AcquireResult::Acquired);  // 1, 3, 4: two failures = the budget
  EXPECT_TRUE(h.member_held_by(1, h.owner(0)));
  EXPECT_TRUE(h.member_held_by(3, h.owner(0)));
  EXPECT_TRUE(h.member_held_by(4, h.owner(0)));
}

TEST(MultiLock, RedLockWaitIsSlicedPerMember) {
  GroupHarness h(5, GroupKind::RedLock);
  h.hold_member_elsewhere(0);
  std::optional<AcquireResult> got;
  h.world->group_client(0).try_lock(1, h.group, 1'000, -1, [&](AcquireResult r) { got = r; });
  h.world->run_until(3'000 * kMs);
  ASSERT_EQ(got, AcquireResult::Acquired);
  // Member 0 is tried with max(1000 / 5, 1) = 200 ms of wait, so member 1's
  // first attempt comes about 200 ms after member 0's first one.
  const auto m0 = h.scripts("rlock_acquire", "lsim:G@0");
  const auto m1 = h.scripts("rlock_acquire", "lsim:G@1");
  ASSERT_FALSE(m0.empty());
  ASSERT_FALSE(m1.empty());
  const int64_t gap_us = m1.front().true_us - m0.front().true_us;
  EXPECT_GE(gap_us, 200 * kMs);
  EXPECT_LT(gap_us, 210 * kMs);
}

TEST(MultiLock, MultiLockWaitsTheWholeRemainingWaitOnAMember) {
  GroupHarness h(3, GroupKind::Multi);
  h.hold_member_elsewhere(1);
  std::optional<AcquireResult> got;
  h.world->group_client(0).try_lock(1, h.group, 600, -1, [&](AcquireResult r) { got = r; });
  h.world->run_until(5'000 * kMs);
  ASSERT_EQ(got, AcquireResult::NotAcquired);
  const auto fail = h.ops(EventKind::Fail, Op::TryLock);
  ASSERT_EQ(fail.size(), 1u);
  EXPECT_NE(fail[0].detail.find("wait budget exhausted"), std::string::npos);
  // Member 1's attempt used the remaining wait (about 600 ms), not a slice.
  const auto m1 = h.scripts("rlock_acquire", "lsim:G@1");
  ASSERT_FALSE(m1.empty());
  EXPECT_GE(fail[0].true_us - m1.front().true_us, 550 * kMs);
  EXPECT_FALSE(h.member_held_by(0, h.owner(0)));  // released before giving up
}

TEST(MultiLock, AboveTheBudgetEveryTouchedMemberIsReleasedBeforeTheRetry) {
  GroupHarness h(3, GroupKind::RedLock);  // budget 1
  h.hold_member_elsewhere(1);
  h.hold_member_elsewhere(2);
  std::optional<AcquireResult> got;
  h.world->group_client(0).try_lock(1, h.group, 2'000, -1, [&](AcquireResult r) { got = r; });
  h.world->run_until(10'000 * kMs);
  ASSERT_EQ(got, AcquireResult::NotAcquired);
  // Rounds: member 0 taken, 1 and 2 fail (2 > budget 1) -> member 0
  // released, then the next round starts at member 0 again while wait
  // remains: between two acquires of member 0 there is a release of it.
  const auto acquires0 = h.scripts("rlock_acquire", "lsim:G@0");
  ASSERT_GE(acquires0.size(), 2u);
  for (size_t i = 1; i < acquires0.size(); ++i) {
    bool released0 = false;
    for (const Event& r : h.scripts("rlock_release", "lsim:G@0"))
      released0 |= r.true_us > acquires0[i - 1].true_us && r.true_us < acquires0[i].true_us && r.reply.is(1);
    EXPECT_TRUE(released0) << "round " << i;
  }
  EXPECT_FALSE(h.member_held_by(0, h.owner(0)));
  const auto fail = h.ops(EventKind::Fail, Op::TryLock);
  ASSERT_EQ(fail.size(), 1u);
  EXPECT_NE(fail[0].detail.find("wait budget exhausted"), std::string::npos);
}

TEST(MultiLock, ATimedOutAttemptIsReleasedToo) {
  GroupHarness h(3, GroupKind::Multi);
  // Member 1's acquire runs on the server but its reply is lost.
  h.world->lose_reply = [](const Event& e) { return e.script == "rlock_acquire" && e.lock == "lsim:G@1"; };
  std::optional<AcquireResult> got;
  h.world->group_client(0).try_lock_once(1, h.group, 5'000, [&](AcquireResult r) { got = r; });
  h.world->run_until(10'000 * kMs);
  ASSERT_EQ(got, AcquireResult::NotAcquired);
  EXPECT_EQ(h.scripts("rlock_release", "lsim:G@1").size(), 1u);  // taken on the server: released
  EXPECT_EQ(h.scripts("rlock_release", "lsim:G@0").size(), 1u);
  EXPECT_FALSE(h.member_held_by(1, h.owner(0)));
  EXPECT_TRUE(h.scripts("rlock_acquire", "lsim:G@2").empty());  // no further member after the failure
}

TEST(MultiLock, ProvisionalLeaseIsTwiceTheWaitThenResetToTheLease) {
  GroupHarness h(3, GroupKind::RedLock);
  std::optional<AcquireResult> got;
  h.world->group_client(0).try_lock(1, h.group, 700, 5'000, [&](AcquireResult r) { got = r; });
  h.world->run_until(1'000 * kMs);
  ASSERT_EQ(got, AcquireResult::Acquired);
  const auto acquires = h.scripts("rlock_acquire");
  ASSERT_EQ(acquires.size(), 2u);  // majority of 3
  for (const Event& a : acquires) EXPECT_EQ(a.lease_ms, 1'400);
  const auto resets = h.scripts("rlock_renew");
  ASSERT_EQ(resets.size(), 2u);
  const auto ok = h.ops(EventKind::Ok, Op::TryLock);
  ASSERT_EQ(ok.size(), 1u);
  for (const Event& r : resets) {
    EXPECT_EQ(r.lease_ms, 5'000);
    EXPECT_EQ(r.reply, EventReply::of_int(1));
    EXPECT_EQ(r.op_id, ok[0].op_id);
    EXPECT_LT(r.id, ok[0].id);  // reset before the success is reported
  }
  // Without a wait, the lease is used at once.
  GroupHarness once(3, GroupKind::RedLock);
  once.world->group_client(0).try_lock_once(1, once.group, 5'000, [](AcquireResult) {});
  once.world->run_until(1'000 * kMs);
  for (const Event& a : once.scripts("rlock_acquire")) EXPECT_EQ(a.lease_ms, 5'000);
  EXPECT_TRUE(once.scripts("rlock_renew").empty());
}

TEST(MultiLock, ValidityGoneReleasesEverythingAndFails) {
  // 300 ms each way: three members take 1.8 s of a 2 s lease; the validity
  // 2000 - 1800 - (20 + 2) is positive; with 350 ms each way it is not.
  GroupHarness good(5, GroupKind::RedLock, 300'000, /*validity=*/true);
  std::optional<AcquireResult> got;
  good.world->group_client(0).try_lock_once(1, good.group, 2'000, [&](AcquireResult r) { got = r; });
  good.world->run_until(5'000 * kMs);
  ASSERT_EQ(got, AcquireResult::Acquired);
  const auto ok = good.ops(EventKind::Ok, Op::TryLock);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].detail, "validity 178 ms");
  const auto ends = good.ops(EventKind::Info, Op::ValidityEnd);
  ASSERT_EQ(ends.size(), 1u);  // the believed hold ends with the validity
  EXPECT_EQ(ends[0].true_us - ok[0].true_us, 178 * kMs);

  GroupHarness slow(5, GroupKind::RedLock, 350'000, /*validity=*/true);
  got.reset();
  slow.world->group_client(0).try_lock_once(1, slow.group, 2'000, [&](AcquireResult r) { got = r; });
  slow.world->run_until(10'000 * kMs);
  ASSERT_EQ(got, AcquireResult::NotAcquired);
  const auto fail = slow.ops(EventKind::Fail, Op::TryLock);
  ASSERT_EQ(fail.size(), 1u);
  EXPECT_NE(fail[0].detail.find("validity"), std::string::npos);
  EXPECT_EQ(slow.scripts("rlock_release").size(), 3u);
  for (int m = 0; m < 5; ++m) EXPECT_FALSE(slow.member_held_by(m, slow.owner(0)));

  // Without the option the same slow acquisition succeeds (Redisson's RedLock).
  GroupHarness plain(5, GroupKind::RedLock, 350'000, /*validity=*/false);
  got.reset();
  plain.world->group_client(0).try_lock_once(1, plain.group, 2'000, [&](AcquireResult r) { got = r; });
  plain.world->run_until(10'000 * kMs);
  EXPECT_EQ(got, AcquireResult::Acquired);
}

TEST(MultiLock, GroupIsLostWhenTooFewMembersAreLeft) {
  GroupHarness h(3, GroupKind::RedLock);
  std::optional<AcquireResult> got;
  h.world->group_client(0).lock(1, h.group, -1, [&](AcquireResult r) { got = r; });
  h.world->run_until(500 * kMs);
  ASSERT_EQ(got, AcquireResult::Acquired);  // members 0 and 1, watchdog on both
  h.world->redis_restart(1);                // member 1's key is gone
  h.world->run_until(15'000 * kMs);         // the renewal at 10 s answers 0
  const auto lost = h.ops(EventKind::Info, Op::HoldLost);
  ASSERT_EQ(lost.size(), 2u);  // the member's notice, then the group's
  EXPECT_EQ(lost[0].lock, "lsim:G@1");
  EXPECT_EQ(lost[1].lock, "lsim:G");
  bool released = true;
  h.world->group_client(0).unlock(1, h.group, [&](bool r) { released = r; });
  h.world->run_until(16'000 * kMs);
  EXPECT_FALSE(released);
  const auto fail = h.ops(EventKind::Fail, Op::Unlock);
  ASSERT_EQ(fail.size(), 1u);
  EXPECT_EQ(fail[0].reason, EndReason::IllegalMonitorState);
  EXPECT_EQ(fail[0].detail, "(the group was lost)");
}

TEST(MultiLock, NoReentry) {
  GroupHarness h(3, GroupKind::Multi);
  std::vector<AcquireResult> got;
  h.world->group_client(0).try_lock_once(1, h.group, 5'000, [&](AcquireResult r) { got.push_back(r); });
  h.world->run_until(500 * kMs);
  h.world->group_client(0).try_lock_once(1, h.group, 5'000, [&](AcquireResult r) { got.push_back(r); });
  h.world->run_until(1'000 * kMs);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], AcquireResult::Acquired);
  EXPECT_EQ(got[1], AcquireResult::NotAcquired);
  EXPECT_EQ(h.scripts("rlock_acquire").size(), 3u);  // the second try sent nothing
}

TEST(MultiLock, CrashRecordsPendingGroupOperations) {
  GroupHarness h(3, GroupKind::Multi);
  h.hold_member_elsewhere(1);
  h.world->group_client(0).lock(1, h.group, -1, [](AcquireResult) {});
  h.world->run_until(100 * kMs);
  h.world->crash(0);
  const auto infos = h.ops(EventKind::Info, Op::Lock);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].reason, EndReason::Crashed);
  EXPECT_EQ(infos[0].lock, "lsim:G");
}

}  // namespace
}  // namespace locksim
