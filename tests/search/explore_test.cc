// The explorer (search/explore.h): completeness on configurations small
// enough to count by hand, the same states and counterexamples with 1 and 2
// workers, a mutant found and the correct pack clean, counterexamples whose
// plan replays (also through its JSON), the lua backend agreeing with the
// model, limits. No timings.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "impl/script_pack.h"
#include "properties/checker_suite.h"
#include "search/explore.h"
#include "search/explore_json.h"
#include "search/explore_setup.h"
#include "properties/scenario_check.h"
#include "sim/explicit_plan_json.h"
#include "sim/lua_backend_source.h"
#include "sim/model_backend_source.h"
#include "sim/replay.h"
#include "sim/run.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"
#include "tests/lock_kind_of.h"

namespace locksim {
namespace {

Scenario small_scenario(int clients, const std::string& lock = "rlock", ModelVariant variant = ModelVariant::Correct) {
  Scenario s;
  s.clients = clients;
  s.lock_kind = testing::lock_kind_of(lock);
  s.profile = Profile::named("none");
  s.model_variant = variant;
  return s;
}

ExploreConfig config_for(const Scenario& s, const std::string& ops, std::vector<ExploreFault> faults, int max_faults) {
  ExploreConfig c;
  c.plan = explore_plan(s, ops, 10, 1000, 60'000);
  c.faults = std::move(faults);
  c.max_faults = max_faults;
  c.check = default_check_config();
  return c;
}

// One model source per worker.
struct Sources {
  explicit Sources(int n) {
    for (int i = 0; i < n; ++i) {
      owned.push_back(std::make_unique<ModelBackendSource>());
      ptrs.push_back(owned.back().get());
    }
  }
  std::vector<std::unique_ptr<BackendSource>> owned;
  std::vector<BackendSource*> ptrs;
};

ExploreResult explore(const ExploreConfig& c) {
  Sources sources(c.workers + (c.policy.unexplained_only ? 1 : 0));  // and the cause search's
  return run_explore(c, sources.ptrs);
}

// Two clients each make one attempt (tryLock() with a 1 s lease: no
// watchdog), no faults. By hand: both start at 0 in either order (the two
// orders meet: 3 states and the start); their requests reach the server at
// 1 ms in either order (2 states); the second script runs (2); the replies
// come back at 2 ms in either order (2 x 2 states) and meet once both are in
// (2 end states, one per winner). 14 states, 16 transitions, 4 of them
// ending the run (2 distinct end states), depth 6.
TEST(Explore, CountsEveryScheduleOfTwoOneShotClients) {
  const ExploreResult r = explore(config_for(small_scenario(2), "tryonce:1000", {}, 0));
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.limit, "");
  EXPECT_EQ(r.distinct_states, 14u);
  EXPECT_EQ(r.transitions, 16u);
  EXPECT_EQ(r.terminal_transitions, 4u);
  EXPECT_EQ(r.max_depth, 6u);
  EXPECT_TRUE(r.violations.empty());
}

// One client makes one attempt; it may crash at any instant at which
// something concerning it is due. By hand: at 0 (before its operation
// starts) crash -> end, or start; at 1 ms (its request reaching the server)
// crash -> the script still runs for the dead client -> end, or the script
// runs; at 2 ms (the reply) crash -> end, or the reply -> end. 8 states, 7
// transitions, 4 ending a run, depth 3.
TEST(Explore, CountsEveryCrashPointOfOneClient) {
  const ExploreResult r = explore(config_for(small_scenario(1), "tryonce:1000", {ExploreFault::Crash}, 1));
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.distinct_states, 8u);
  EXPECT_EQ(r.transitions, 7u);
  EXPECT_EQ(r.terminal_transitions, 4u);
  EXPECT_EQ(r.max_depth, 3u);
  EXPECT_TRUE(r.violations.empty());
}

// The whole result as JSON: counts, completeness and every counterexample
// (plan, violation, depth, states before it); not the costs (transitions
// replayed, memory), which depend on the workers and on the copies.
nlohmann::json everything(const ExploreConfig& c, const ExploreResult& r) {
  nlohmann::json j = explore_result_json(c, r);
  j["counts"].erase("replayed_transitions");
  nlohmann::json events = nlohmann::json::array();
  for (const ExploreCounterexample& cx : r.violations) {
    std::ostringstream text;
    for (const Event& e : cx.events) text << e.id << ' ' << e.true_us << ' ' << op_name(e.op) << ' ' << e.script << '\n';
    events.push_back(text.str());
  }
  j["events"] = events;
  return j;
}

TEST(Explore, SameStatesAndFirstCounterexampleWithOneAndTwoWorkers) {
  for (const ExploreOrder order : {ExploreOrder::BreadthFirst, ExploreOrder::DepthFirst, ExploreOrder::RandomWalk}) {
    SCOPED_TRACE(explore_order_name(order));
    ExploreConfig c = config_for(small_scenario(2), "lock,unlock", {ExploreFault::Pause, ExploreFault::Loss}, 1);
    c.order = order;
    c.walks = 300;
    c.workers = 1;
    const ExploreResult one = explore(c);
    c.workers = 2;
    const ExploreResult two = explore(c);
    if (order != ExploreOrder::RandomWalk) {  // walks are a sample: they may miss it
      ASSERT_FALSE(one.violations.empty());     // a pause longer than the lease breaks mutual exclusion
      EXPECT_EQ(one.violations.front().violation.property, "mutual_exclusion");
    }
    EXPECT_GT(one.distinct_states, 100u);
    EXPECT_EQ(everything(c, one).dump(), everything(c, two).dump());
  }
}

// Under --unexplained-only each violating transition is judged by re-runs
// (search/explore.h): the pause the explorer chose is proven, the search
// goes on past it, and the result is the same with one and two workers.
// A client mutant's violation stays unexplained.
TEST(Explore, UnexplainedOnlyProvesTheInjectedPauseWithAnyNumberOfWorkers) {
  for (const ExploreOrder order : {ExploreOrder::BreadthFirst, ExploreOrder::DepthFirst}) {
    SCOPED_TRACE(explore_order_name(order));
    ExploreConfig c = config_for(small_scenario(2), "lock,unlock", {ExploreFault::Pause, ExploreFault::Loss}, 1);
    c.order = order;
    c.policy.unexplained_only = true;
    c.workers = 1;
    const ExploreResult one = explore(c);
    c.workers = 2;
    const ExploreResult two = explore(c);
    EXPECT_TRUE(one.violations.empty());
    EXPECT_TRUE(one.complete);
    EXPECT_GT(one.explained.count("mutual_exclusion"), 0u);
    EXPECT_EQ(everything(c, one).dump(), everything(c, two).dump());
  }
  ExploreConfig c = config_for(small_scenario(1), "lock,unlock", {ExploreFault::Pause}, 1);
  c.plan.scenario.mutant = ClientMutant::WatchdogNotCancelled;
  c.policy.unexplained_only = true;
  const ExploreResult found = explore(c);
  ASSERT_FALSE(found.violations.empty());
  EXPECT_EQ(found.violations.front().violation.property, "watchdog_expiry");
  EXPECT_FALSE(found.violations.front().violation.explained());
}

// A RedLock of three servers and a multi-lock explore to completion (the
// multi-lock client's state is fingerprinted: tests/search/fingerprint_test.cc):
// client 0's hold is broken by a pause past the lease, found in 9 events
// with the pause blamed, and proven by re-runs under --unexplained-only,
// with and without the validity check, with one and two workers alike.
// A spin lock: every schedule of two clients' lock,unlock with one fault is
// explored (its waiter polls at its back-off's cap, 128 ms, for the whole
// lease); the pause past the lease is found and proven, nothing is left
// unexplained; its client mutants are found in a few events.
TEST(Explore, ASpinLockIsExploredAndItsMutantsAreFound) {
  const Scenario s = small_scenario(2, "spin");
  const std::vector<ExploreFault> faults = {ExploreFault::Pause, ExploreFault::Crash, ExploreFault::Loss};
  const ExploreResult found = explore(config_for(s, "lock,unlock", faults, 1));
  EXPECT_TRUE(found.complete);
  bool pause = false;
  for (const ExploreCounterexample& cx : found.violations)
    pause = pause || (cx.violation.property == "mutual_exclusion" &&
                      cx.violation.blamed_fault.find("paused") != std::string::npos);
  EXPECT_TRUE(pause);
  ExploreConfig judged = config_for(s, "lock,unlock", faults, 1);
  judged.policy.unexplained_only = true;
  const ExploreResult clean = explore(judged);
  EXPECT_TRUE(clean.complete);
  EXPECT_TRUE(clean.violations.empty());
  EXPECT_GT(clean.explained.count("mutual_exclusion"), 0u);

  Scenario no_growth = s;
  no_growth.mutant = ClientMutant::BackoffNoGrowth;
  ExploreConfig busy = config_for(no_growth, "lock,unlock", faults, 1);
  busy.policy.fail_on.insert("busy_poll");
  busy.policy.unexplained_only = true;
  const ExploreResult spun = explore(busy);
  ASSERT_FALSE(spun.violations.empty());
  EXPECT_EQ(spun.violations.front().violation.property, "busy_poll");
  EXPECT_LE(spun.violations.front().events.size(), 25u);
  Scenario kept = s;
  kept.mutant = ClientMutant::WatchdogNotCancelled;
  ExploreConfig renewing = config_for(kept, "lock,unlock", faults, 1);
  renewing.policy.unexplained_only = true;
  const ExploreResult renewed = explore(renewing);
  ASSERT_FALSE(renewed.violations.empty());
  EXPECT_EQ(renewed.violations.front().violation.property, "watchdog_expiry");
  EXPECT_LE(renewed.violations.front().events.size(), 25u);
}

TEST(Explore, ARedLockIsExploredAndItsPauseIsProven) {
  Scenario s = small_scenario(2, "redlock");
  s.servers = 3;
  const std::string ops = "lock,unlock;sleep:30500,tryonce,unlock";
  const std::vector<ExploreFault> faults = {ExploreFault::Pause, ExploreFault::Crash, ExploreFault::Loss};
  ExploreConfig c = config_for(s, ops, faults, 2);
  const ExploreResult found = explore(c);
  EXPECT_TRUE(found.complete);
  ASSERT_FALSE(found.violations.empty());
  const ExploreCounterexample& first = found.violations.front();
  EXPECT_EQ(first.violation.property, "mutual_exclusion");
  EXPECT_EQ(first.events.size(), 9u);
  ASSERT_EQ(first.violation.facts.blamed_fault_ids.size(), 1u) << first.violation.blamed_fault;
  const uint64_t blamed = first.violation.facts.blamed_fault_ids.front();
  ASSERT_LT(blamed, first.events.size());
  EXPECT_EQ(first.events[blamed].kind, EventKind::Fault);
  EXPECT_EQ(first.events[blamed].op, Op::Pause);
  for (const bool validity : {false, true}) {
    SCOPED_TRACE(validity ? "--validity" : "no validity check");
    s.validity = validity;
    ExploreConfig judged = config_for(s, ops, faults, 2);
    judged.policy.unexplained_only = true;
    judged.workers = 1;
    const ExploreResult one = explore(judged);
    judged.workers = 2;
    const ExploreResult two = explore(judged);
    EXPECT_TRUE(one.complete);
    EXPECT_TRUE(one.violations.empty());
    EXPECT_GT(one.explained.count("mutual_exclusion"), 0u);
    EXPECT_EQ(everything(judged, one).dump(), everything(judged, two).dump());
  }
  Scenario multi = small_scenario(2, "multi");
  multi.servers = 3;
  ExploreConfig m = config_for(multi, "lock,unlock", faults, 1);
  m.policy.unexplained_only = true;
  const ExploreResult group = explore(m);
  EXPECT_TRUE(group.complete);
  EXPECT_TRUE(group.violations.empty());
  EXPECT_GT(group.distinct_states, 1000u);
}

// Breadth first, the first counterexample is a shortest one: a depth-first
// search of the same configuration finds none shorter.
TEST(Explore, BreadthFirstCounterexampleIsNoLongerThanDepthFirst) {
  ExploreConfig c = config_for(small_scenario(2), "lock,unlock", {ExploreFault::Pause}, 1);
  const ExploreResult bfs = explore(c);
  c.order = ExploreOrder::DepthFirst;
  const ExploreResult dfs = explore(c);
  ASSERT_FALSE(bfs.violations.empty());
  ASSERT_FALSE(dfs.violations.empty());
  EXPECT_EQ(bfs.distinct_states, dfs.distinct_states);  // both complete: the same states
  EXPECT_TRUE(bfs.complete && dfs.complete);
  EXPECT_LE(bfs.violations.front().depth, dfs.violations.front().depth);
}

// A script mutant whose release does not check the owner: a client that
// never locked releases the other's lock. Found in a few transitions; the
// correct scripts pass the same configuration, and a small rlock
// configuration with crashes, losses and delays is clean on them.
TEST(Explore, FindsTheReleaseMutantAndTheCorrectPackIsClean) {
  const std::string ops = "lock,unlock;unlock";
  const ExploreResult mutant = explore(config_for(small_scenario(2, "rlock", ModelVariant::ReleaseNoOwnerCheck), ops, {}, 0));
  ASSERT_EQ(mutant.violations.size(), 1u);
  EXPECT_EQ(mutant.violations.front().violation.property, "reentrancy");
  EXPECT_LE(mutant.violations.front().events.size(), 4u);
  EXPECT_TRUE(mutant.complete);

  const ExploreResult correct = explore(config_for(small_scenario(2), ops, {}, 0));
  EXPECT_TRUE(correct.complete);
  EXPECT_TRUE(correct.violations.empty());

  const ExploreResult faults = explore(
      config_for(small_scenario(2), "lock,unlock", {ExploreFault::Crash, ExploreFault::Loss, ExploreFault::Delay}, 2));
  EXPECT_TRUE(faults.complete);
  EXPECT_TRUE(faults.violations.empty());
  EXPECT_GT(faults.distinct_states, 1000u);
}

// A client mutant (the watchdog is not cancelled on unlock) is found too.
TEST(Explore, FindsAClientMutant) {
  Scenario s = small_scenario(1);
  s.mutant = ClientMutant::WatchdogNotCancelled;
  const ExploreResult r = explore(config_for(s, "lock,unlock", {}, 0));
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.front().violation.property, "watchdog_expiry");
}

