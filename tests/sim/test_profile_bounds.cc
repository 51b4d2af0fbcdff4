// What a profile permits (sim/profiles.h fault_outside_profile): every plan
// the profile draws is within it, and a fault it never draws (a size out
// of its range, a kind it has not, a time in the drain, a second failover)
// is named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/profiles.h"
#include "sim/rng.h"

namespace locksim {
namespace {

constexpr int kClients = 5;
constexpr int kServers = 3;
constexpr int64_t kDurationUs = 120'000'000;

std::string outside(const std::string& profile, const std::vector<FaultAction>& actions) {
  return fault_outside_profile(Profile::named(profile), actions, kClients, kServers, kDurationUs);
}

TEST(ProfileBounds, EveryPlanAProfileDrawsIsWithinIt) {
  std::vector<std::string> profiles = profile_names();
  profiles.push_back("pauses+restarts+failover");
  profiles.push_back("safe+server-clock");
  for (const std::string& p : profiles) {
    size_t faults = 0;
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      const FaultPlan plan = make_fault_plan(Profile::named(p), kClients, kServers, kDurationUs, Rng(seed));
      faults += plan.actions.size();
      EXPECT_EQ(outside(p, plan.actions), "") << p << " seed " << seed;
    }
    if (p != "none" && p != "skew") {
      EXPECT_GT(faults, 0u) << p;
    }
  }
}

TEST(ProfileBounds, AFaultTheProfileNeverDrawsIsNamed) {
  const FaultAction safe_pause{1'000'000, FaultKind::Pause, 0, 200, -1};
  EXPECT_EQ(outside("safe", {safe_pause}), "");
  // Two overlapping pauses of one client: its draws may give them.
  const FaultAction long_pause{2'000'000, FaultKind::Pause, 0, 50'000, -1};
  EXPECT_EQ(outside("pauses", {long_pause, FaultAction{3'000'000, FaultKind::Pause, 0, 40'000, -1}}), "");

  FaultAction a = safe_pause;
  a.duration_ms = 400;  // longer than safe's pauses
  EXPECT_NE(outside("safe", {a}).find("never draws"), std::string::npos) << outside("safe", {a});
  EXPECT_EQ(outside("hostile", {a}), "");
  EXPECT_NE(outside("pauses", {safe_pause}), "") << "pauses draws only pauses longer than the lease";
  EXPECT_NE(outside("pauses", {FaultAction{1'000, FaultKind::Partition, 0, 1'000, -1}}), "");
  EXPECT_NE(outside("none", {safe_pause}), "");
  EXPECT_EQ(outside("pauses+restarts", {long_pause, FaultAction{5, FaultKind::RedisRestart, 2, 0, -1}}), "");
  a = safe_pause;
  a.at_us = kDurationUs;  // in the drain after the operations
  EXPECT_NE(outside("safe", {a}).find("outside the run"), std::string::npos) << outside("safe", {a});
  a = safe_pause;
  a.target = kClients;
  EXPECT_NE(outside("safe", {a}).find("target"), std::string::npos);
  const FaultAction crash{1'000, FaultKind::Crash, 1, 0, 20'000};  // restarts later than safe's
  EXPECT_NE(outside("safe", {crash}), "");
  const FaultAction failover{1'000, FaultKind::Failover, 2, 0, -1};
  EXPECT_EQ(outside("failover", {failover}), "");
  FaultAction again = failover;
  again.at_us = 9'000;
  EXPECT_NE(outside("failover", {failover, again}).find("second failover"), std::string::npos);
  EXPECT_NE(outside("server-clock", {FaultAction{1'000, FaultKind::ServerClockJump, 0, 0, -1}}), "");
  EXPECT_THROW(outside("storm", {}), std::invalid_argument);
}

}  // namespace
}  // namespace locksim
