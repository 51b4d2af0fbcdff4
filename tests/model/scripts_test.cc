// Script behaviours that need a hand-built store (states the scripts alone
// cannot reach), variant naming, and properties over random script sequences.
#include "model/scripts.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "model/faster_multi_fields.h"
#include "model/script_cases.h"

namespace locksim {
namespace {

using namespace cases;  // builders: fair_acquire, kA, ...

TEST(FairAcquire, Step5_FractionalTtlIsTruncatedTowardZero) {
  for (const auto& [deadline, now, want] :
       std::vector<std::tuple<double, int64_t, int64_t>>{{1000.9, 100, 900}, {1000.9, 2000, -999}}) {
    Store s;
    s.hset(kLock, kA, "1", kT);  // held, no expiry
    s.rpush(line(), kB, kT);
    s.rpush(line(), kCo, kT);
    s.zadd(deadlines(), 1e15, kB, kT);  // live head
    s.zadd(deadlines(), deadline, kCo, kT);
    const ExecResult r = run_script(s, fair_acquire(kD, now, kLease, 10), kT);
    EXPECT_EQ(r.reply, Reply::of_int(want)) << deadline << " " << now;
    const double want_deadline = (deadline - static_cast<double>(now)) + 10.0 + static_cast<double>(now);
    EXPECT_EQ(s.zscore(deadlines(), kD, kT), want_deadline);
  }
}

TEST(FairAcquire, Step5_LockWithoutExpiryAndEmptyLineGivesMinusOne) {
  Store s;
  s.hset(kLock, kA, "1", kT);
  const ExecResult r = run_script(s, fair_acquire(kB, 500), kT);
  EXPECT_EQ(r.reply, Reply::of_int(-1));
  EXPECT_EQ(s.zscore(deadlines(), kB, kT), -1.0 + kWait + 500);
}

TEST(FairAcquire, Step1_HeadWithoutDeadlineStopsPurgeAndBlocksFreeLock) {
  Store s;
  s.rpush(line(), kB, kT);  // B in line but no deadline
  s.rpush(line(), kCo, kT);
  s.zadd(deadlines(), 0, kCo, kT);  // stale, but behind B
  const ExecResult r = run_script(s, fair_acquire(kCo, 1'000'000), kT);
  EXPECT_EQ(r.reply, Reply::of_int(0));  // step 4: already waiting, lock absent
  EXPECT_EQ(s.lrange_all(line(), kT), (std::vector<std::string>{kB, kCo}));
  EXPECT_TRUE(r.holders_after.empty());
}

TEST(FairAcquire, Step5_OwnerInLineWithoutDeadlineIsPushedAgain) {
  Store s;
  s.hset(kLock, kA, "1", kT);
  s.pexpire(kLock, 100, kT);
  s.rpush(line(), kB, kT);  // B in line, no deadline
  const ExecResult r = run_script(s, fair_acquire(kB, 0), kT);
  EXPECT_EQ(r.reply, Reply::of_int(100));  // last == owner -> ttl = PTTL
  EXPECT_EQ(s.lrange_all(line(), kT), (std::vector<std::string>{kB, kB}));
}

// Step 4 (owner already waiting) by variant, on one state: A holds with 1 s
// left; B waits with deadline kC + 20 000.5 (wait 5 000), C behind it.
ExecResult step4_poll(ModelVariant variant, int64_t client_now_ms) {
  Store s;
  s.hset(kLock, kA, "1", kT);
  s.pexpire(kLock, 1'000, kT);
  s.rpush(line(), kB, kT);
  s.rpush(line(), kCo, kT);
  s.zadd(deadlines(), static_cast<double>(kC) + 20'000.5, kB, kT);
  s.zadd(deadlines(), static_cast<double>(kC) + 25'000.5, kCo, kT);
  return run_script(s, fair_acquire(kB, client_now_ms), kT, variant);
}

TEST(FairAcquire, Step4_OursAnswersMaxOfZeroAndPttl) {
  EXPECT_EQ(step4_poll(ModelVariant::Correct, kC + 100).reply, Reply::of_int(1'000));
  EXPECT_EQ(step4_poll(ModelVariant::Correct, kC + 30'000).reply, Reply::of_int(1'000));  // the deadline plays no part
  Store s;  // lock without expiry: PTTL -1 -> 0
  s.hset(kLock, kA, "1", kT);
  s.rpush(line(), kB, kT);
  s.zadd(deadlines(), static_cast<double>(kC) + 20'000, kB, kT);
  EXPECT_EQ(run_script(s, fair_acquire(kB, kC), kT).reply, Reply::of_int(0));
}

TEST(FairAcquire, Step4_FairTtlFromDeadlineAnswersDeadlineMinusWaitMinusNow) {
  // kC + 20 000.5 - 5 000 - (kC + 100) = 14 900.5 -> 14 900 (truncated).
  EXPECT_EQ(step4_poll(ModelVariant::FairTtlFromDeadline, kC + 100).reply, Reply::of_int(14'900));
  // Past the estimate: -4 999.5 -> -4 999 (toward zero), whatever the PTTL.
  EXPECT_EQ(step4_poll(ModelVariant::FairTtlFromDeadline, kC + 20'000).reply, Reply::of_int(-4'999));
  const ExecResult r = step4_poll(ModelVariant::FairTtlFromDeadline, kC + 20'000);
  EXPECT_EQ(r.holders_after, (std::vector<std::string>{kA}));
}

TEST(FairAcquire, Step4_FairWaitForHeadAnswersPttlWhileTheLockIsHeld) {
  EXPECT_EQ(step4_poll(ModelVariant::FairWaitForHead, kC + 100).reply, Reply::of_int(1'000));
}

// The lock is free; B heads the line (deadline kC + 20 000.5), C waits behind.
ExecResult free_lock_poll(ModelVariant variant, int64_t client_now_ms, bool head_has_deadline = true) {
  Store s;
  s.rpush(line(), kB, kT);
  s.rpush(line(), kCo, kT);
  if (head_has_deadline) s.zadd(deadlines(), static_cast<double>(kC) + 20'000.5, kB, kT);
  s.zadd(deadlines(), static_cast<double>(kC) + 25'000.5, kCo, kT);
  return run_script(s, fair_acquire(kCo, client_now_ms), kT, variant);
}

TEST(FairAcquire, Step4_FreeLockBehindAnotherHeadByVariant) {
  // Ours: max(0, PTTL) = 0, so the waiter polls again at once.
  EXPECT_EQ(free_lock_poll(ModelVariant::Correct, kC + 100).reply, Reply::of_int(0));
  // The mutant: its own deadline - wait - now = 25 000.5 - 5 000 - 100 -> 19 900.
  EXPECT_EQ(free_lock_poll(ModelVariant::FairTtlFromDeadline, kC + 100).reply, Reply::of_int(19'900));
  // The design variant: until the head's slot ends (20 000.5 - now,
  // truncated), at most the re-check bound of 1 000, and under 1 ms left -> 0.
  EXPECT_EQ(free_lock_poll(ModelVariant::FairWaitForHead, kC + 100).reply, Reply::of_int(1'000));
  EXPECT_EQ(free_lock_poll(ModelVariant::FairWaitForHead, kC + 19'400).reply, Reply::of_int(600));
  EXPECT_EQ(free_lock_poll(ModelVariant::FairWaitForHead, kC + 20'000).reply, Reply::of_int(0));
  EXPECT_EQ(free_lock_poll(ModelVariant::FairWaitForHead, kC + 15'000).reply, Reply::of_int(1'000));
  // A head without a deadline (a historical bug) gives the current answer.
  EXPECT_EQ(free_lock_poll(ModelVariant::FairWaitForHead, kC + 100, false).reply, Reply::of_int(0));
  // Nothing is written either way.
  const ExecResult r = free_lock_poll(ModelVariant::FairWaitForHead, kC + 100);
  EXPECT_TRUE(r.holders_after.empty());
  EXPECT_TRUE(r.published.empty());
}

TEST(Variant, DesignVariantsAreNotMutants) {
  EXPECT_TRUE(is_design_variant(ModelVariant::FairWaitForHead));
  EXPECT_FALSE(is_design_variant(ModelVariant::Correct));
  EXPECT_FALSE(is_design_variant(ModelVariant::FairTtlFromDeadline));
  EXPECT_EQ(design_variants(), std::vector<ModelVariant>{ModelVariant::FairWaitForHead});
  const auto mutants = mutant_variants();
  EXPECT_EQ(mutants.size(), all_variants().size() - 1 - design_variants().size());
  for (ModelVariant v : mutants) {
    EXPECT_NE(v, ModelVariant::Correct);
    EXPECT_FALSE(is_design_variant(v)) << variant_name(v);
  }
  EXPECT_EQ(variant_from_name("fair_wait_for_head"), ModelVariant::FairWaitForHead);
}

TEST(Scripts, WrongTypeLockIsAnErrorReply) {
  Store s;
  s.set(kLock, "not a hash", std::nullopt, kT);
  const ExecResult r = run_script(s, acquire(kA), kT);
  EXPECT_TRUE(r.reply.is_error());
  EXPECT_TRUE(r.holders_after.empty());
  EXPECT_EQ(s.get(kLock, kT), "not a hash");
}

TEST(Scripts, HoldersAfterListsOwnerFieldsSorted) {
  Store s;
  s.hset(kLock, kB, "1", kT);
  const ExecResult r = run_script(s, renew(kB), kT);
  EXPECT_EQ(r.holders_after, (std::vector<std::string>{kB}));
}

TEST(Variant, NamesRoundTripAndAreSnakeCase) {
  const std::vector<std::string> want = {"correct",
                                         "renew_no_owner_check",
                                         "release_no_owner_check",
                                         "reentry_no_expiry_reset",
                                         "fair_no_stale_purge",
                                         "fair_same_deadline",
                                         "release_no_publish",
                                         "fair_ttl_from_deadline",
                                         "fair_no_acquire_failed",
                                         "fair_wait_for_head",
                                         "faster_multi_release_frees_early",
                                         "faster_multi_expiry_inverted",
                                         "faster_multi_renew_unheld"};
  std::vector<std::string> got;
  for (ModelVariant v : all_variants()) {
    got.emplace_back(variant_name(v));
    EXPECT_EQ(variant_from_name(variant_name(v)), v);
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(variant_from_name("Correct"), std::nullopt);
  EXPECT_EQ(variant_from_name(""), std::nullopt);
}

// ---- properties over random sequences ------------------------------------

struct RandomStep {
  int kind = 0;
  int owner = 0;
  int64_t advance_ms = 0;
  int64_t lease_ms = 0;
  int64_t latch_ttl_ms = 0;
  int rid = 0;
  int values = 0;  // faster multi-lock: which of kFmValues
};

// The faster multi-lock's calls take values of the group "G" (its own key,
// beside the reentrant lock's), in clocks up to a lease apart per owner.
const char* const kFmValues[] = {"0", "1", "0,1", "1,2", "0,1,2"};
const std::string kGroup = "G";

ScriptCall on_group(ScriptCall call) {
  call.params.lock = kGroup;
  if (!call.params.channel.empty()) call.params.channel = LockKeys::channel(kGroup);
  if (!call.params.latch.empty()) call.params.latch = call.params.latch + ":G";
  return call;
}

ScriptCall to_call(const RandomStep& r, int64_t now_ms) {
  static const std::string owners[] = {kA, kB, kCo};
  const std::string& o = owners[r.owner];
  const std::string rid = "r" + std::to_string(r.rid);
  switch (static_cast<ScriptKind>(r.kind)) {
    case ScriptKind::RlockAcquire: return acquire(o, r.lease_ms);
    case ScriptKind::RlockRelease: return release(o, rid, r.lease_ms, r.latch_ttl_ms);
    case ScriptKind::RlockRenew: return renew(o, r.lease_ms);
    case ScriptKind::RlockForceRelease: return force_release();
    case ScriptKind::FairAcquire: return fair_acquire(o, now_ms, r.lease_ms);
    case ScriptKind::FairTryOnce: return fair_try_once(o, now_ms, r.lease_ms);
    case ScriptKind::FairRelease: return fair_release(o, now_ms, rid, r.lease_ms, r.latch_ttl_ms);
    case ScriptKind::FairAcquireFailed: return fair_acquire_failed(o);
    case ScriptKind::FairForceRelease: return fair_force_release(now_ms);
    case ScriptKind::SpinRelease: return spin_release(o, rid, r.lease_ms, r.latch_ttl_ms);
    case ScriptKind::SpinForceRelease: return spin_force_release();
    case ScriptKind::FasterMultiAcquire:
    case ScriptKind::FasterMultiRelease:
    case ScriptKind::FasterMultiRenew:
    case ScriptKind::FasterMultiForceRelease: {
      const int64_t client_now_ms = now_ms + (r.owner - 1) * 31'000;
      const std::string values = kFmValues[r.values];
      switch (static_cast<ScriptKind>(r.kind)) {
        case ScriptKind::FasterMultiAcquire: return on_group(fm_acquire(o, client_now_ms, values, r.lease_ms));
        case ScriptKind::FasterMultiRelease:
          return on_group(fm_release(o, rid, client_now_ms, values, r.lease_ms, r.latch_ttl_ms));
        case ScriptKind::FasterMultiRenew: return on_group(fm_renew(o, client_now_ms, values, r.lease_ms));
        default: return on_group(fm_force_release());
      }
    }
  }
  return acquire(o);
}

rc::Gen<RandomStep> gen_step() {
  return rc::gen::build<RandomStep>(
      rc::gen::set(&RandomStep::kind, rc::gen::inRange(0, kScriptKindCount)),
      rc::gen::set(&RandomStep::owner, rc::gen::inRange(0, 3)),
      rc::gen::set(&RandomStep::advance_ms, rc::gen::element<int64_t>(0, 1, 999, 5'000, 31'000)),
      rc::gen::set(&RandomStep::lease_ms, rc::gen::element<int64_t>(0, 1'000, 30'000)),
      rc::gen::set(&RandomStep::latch_ttl_ms, rc::gen::element<int64_t>(0, 1, 10'000)),
      rc::gen::set(&RandomStep::rid, rc::gen::inRange(0, 4)),
      rc::gen::set(&RandomStep::values, rc::gen::inRange(0, 5)));
}

// Server truth: no script of any variant ever leaves two owner fields in a
// lock's hash, nor two owners of one value in a faster multi-lock's group
// (but for the faster multi-lock's mutants, which write fields for values
// the caller does not hold: their cases pin it).
RC_GTEST_PROP(ScriptsProperty, AtMostOneHolderAfterEveryScript, ()) {
  const auto steps = *rc::gen::container<std::vector<RandomStep>>(gen_step());
  std::vector<ModelVariant> variants;
  for (ModelVariant v : all_variants())
    if (!is_faster_multi_mutant(v)) variants.push_back(v);
  const auto variant = *rc::gen::elementOf(variants);
  Store s;
  int64_t now = kT;
  for (const auto& st : steps) {
    now += st.advance_ms;
    const ExecResult r = run_script(s, to_call(st, now), now, variant);
    if (!is_faster_multi_script(static_cast<ScriptKind>(st.kind))) {
      RC_ASSERT(r.holders_after.size() <= 1u);
      continue;
    }
    for (const char* v : {"0", "1", "2"}) {
      const auto owners = value_owners(r.holders_after, v);
      RC_ASSERT(owners.size() <= 1u);
      const auto owner = s.hget(kGroup, v, now);
      RC_ASSERT(owners.empty() == !owner.has_value());
      if (owner) RC_ASSERT(owners.front() == *owner);
    }
  }
}

// Same calls, same results and same final keys (no hidden state), and the
// active sweep is invisible while time moves forward.
RC_GTEST_PROP(ScriptsProperty, DeterministicAndSweepInvisible, ()) {
  const auto steps = *rc::gen::container<std::vector<RandomStep>>(gen_step());
  Store a;
  Store b;
  int64_t now = kT;
  for (const auto& st : steps) {
    now += st.advance_ms;
    b.sweep_expired(now);
    const ExecResult ra = run_script(a, to_call(st, now), now);
    const ExecResult rb = run_script(b, to_call(st, now), now);
    RC_ASSERT(ra.reply == rb.reply);
    RC_ASSERT(ra.published == rb.published);
    RC_ASSERT(ra.holders_after == rb.holders_after);
  }
  RC_ASSERT(a.snapshot(now) == b.snapshot(now));
}

}  // namespace
}  // namespace locksim