// The counterexample's plan, written into a trace header as JSON and read
// back, replays the explored history exactly (what `locksim replay` does),
// and the violation shows again.
TEST(Explore, CounterexampleTraceReplays) {
  const ExploreResult r =
      explore(config_for(small_scenario(2), "lock,unlock", {ExploreFault::Pause, ExploreFault::Loss}, 2));
  ASSERT_FALSE(r.violations.empty());
  for (const ExploreCounterexample& cx : r.violations) {
    ASSERT_TRUE(cx.plan.schedule.has_value());
    const ExplicitPlan back = explicit_plan_from_json(cx.plan.scenario, explicit_plan_to_json(cx.plan));
    EXPECT_EQ(back.schedule, cx.plan.schedule);
    EXPECT_EQ(back.tasks, cx.plan.tasks);
    TraceHeader header = make_trace_header(cx.plan.scenario, "model");
    header.plan = explicit_plan_to_json(cx.plan);
    std::stringstream trace;
    {
      ModelBackend backend;
      TraceWriter writer(trace, header);
      run_explicit(cx.plan, backend, writer);
      writer.close();
    }
    TraceReader reader(trace, "counterexample");
    ModelBackend backend;
    CheckerSuite suite(default_check_config());
    const ReplayResult replay = replay_trace(reader, backend, &suite);
    EXPECT_TRUE(replay.identical());
    suite.finish();
    bool seen = false;
    for (const Violation& v : suite.violations()) seen = seen || v.property == cx.violation.property;
    EXPECT_TRUE(seen) << cx.violation.to_string();
  }
}

