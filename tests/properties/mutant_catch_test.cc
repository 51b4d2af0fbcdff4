// How the mutant suite catches particular mutants: which property, how short
// the counterexample, and what story it tells; design variants are not
// mutants, and the fair_wait_for_head design passes a safe campaign.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/variant.h"
#include "search/mutant_suite.h"
#include "tests/cli_runner.h"

namespace locksim {
namespace {

std::optional<MutantSpec> spec_named(const std::string& name) {
  for (const MutantSpec& spec : mutant_specs()) {
    if (spec.name == name) return spec;
  }
  return std::nullopt;
}

// A shared renewal entry stopped by a stale co-task's refused renewal: the
// other task's hold is lost without any fault during it.
TEST(MutantCatch, WatchdogFirstThreadEntryIsCaughtByWatchdogExpiry) {
  const auto spec = spec_named("watchdog_first_thread_entry");
  ASSERT_TRUE(spec.has_value());
  EXPECT_TRUE(spec->client);
  ASSERT_TRUE(static_cast<bool>(spec->plan_template));
  const MutantResult r = run_mutant(*spec, 200);
  ASSERT_TRUE(r.caught);
  EXPECT_EQ(r.property, "watchdog_expiry");
  EXPECT_LE(r.counterexample_events, 20u) << r.violation;
  ASSERT_TRUE(r.counterexample.has_value());
  const Violation& v = r.counterexample->violation;
  EXPECT_TRUE(v.blamed_fault.empty());
  EXPECT_EQ(v.lock, "lsim:L0");
  EXPECT_NE(r.violation.find("lsim:L0"), std::string::npos) << r.violation;
  // The story: a pause, and the lock no longer renewed for another task of
  // the same client than the one whose renewal was refused.
  bool paused = false;
  std::string refused, stopped;
  for (const Event& e : r.counterexample->events) {
    paused = paused || (e.kind == EventKind::Fault && e.op == Op::Pause);
    if (e.kind == EventKind::Script && e.script == "rlock_renew" && e.reply.is(0)) refused = e.owner;
    if (e.kind == EventKind::Info && e.op == Op::WatchdogStop && e.lock == "lsim:L0") stopped = e.owner;
  }
  EXPECT_TRUE(paused);
  EXPECT_FALSE(refused.empty());
  EXPECT_FALSE(stopped.empty());
  EXPECT_NE(refused, stopped);
  ASSERT_EQ(v.owners.size(), 1u);
  EXPECT_EQ(v.owners[0], stopped);
}

// The old step-4 answer goes negative; lock() then waits for a message that
// nobody publishes once the holder's lease ran out: a liveness failure.
TEST(MutantCatch, FairTtlFromDeadlineIsCaughtByLiveness) {
  const auto spec = spec_named("fair_ttl_from_deadline");
  ASSERT_TRUE(spec.has_value());
  EXPECT_FALSE(spec->client);
  ASSERT_TRUE(static_cast<bool>(spec->plan_template));
  const MutantResult r = run_mutant(*spec, 200);
  ASSERT_TRUE(r.caught);
  EXPECT_EQ(r.property, "liveness");
  EXPECT_LE(r.counterexample_events, 20u) << r.violation;
  ASSERT_TRUE(r.counterexample.has_value());
  const Violation& v = r.counterexample->violation;
  EXPECT_TRUE(v.blamed_fault.empty());
  ASSERT_EQ(v.owners.size(), 1u);
  // The stuck waiter was answered a negative time to wait, and then polled no more.
  bool negative = false;
  bool polled_after = false;
  for (const Event& e : r.counterexample->events) {
    if (e.kind != EventKind::Script || e.script != "fair_acquire" || e.owner != v.owners[0]) continue;
    polled_after = polled_after || negative;
    negative = negative || (e.reply.is_integer() && e.reply.integer < 0);
  }
  EXPECT_TRUE(negative);
  EXPECT_FALSE(polled_after);
}

// Design variants (model/variant.h) are opt-in designs, not bugs: the
// mutant suite neither lists nor runs them.
TEST(MutantCatch, DesignVariantsAreNotMutants) {
  for (ModelVariant v : design_variants()) {
    EXPECT_FALSE(spec_named(std::string(variant_name(v))).has_value()) << variant_name(v);
  }
  for (ModelVariant v : mutant_variants()) {
    EXPECT_TRUE(spec_named(std::string(variant_name(v))).has_value()) << variant_name(v);
  }
  const testing::CliRun r = testing::run_locksim("mutants --list", testing::Stderr::Discard);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find("fair_wait_for_head"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fair_ttl_from_deadline\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("watchdog_first_thread_entry\n"), std::string::npos) << r.out;
}

// The design variant passes a safe campaign on the fair lock.
TEST(MutantCatch, FairWaitForHeadPassesASafeFairCampaign) {
  const testing::CliRun r = testing::run_locksim(
      "campaign --seeds 200 --profile safe --lock fair --no-shrink --scripts " + std::string(LOCKSIM_SOURCE_DIR) +
          "/impl/variants/fair_wait_for_head",
      testing::Stderr::Discard);
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// Safe fair seed 5593: a grant shortened the slot of a crashed waiter behind
// the grantee; the release woke that dead head, and the waiter behind it slept
// to the end of the grantee's old 300 s slot. Without the variant's 1 s
// re-check bound this seed fails liveness (the lock free for 44 s).
TEST(MutantCatch, FairWaitForHeadRechecksBehindAShortenedSlot) {
  const testing::CliRun r = testing::run_locksim(
      "campaign --base-seed 5593 --seeds 1 --profile safe --lock fair --no-shrink --fail-on busy_poll --scripts " +
          std::string(LOCKSIM_SOURCE_DIR) + "/impl/variants/fair_wait_for_head",
      testing::Stderr::Discard);
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// Every mutant is caught by a violation no fault explains: its shrunk
// counterexample's cause, searched by re-running its plan without faults, is
// never confirmed (a protocol violation no fault permits, or one that
// persists without every fault its property permits).
TEST(MutantCatch, EveryMutantsViolationIsUnexplained) {
  for (const MutantSpec& spec : mutant_specs()) {
    const MutantResult r = run_mutant(spec, 200);
    ASSERT_TRUE(r.caught) << spec.name;
    ASSERT_TRUE(r.counterexample.has_value()) << spec.name;
    const Cause& cause = r.counterexample->violation.cause;
    EXPECT_FALSE(cause.confirmed()) << spec.name << ": " << r.violation;
    EXPECT_TRUE(cause.status == CauseStatus::NoScope || cause.status == CauseStatus::Persists)
        << spec.name << ": " << cause.text();
  }
}

}  // namespace
}  // namespace locksim
