// Each command's validate(): its flags as typed into typed options, pure
// (no pack loaded, no file read or written), and every bad flag or
// combination a UsageError (tools/cli/commands.h).
#include <gtest/gtest.h>

#include <string>

#include "tools/cli/cmd_campaign.h"
#include "tools/cli/cmd_check.h"
#include "tools/cli/cmd_explore.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/cmd_replay.h"
#include "tools/cli/cmd_run.h"
#include "tools/cli/cmd_shrink.h"
#include "tools/cli/cmd_timeline.h"

namespace locksim::cli {
namespace {

TEST(CliValidate, CampaignParsesIntoAScenarioAndABackend) {
  CampaignArgs a;
  a.seeds = 30;
  a.base_seed = 7;
  a.scenario.profile = "pauses+restarts";
  a.scenario.lock = "fair";
  a.scenario.duration_s = 2.5;
  a.scenario.mutant = "renew_no_owner_check";
  a.backend = "lua,live";
  a.backend_given = true;
  a.shard = "1/3";
  const CampaignRequest q = validate_campaign(a);
  EXPECT_EQ(q.options.seeds, 30);
  EXPECT_EQ(q.options.scenario.seed, 7u);
  EXPECT_EQ(q.options.scenario.profile.name(), "pauses+restarts");
  EXPECT_EQ(q.options.scenario.lock_kind, ScenarioLockKind::Fair);
  EXPECT_EQ(q.options.scenario.duration_ms, 2500);
  EXPECT_EQ(campaign_mutant(q.options).name(), "renew_no_owner_check");
  ASSERT_TRUE(q.backend.has_value());
  EXPECT_EQ(q.backend->checked, BackendKind::Lua);
  EXPECT_EQ(q.backend->reference, BackendKind::Live);
  EXPECT_EQ(q.options.shard_index, 1);
  EXPECT_EQ(q.options.shard_count, 3);
  EXPECT_FALSE(q.options.fair_slot_given);
  // No --backend: decided once the pack is loaded.
  EXPECT_FALSE(validate_campaign(CampaignArgs{}).backend.has_value());
}

TEST(CliValidate, CampaignRefusesBadFlagsAndCombinations) {
  auto refused = [](auto edit) {
    CampaignArgs a;
    edit(a);
    EXPECT_THROW(validate_campaign(a), UsageError);
  };
  refused([](CampaignArgs& a) { a.scenario.profile = "nope"; });
  refused([](CampaignArgs& a) { a.scenario.lock = "nope"; });
  refused([](CampaignArgs& a) { a.scenario.mutant = "nope"; });
  refused([](CampaignArgs& a) { a.backend = "model,model"; a.backend_given = true; });
  refused([](CampaignArgs& a) { a.shard = "3/3"; });
  refused([](CampaignArgs& a) { a.shard = "x"; });
  refused([](CampaignArgs& a) { a.corpus_file = "c.jsonl"; });  // without --guided
  refused([](CampaignArgs& a) { a.corpus_given = true; a.guided = true; });  // --corpus ''
  refused([](CampaignArgs& a) { a.out_given = true; });  // --out ''
  refused([](CampaignArgs& a) { a.reference = "p"; a.match_variant = true; });
  refused([](CampaignArgs& a) { a.fail_on = {"nope"}; });
  refused([](CampaignArgs& a) { a.base_seed = UINT64_MAX; a.seeds = 2; });
}

TEST(CliValidate, RunTimelineShrinkCheckReplayExplore) {
  RunArgs run;
  run.seed = 5;
  run.trace = "t.jsonl";
  run.backend = "lua";
  const RunRequest r = validate_run(run);
  EXPECT_EQ(r.campaign.scenario.seed, 5u);
  EXPECT_EQ(r.backend, BackendKind::Lua);
  run.backend = "nope";
  EXPECT_THROW(validate_run(run), UsageError);
  run.backend.clear();
  run.trace.clear();
  EXPECT_THROW(validate_run(run), UsageError);

  TimelineArgs t;
  t.trace = "t.jsonl";
  t.out = "t.svg";
  t.property = "fifo_fairness";
  const TimelineRequest tr = validate_timeline(t);
  ASSERT_TRUE(tr.violation.has_value());
  EXPECT_EQ(tr.violation->property, "fifo_fairness");
  EXPECT_EQ(tr.format, "svg");
  t.from_id = 3;
  EXPECT_THROW(validate_timeline(t), UsageError);  // --property picks its own window
  t.from_id = -1;
  t.property = "nope";
  EXPECT_THROW(validate_timeline(t), UsageError);
  t.property.clear();
  t.out = "t.nope";
  EXPECT_THROW(validate_timeline(t), UsageError);

  ShrinkArgs s;
  s.trace = "t.jsonl";
  s.property = "liveness";
  EXPECT_EQ(validate_shrink(s).choice.property, "liveness");
  EXPECT_EQ(default_shrink_output("runs/x/7.jsonl", "liveness"), "runs/x/7.liveness.shrunk.jsonl");
  s.out_given = true;
  EXPECT_THROW(validate_shrink(s), UsageError);  // -o ''
  s.out_given = false;
  s.trace = "-";
  EXPECT_THROW(validate_shrink(s), UsageError);

  CheckArgs c;
  c.path = "t.jsonl";
  c.property = "watchdog_expiry";
  EXPECT_EQ(validate_check(c).only.property, "watchdog_expiry");
  c.property = "nope";
  EXPECT_THROW(validate_check(c), UsageError);

  ReplayArgs p;
  p.path = "t.jsonl";
  p.backend = "live";
  EXPECT_EQ(validate_replay(p).backend, BackendKind::Live);
  p.backend = "both";
  EXPECT_THROW(validate_replay(p), UsageError);

  ExploreArgs e;
  e.backend = "lua";
  EXPECT_EQ(validate_explore(e).backend, BackendKind::Lua);
  e.backend = "live";
  EXPECT_THROW(validate_explore(e), UsageError);
  e.backend.clear();
  e.faults = "crash,nope";
  EXPECT_THROW(validate_explore(e), UsageError);
}

// --memory-limit: parsed by each validate function of a command that runs
// Lua into the lua backend's limits; every bad text a UsageError.
TEST(CliValidate, MemoryLimitParsesIntoTheLuaLimitsOfEveryCommand) {
  auto given = [](const std::string& text) { return MemoryLimitFlag{text, true}; };
  EXPECT_EQ(validate_memory_limit(MemoryLimitFlag{}).memory_bytes, LuaBackend::kDefaultRunMemoryBytes);
  EXPECT_EQ(validate_memory_limit(given("512M")).memory_bytes, size_t{512} << 20);
  EXPECT_EQ(validate_memory_limit(given("2gib")).memory_bytes, size_t{2} << 30);
  EXPECT_EQ(validate_memory_limit(given("16777216")).memory_bytes, size_t{16} << 20);
  EXPECT_EQ(validate_memory_limit(given("1024G")).memory_bytes, size_t{1} << 40);
  for (const char* bad : {"", "0", "-1", "-512M", "1.5G", "abc", "512X", "15M", "1025G", "99999999999999999999999G",
                          "18446744073709551616", " 512M", "512M "}) {
    EXPECT_THROW(validate_memory_limit(given(bad)), UsageError) << "'" << bad << "'";
  }
  try {
    validate_memory_limit(given("0"));
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--memory-limit: '0' is outside 16M to 1024G");
  }

  RunArgs run;
  run.trace = "t.jsonl";
  run.memory_limit = given("64M");
  EXPECT_EQ(validate_run(run).lua_limits.memory_bytes, size_t{64} << 20);
  run.memory_limit = given("0");
  EXPECT_THROW(validate_run(run), UsageError);
  run.memory_limit = MemoryLimitFlag{};
  EXPECT_EQ(validate_run(run).lua_limits.memory_bytes, LuaBackend::kDefaultRunMemoryBytes);

  CampaignArgs c;
  c.memory_limit = given("3G");
  const CampaignRequest cq = validate_campaign(c);
  EXPECT_EQ(cq.lua_limits.memory_bytes, size_t{3} << 30);
  EXPECT_EQ(cq.memory_limit, "3G");  // the command line recorded runs it again with it
  c.memory_limit = given("lots");
  EXPECT_THROW(validate_campaign(c), UsageError);

  ReplayArgs p;
  p.path = "t.jsonl";
  p.memory_limit = given("100M");
  EXPECT_EQ(validate_replay(p).lua_limits.memory_bytes, size_t{100} << 20);
  p.memory_limit = given("-5");
  EXPECT_THROW(validate_replay(p), UsageError);

  CheckArgs k;
  k.path = "t.jsonl";
  k.memory_limit = given("1G");
  EXPECT_EQ(validate_check(k).lua_limits.memory_bytes, size_t{1} << 30);
  k.memory_limit = given("2000G");
  EXPECT_THROW(validate_check(k), UsageError);

  ExploreArgs e;
  e.memory_limit = given("32M");
  EXPECT_EQ(validate_explore(e).lua_limits.memory_bytes, size_t{32} << 20);
  e.memory_limit = given("1e9");
  EXPECT_THROW(validate_explore(e), UsageError);

  ShrinkArgs s;
  s.trace = "t.jsonl";
  s.memory_limit = given("200M");
  const ShrinkRequest sq = validate_shrink(s);
  EXPECT_EQ(sq.lua_limits.memory_bytes, size_t{200} << 20);
  EXPECT_EQ(sq.memory_limit, "200M");
  s.memory_limit = given("");
  EXPECT_THROW(validate_shrink(s), UsageError);
}

}  // namespace
}  // namespace locksim::cli