// A schedule that does not fit the run (a pick beyond the candidates) is
// refused, not ignored.
TEST(Explore, AScheduleThatDoesNotFitIsRefused) {
  ExplicitPlan plan = explore_plan(small_scenario(2), "tryonce:1000", 10, 1000, 60'000);
  plan.schedule->picks.push_back(ScheduledPick{0, 5});
  ModelBackend backend;
  VectorSink sink;
  EXPECT_THROW(run_explicit(plan, backend, sink), ScenarioError);
}

// The pack's own Lua in process explores the same states as the model.
TEST(Explore, LuaBackendExploresTheSameStatesAsTheModel) {
  ExploreConfig c = config_for(small_scenario(2), "lock,unlock", {ExploreFault::Pause}, 1);
  const ExploreResult model = explore(c);
  LuaBackendSource lua(ScriptPack::load(ScriptPack::default_dir()));
  const ExploreResult on_lua = run_explore(c, {&lua});
  EXPECT_EQ(everything(c, model)["counts"], everything(c, on_lua)["counts"]);
  ASSERT_EQ(model.violations.size(), on_lua.violations.size());
  for (size_t i = 0; i < model.violations.size(); ++i) {
    EXPECT_EQ(model.violations[i].events, on_lua.violations[i].events);
  }
}

// A source (model, lua) without copies: it makes no copyable backend, so
// every run is built anew and replays from the start.
template <class Source>
class BuiltAnew final : public BackendSource {
 public:
  template <class... Args>
  explicit BuiltAnew(Args&&... args) : source_(std::forward<Args>(args)...) {}
  std::string kind() const override { return source_.kind(); }
  Backend& fresh(const Scenario& scenario) override { return source_.fresh(scenario); }

 private:
  Source source_;
};

// Runs restored from copies (the start's, checkpoints) take the same
// transitions as runs built anew: the same states, counts and
// counterexamples, on one worker and on two; and the copies save work.
TEST(Explore, CopiesFindWhatRunsBuiltAnewFind) {
  struct Case {
    std::string name;
    Scenario scenario;
    std::string ops;
    std::vector<ExploreFault> faults;
    int max_faults;
    ExploreOrder order;
    uint64_t max_memory_bytes = 0;  // 0: the default
  };
  Scenario mixed = small_scenario(2, "mixed");
  mixed.servers = 2;
  mixed.locks = 2;
  const std::vector<Case> cases = {
      {"rlock", small_scenario(2), "lock,unlock,lock,unlock",
       {ExploreFault::Crash, ExploreFault::Pause, ExploreFault::Loss}, 2, ExploreOrder::BreadthFirst},
      {"rlock clocks", small_scenario(2), "lock,unlock", {ExploreFault::ClientClock, ExploreFault::Delay}, 2,
       ExploreOrder::DepthFirst},
      {"fair", small_scenario(2, "fair"), "lock,unlock", {ExploreFault::Crash, ExploreFault::Loss}, 1,
       ExploreOrder::BreadthFirst},
      {"mixed servers", mixed, "lock@0,unlock@0;lock@1,unlock@1",
       {ExploreFault::Restart, ExploreFault::ServerClock}, 1, ExploreOrder::BreadthFirst},
      {"walks", small_scenario(2), "lock,unlock", {ExploreFault::Pause, ExploreFault::Loss}, 1,
       ExploreOrder::RandomWalk},
      // Room for the search but for few checkpoints: nodes are copied for
      // their other children instead.
      {"rlock, little memory", small_scenario(2), "lock,unlock,lock,unlock",
       {ExploreFault::Crash, ExploreFault::Pause, ExploreFault::Loss}, 2, ExploreOrder::BreadthFirst, 4u << 20},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    ExploreConfig c = config_for(k.scenario, k.ops, k.faults, k.max_faults);
    c.order = k.order;
    if (k.max_memory_bytes > 0) c.max_memory_bytes = k.max_memory_bytes;
    c.walks = 200;
    std::string one_worker;  // everything the search found on one worker
    for (const int workers : {1, 2}) {
      SCOPED_TRACE(workers);
      c.workers = workers;
      const ExploreResult copied = explore(c);
      // Two workers find the same as one.
      if (workers == 1) one_worker = everything(c, copied).dump();
      EXPECT_EQ(everything(c, copied).dump(), one_worker);
      if (workers == 2 && k.order == ExploreOrder::BreadthFirst) {
        // So do chunks small enough to be expanded while the one before is
        // merged from the first levels on, where the counterexamples are.
        ExploreConfig small_chunks = c;
        small_chunks.chunk_nodes = 16;
        EXPECT_EQ(everything(c, explore(small_chunks)).dump(), one_worker);
      }
      std::vector<std::unique_ptr<BuiltAnew<ModelBackendSource>>> anew;
      std::vector<BackendSource*> ptrs;
      for (int w = 0; w < workers; ++w) {
        anew.push_back(std::make_unique<BuiltAnew<ModelBackendSource>>());
        ptrs.push_back(anew.back().get());
      }
      const ExploreResult built = run_explore(c, ptrs);
      EXPECT_GT(copied.distinct_states, 10u);
      EXPECT_EQ(everything(c, copied).dump(), everything(c, built).dump());
      if (k.max_memory_bytes > 0) {
        EXPECT_TRUE(copied.complete);
        EXPECT_LT(copied.replayed_transitions, built.replayed_transitions);
      }
      if (k.order == ExploreOrder::BreadthFirst && workers == 1 && k.name == "rlock") {
        EXPECT_LT(copied.replayed_transitions * 2, built.replayed_transitions);  // checkpoints save replays
      }
    }
  }
}

// The same on the lua backend: a pack's own Lua states live in the arena
// too, and give what runs built anew give.
TEST(Explore, LuaCopiesFindWhatLuaRunsBuiltAnewFind) {
  const ScriptPack pack = ScriptPack::load(ScriptPack::default_dir());
  for (const std::string lock : {"rlock", "fair"}) {
    SCOPED_TRACE(lock);
    ExploreConfig c = config_for(small_scenario(2, lock), "lock,unlock", {ExploreFault::Crash, ExploreFault::Loss}, 1);
    LuaBackendSource copied_source(pack);
    BuiltAnew<LuaBackendSource> anew_source(pack);
    const ExploreResult copied = run_explore(c, {&copied_source});
    const ExploreResult built = run_explore(c, {&anew_source});
    EXPECT_GT(copied.distinct_states, 10u);
    EXPECT_EQ(everything(c, copied).dump(), everything(c, built).dump());
  }
}

TEST(Explore, LimitsStopTheSearchAndSaySo) {
  ExploreConfig c = config_for(small_scenario(2), "lock,unlock", {ExploreFault::Pause, ExploreFault::Loss}, 1);
  c.max_states = 50;
  const ExploreResult states = explore(c);
  EXPECT_FALSE(states.complete);
  EXPECT_EQ(states.limit, "max-states");
  c.max_states = 10'000'000;
  c.max_depth = 5;
  const ExploreResult depth = explore(c);
  EXPECT_FALSE(depth.complete);
  EXPECT_EQ(depth.limit, "max-depth");
  EXPECT_LE(depth.max_depth, 5u);
  c.max_depth = 100'000;
  c.order = ExploreOrder::RandomWalk;
  c.walks = 5;
  const ExploreResult walks = explore(c);
  EXPECT_FALSE(walks.complete);
  EXPECT_EQ(walks.limit, "walks");
}

TEST(ExploreSetup, BadOperationsAreRefused) {
  EXPECT_THROW(parse_explore_ops("lock,,unlock", 1, 10), std::invalid_argument);
  EXPECT_THROW(parse_explore_ops("grab", 1, 10), std::invalid_argument);
  EXPECT_THROW(parse_explore_ops("lock@1", 1, 10), std::invalid_argument);
  EXPECT_THROW(parse_explore_ops("trylock", 1, 10), std::invalid_argument);
  EXPECT_THROW(parse_explore_ops("lock:0", 1, 10), std::invalid_argument);
  EXPECT_THROW(explore_plan(small_scenario(3), "lock;unlock", 10, 1000, 60'000), std::invalid_argument);
  const std::vector<ExplicitOp> ops = parse_explore_ops("trylock:500:2000@1,unlock@1", 2, 7);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].kind, ExplicitOp::Kind::TryLock);
  EXPECT_EQ(ops[0].wait_ms, 500);
  EXPECT_EQ(ops[0].lease_ms, 2000);
  EXPECT_EQ(ops[0].lock, 1);
  EXPECT_EQ(ops[1].delay_us, 7000);
}

// '@' names a lock by its index: a name (L9) or an index past --locks is
// said to be out of range, never taken for a number of ms.
TEST(ExploreSetup, AnAtNamesALockIndex) {
  for (const char* ops : {"lock@L9", "lock@9", "lock@-1", "lock@"}) {
    try {
      parse_explore_ops(ops, 2, 10);
      ADD_FAILURE() << ops << " was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("lock index"), std::string::npos) << what;
      EXPECT_NE(what.find("out of range"), std::string::npos) << what;
      EXPECT_NE(what.find("0 to 1"), std::string::npos) << what;
      EXPECT_EQ(what.find("whole number of ms"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace locksim
