// Review timelines: what the recording keeps of a hand-built history for
// drawing (believed holds, the pause span, the lease ending at its expiry,
// the overlap), the time axis with a collapsed quiet stretch, the DOT text
// (red overlap, named events, determinism, every node placed for neato -n2),
// the rendered SVG (lanes, labels inside the canvas, the overlap drawn once),
// the violation window rule, and a real rendering of a large window.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <tuple>
#include <sstream>

#include "properties/history_recording.h"
#include "properties/saturating_time.h"
#include "search/campaign.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "traces/event_sink.h"
#include "reports/time_axis.h"
#include "reports/timeline.h"
#include "reports/timeline_review.h"
#include "reports/review_findings.h"
#include "reports/review_layout.h"
#include "reports/review_text.h"
#include "reports/violation_window.h"
#include "tests/svg_check.h"
#include "tests/lock_kind_of.h"

namespace locksim {
namespace {

const std::string kA = "aaaaaaaa-0000:1";
const std::string kB = "bbbbbbbb-0000:1";

// A history builder: ids in order, times in ms (the server clock = true time).
class History {
 public:
  Event& add(EventKind kind, double at_ms, int client, const std::string& op) {
    Event e;
    e.id = events.size();
    e.true_us = static_cast<int64_t>(at_ms * 1000);
    e.kind = kind;
    e.client = client;
    e.op = op_from_name(op).value();
    e.lock.assign("L0");
    events.push_back(e);
    return events.back();
  }
  Event& op(EventKind kind, double at_ms, int client, const std::string& owner, const std::string& op, uint64_t op_id) {
    Event& e = add(kind, at_ms, client, op);
    e.owner.assign(owner);
    e.op_id = op_id;
    return e;
  }
  Event& script(double at_ms, int client, const std::string& owner, const std::string& name, const std::string& reply,
                std::vector<std::string> holders, uint64_t op_id) {
    Event& e = op(EventKind::Script, at_ms, client, owner, "lock", op_id);
    e.server = 0;
    e.script = name;
    e.reply = EventReply::parse(reply);
    e.server_ms = e.true_us / 1000;
    e.lease_ms = 30000;
    e.holders_after = std::move(holders);
    return e;
  }
  Event& fault(double at_ms, int target, const std::string& op, int64_t duration_ms) {
    Event& e = add(EventKind::Fault, at_ms, target, op);
    e.lock.clear();
    e.target = target;
    e.duration_ms = duration_ms;
    return e;
  }
  std::vector<Event> events;
};

// The classic: A (client 0) acquires, renews once, is paused 41 s; its lease
// expires at 40 s; B (client 1), waiting, acquires at 40.5 s; A resumes at
// 51 s and unlocks (refused: not held any more).
std::vector<Event> classic_pause() {
  History h;
  h.op(EventKind::Invoke, 0, 0, kA, "lock", 1);                              // #0
  h.script(1, 0, kA, "rlock_acquire", "nil", {kA}, 1);                       // #1
  h.op(EventKind::Ok, 2, 0, kA, "lock", 1).value = 1;                        // #2
  h.op(EventKind::Invoke, 100, 1, kB, "lock", 2);                            // #3
  h.script(101, 1, kB, "rlock_acquire", "29900", {kA}, 2);                   // #4
  h.script(10001, 0, kA, "rlock_renew", "1", {kA}, 3).op = Op::Renew;          // #5: expiry 40 001 ms
  h.fault(10002, 0, "pause", 41000);                                         // #6
  h.script(40500, 1, kB, "rlock_acquire", "nil", {kB}, 2);                   // #7
  h.op(EventKind::Ok, 40501, 1, kB, "lock", 2).value = 1;                    // #8
  h.fault(51002, 0, "resume", 0);                                            // #9
  h.op(EventKind::Invoke, 51003, 0, kA, "unlock", 4);                        // #10
  h.script(51004, 0, kA, "rlock_release", "nil", {kB}, 4).op = Op::Unlock;     // #11
  h.op(EventKind::Fail, 51005, 0, kA, "unlock", 4).reason = EndReason::IllegalMonitorState;  // #12
  return h.events;
}

HistoryRecording record(const std::vector<Event>& events) { return record_history(events, default_check_config()); }

TEST(Recording, ClassicPause) {
  const HistoryRecording iv = record(classic_pause());
  ASSERT_EQ(iv.holds.size(), 2u);
  const RecordedHold& a = iv.holds[0];
  EXPECT_EQ(a.owner, kA);
  EXPECT_EQ(a.start_event, 2u);
  EXPECT_EQ(a.end_event, 10u);  // the unlock Invoke
  EXPECT_EQ(a.end, RecordedHold::End::Released);
  const RecordedHold& b = iv.holds[1];
  EXPECT_EQ(b.owner, kB);
  EXPECT_EQ(b.start_event, 8u);
  EXPECT_EQ(b.end, RecordedHold::End::Open);
  EXPECT_EQ(b.end_us, iv.end_us);

  ASSERT_EQ(iv.leases.size(), 2u);
  const RecordedLease& la = iv.leases[0];
  EXPECT_EQ(la.owner, kA);
  EXPECT_EQ(la.start_event, 1u);
  ASSERT_EQ(la.renewals.size(), 1u);
  EXPECT_EQ(la.renewals[0].event_id, 5u);
  EXPECT_EQ(la.end, RecordedLease::End::Expired);
  EXPECT_EQ(la.end_us, 40'001'000);  // renewal at server 10 001 ms + 30 000 ms
  EXPECT_EQ(la.believed_hold, 0);    // A still believed it held the lock then
  EXPECT_EQ(iv.leases[1].owner, kB);
  EXPECT_EQ(iv.leases[1].start_us, 40'500'000);

  ASSERT_EQ(iv.faults.size(), 1u);
  EXPECT_EQ(iv.faults[0].op, Op::Pause);
  EXPECT_EQ(iv.faults[0].client, 0);
  EXPECT_EQ(iv.faults[0].start_us, 10'002'000);
  EXPECT_EQ(iv.faults[0].end_us, 51'002'000);  // the resume
  EXPECT_EQ(iv.faults[0].end_event, 9u);

  ASSERT_EQ(iv.waits.size(), 2u);  // A's lock, B's lock (40.4 s); an unlock is no wait
  EXPECT_EQ(iv.waits[1].owner, kB);
  EXPECT_EQ(iv.waits[1].outcome, RecordedWait::Outcome::Acquired);
  EXPECT_EQ(iv.waits[1].end_event, 8u);
  EXPECT_EQ(iv.waits[1].polls, 2);

  ASSERT_EQ(iv.overlaps.size(), 1u);
  EXPECT_EQ(iv.overlaps[0].start_us, 40'501'000);
  EXPECT_EQ(iv.overlaps[0].end_us, 51'003'000);
  EXPECT_TRUE(iv.overlaps[0].reported);
  EXPECT_EQ(iv.clients, (std::set<int>{0, 1}));
  EXPECT_EQ(iv.servers, (std::set<int>{0}));
}

// Times and leases at the ends of int64 (a hand-written trace may name any):
// the reading saturates instead of overflowing (run it under UBSan; the
// whole drawing is tested so in test_timeline_extremes.cc).
TEST(Recording, ExtremeTimesAndLeasesDoNotOverflow) {
  std::vector<Event> events = classic_pause();
  for (Event& e : events) {
    e.true_us = INT64_MAX - 100 + static_cast<int64_t>(e.id);
    if (e.lease_ms > 0) e.lease_ms = int64_t{1} << 62;
    if (e.server_ms > 0) e.server_ms = INT64_MAX / 2;
  }
  const HistoryRecording rec = record(events);
  EXPECT_EQ(rec.holds.size(), 2u);
  for (const RecordedLease& l : rec.leases) EXPECT_GE(l.end_us, l.start_us);
}

TEST(Recording, ReleaseDeletesAndRestartLosesTheLease) {
  History h;
  h.op(EventKind::Invoke, 0, 0, kA, "lock", 1);
  h.script(1, 0, kA, "rlock_acquire", "nil", {kA}, 1);
  h.op(EventKind::Ok, 2, 0, kA, "lock", 1).value = 1;
  h.op(EventKind::Invoke, 5, 0, kA, "unlock", 2);
  h.script(6, 0, kA, "rlock_release", "1", {}, 2).op = Op::Unlock;  // #4: deleted
  h.op(EventKind::Ok, 7, 0, kA, "unlock", 2).value = 1;
  h.op(EventKind::Invoke, 10, 1, kB, "lock", 3);
  h.script(11, 1, kB, "rlock_acquire", "nil", {kB}, 3);
  h.op(EventKind::Ok, 12, 1, kB, "lock", 3).value = 1;
  Event& restart = h.fault(20, -1, "redis_restart", 0);  // #9
  restart.client = -1;
  restart.target = 0;
  restart.server = 0;
  h.op(EventKind::Info, 30000, 1, kB, "hold_lost", 0);  // renewal answered 0
  const HistoryRecording iv = record(h.events);
  ASSERT_EQ(iv.leases.size(), 2u);
  EXPECT_EQ(iv.leases[0].end, RecordedLease::End::Deleted);
  EXPECT_EQ(iv.leases[0].end_event, 4u);
  EXPECT_EQ(iv.leases[1].end, RecordedLease::End::ServerReset);
  EXPECT_EQ(iv.leases[1].end_event, 9u);
  EXPECT_EQ(iv.leases[1].reset_by, Op::RedisRestart);
  EXPECT_FALSE(iv.leases[1].data_kept);
  ASSERT_EQ(iv.holds.size(), 2u);
  EXPECT_EQ(iv.holds[0].end, RecordedHold::End::Released);
  EXPECT_EQ(iv.holds[1].end, RecordedHold::End::Lost);
  EXPECT_TRUE(iv.overlaps.empty());
  ASSERT_EQ(iv.faults.size(), 1u);
  EXPECT_EQ(iv.faults[0].server, 0);
  EXPECT_TRUE(iv.faults[0].instant);
}

TEST(Recording, CrashPartitionClockJumpsAndServerClockMovesTheExpiry) {
  History h;
  h.op(EventKind::Invoke, 0, 0, kA, "lock", 1);
  h.script(1, 0, kA, "rlock_acquire", "nil", {kA}, 1);  // expiry at server 30 001 ms
  h.op(EventKind::Ok, 2, 0, kA, "lock", 1).value = 1;
  h.fault(1000, 1, "partition", 5000);                  // #3, healed at #4
  h.fault(3000, 1, "heal", 0);
  h.fault(4000, 1, "clock_jump", 45000);                // #5: a client's clock
  Event& jump = h.fault(5000, -1, "clock_jump", 20000); // #6: server 0's clock, 20 s forward
  jump.client = -1;
  jump.target = 0;
  jump.server = 0;
  h.op(EventKind::Invoke, 5500, 0, kA, "lock", 2);      // #7: a reentrant acquire, waiting
  h.fault(6000, 0, "crash", 0);                          // #8: A's hold and wait end
  h.fault(9000, 0, "restart", 0);                        // #9
  h.add(EventKind::Deliver, 12000, 1, "");               // #10: after the expiry
  const HistoryRecording iv = record(h.events);
  ASSERT_EQ(iv.holds.size(), 1u);
  EXPECT_EQ(iv.holds[0].end, RecordedHold::End::Crashed);
  EXPECT_EQ(iv.holds[0].end_event, 8u);
  ASSERT_EQ(iv.waits.size(), 2u);
  EXPECT_EQ(iv.waits[1].outcome, RecordedWait::Outcome::Crashed);
  EXPECT_EQ(iv.waits[1].end_event, 8u);
  ASSERT_EQ(iv.leases.size(), 1u);
  EXPECT_EQ(iv.leases[0].end, RecordedLease::End::Expired);
  EXPECT_EQ(iv.leases[0].end_us, 10'001'000);  // 30 001 ms on a server clock 20 s ahead
  EXPECT_EQ(iv.leases[0].believed_hold, -1);   // its holder had crashed
  ASSERT_EQ(iv.faults.size(), 4u);
  EXPECT_EQ(iv.faults[0].op, Op::Partition);
  EXPECT_EQ(iv.faults[0].end_us, 3'000'000);  // healed early
  EXPECT_EQ(iv.faults[1].op, Op::ClockJump);
  EXPECT_EQ(iv.faults[1].client, 1);
  EXPECT_TRUE(iv.faults[1].instant);
  EXPECT_EQ(iv.faults[1].label, "clock +45.0 s");
  EXPECT_EQ(iv.faults[2].op, Op::ClockJump);
  EXPECT_EQ(recorded_fault_name(iv.faults[2]), "server_clock_jump");
  EXPECT_EQ(iv.faults[2].server, 0);
  EXPECT_EQ(iv.faults[3].op, Op::Crash);
  EXPECT_EQ(iv.faults[3].end_us, 9'000'000);
  EXPECT_EQ(iv.faults[3].label, "crashed, down 3.0 s");
  EXPECT_EQ(iv.clients, (std::set<int>{0, 1}));
  EXPECT_EQ(iv.servers, (std::set<int>{0}));
}

TEST(TimeAxis, ProportionalStretchesAndACollapsedQuietBand) {
  std::vector<int64_t> instants;
  for (int i = 0; i <= 50; ++i) instants.push_back(i * 10'000);            // 0..500 ms, every 10 ms
  for (int i = 0; i <= 50; ++i) instants.push_back(60'000'000 + i * 10'000);  // again 60 s later
  const TimeAxis axis(instants, TimeAxisOptions{});
  ASSERT_EQ(axis.bands().size(), 1u);
  EXPECT_EQ(axis.bands()[0].start_us, 500'000);
  EXPECT_EQ(axis.bands()[0].end_us, 60'000'000);
  ASSERT_EQ(axis.stretches().size(), 2u);
  // Same scale in both stretches; the band is narrow.
  EXPECT_NEAR(axis.x_pt(500'000) - axis.x_pt(0), axis.x_pt(60'500'000) - axis.x_pt(60'000'000), 1e-6);
  EXPECT_NEAR(axis.x_pt(60'000'000) - axis.x_pt(500'000), TimeAxis::kBandWidthPt, 1e-6);
  // Monotone everywhere, inside the band too.
  double last = -1e18;
  for (int64_t t = 0; t <= 61'000'000; t += 250'000) {
    EXPECT_GE(axis.x_pt(t), last);
    last = axis.x_pt(t);
  }
  EXPECT_FALSE(axis.ticks().empty());
  // A short counterexample (seconds apart, no dense cluster) is one linear stretch.
  const TimeAxis linear({0, 5'000'000, 30'000'000, 40'000'000}, TimeAxisOptions{});
  EXPECT_TRUE(linear.bands().empty());
  // An explicit threshold wins.
  TimeAxisOptions quiet_2s;
  quiet_2s.quiet_us = 2'000'000;
  EXPECT_EQ(TimeAxis({0, 5'000'000, 30'000'000, 31'000'000}, quiet_2s).bands().size(), 2u);
}

std::string render_svg(const std::string& dot, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("locksim-review-svg-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  render_timeline(dot, (dir / name).string(), "svg");
  std::ifstream in(dir / name);
  std::stringstream svg;
  svg << in.rdbuf();
  std::filesystem::remove_all(dir);
  return svg.str();
}

TEST(ReviewTimeline, ClassicPauseShowsHoldsPauseLeaseExpiryAndRedOverlap) {
  TimelineOptions opts;
  opts.title = "classic pause";
  opts.highlight_ids = {2, 8};
  const std::string dot = timeline_dot(classic_pause(), opts);  // the review view is the default
  EXPECT_EQ(dot, review_dot(record(classic_pause()), classic_pause(), opts));
  // Lanes.
  EXPECT_NE(dot.find("label=\"client 0\\l\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"client 1\\l\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"redis 0\\l\""), std::string::npos);
  // A's and B's hold bars (A's with its renewal), A's pause span, A's lease
  // ending at its expiry, B's lease.
  EXPECT_NE(dot.find("holds L0 #2 - unlock #10, 51.0 s, 1 renewal"), std::string::npos);
  EXPECT_NE(dot.find("holds L0 #8 - still held, at least 10.5 s"), std::string::npos);
  EXPECT_NE(dot.find("pause 41.0 s"), std::string::npos);
  EXPECT_NE(dot.find("lease L0 (client 0, 30.0 s), 1 renewal - expired while client 0 believed it held"),
            std::string::npos);
  EXPECT_NE(dot.find("lease L0 (client 1, 30.0 s)"), std::string::npos);
  EXPECT_NE(dot.find("lease of client 0 expired at 40.00 s (30.0 s after its last renewal), still believed held"),
            std::string::npos);  // a dashed line across the lanes
  // The overlap in red, said in words, and the named events in red with their ids.
  EXPECT_NE(dot.find("fillcolor=\"#d50000\", color=\"#b71c1c\""), std::string::npos);
  EXPECT_NE(dot.find("Both believe they hold L0 for 10.5 s: client 0 (c0:1, since #2) and client 1 (c1:1, acquired #8)"),
            std::string::npos);
  EXPECT_NE(dot.find("#2 lock ok c0:1"), std::string::npos);
  EXPECT_NE(dot.find("#8 lock ok c1:1"), std::string::npos);
  // Deterministic.
  EXPECT_EQ(dot, timeline_dot(classic_pause(), opts));
  // The rendered SVG: its lanes, the violating events, one overlap, every
  // label inside the canvas.
  const testing::Svg svg = testing::parse_svg(render_svg(dot, "classic.svg"));
  EXPECT_TRUE(svg.has_text("client 0"));
  EXPECT_TRUE(svg.has_text("client 1"));
  EXPECT_TRUE(svg.has_text("redis 0"));
  EXPECT_TRUE(svg.has_text("#2 lock ok c0:1"));
  EXPECT_TRUE(svg.has_text("#8 lock ok c1:1"));
  EXPECT_EQ(svg.count_class("overlap"), 1u);
  EXPECT_EQ(svg.texts_off_canvas(), std::vector<std::string>{});
}

// A hold still open when the window begins is drawn from its real acquire,
// never "from before the window"; the window's info line says what it shows.
TEST(ReviewTimeline, AWindowDrawsTheHoldOpenAtItsStartFromItsAcquire) {
  const std::vector<Event> all = classic_pause();
  const std::vector<Event> window(all.begin() + 6, all.end());  // #6 (the pause) to #12
  TimelineOptions opts;
  opts.total_events = all.size();
  const std::string dot = review_dot(record_history(all, default_check_config(), 6, 12), window, opts);
  EXPECT_NE(dot.find("holds L0 since #2 at 0.0 s - unlock #10"), std::string::npos);
  EXPECT_EQ(dot.find("before the window"), std::string::npos);
  EXPECT_NE(dot.find("events #6 to #12: 7 events of 13"), std::string::npos);
  EXPECT_NE(dot.find("Both believe they hold L0"), std::string::npos);  // the overlap of #2 and #8, in the window
}

// Every overlap a violation's timeline draws is one the mutual-exclusion
// checker reports (same first hold, same acquire), and every report whose
// acquire is in the window is drawn, over hostile campaigns of every lock
// kind: 300 seeds of each (LOCKSIM_RECORDING_SEEDS=N runs N; README,
// Timelines).
TEST(ReviewTimeline, DrawnOverlapsAreTheCheckersOnHostileCampaigns) {
  const char* env = std::getenv("LOCKSIM_RECORDING_SEEDS");
  const int seeds = env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 300;
  size_t drawn_total = 0;
  for (const auto& [lock, locks, servers] : std::vector<std::tuple<const char*, int, int>>{
           {"rlock", 1, 1}, {"fair", 1, 1}, {"mixed", 2, 1}, {"multi", 1, 3}, {"redlock", 1, 3}}) {
    CampaignOptions options;
    options.scenario.profile = Profile::named("hostile");
    options.scenario.lock_kind = testing::lock_kind_of(lock);
    options.scenario.locks = locks;
    options.scenario.servers = servers;
    const Scenario tmpl = campaign_template(options);
    for (int i = 0; i < seeds; ++i) {
      Scenario s = tmpl;
      s.seed = options.scenario.seed + static_cast<uint64_t>(i);
      VectorSink history;
      const ScenarioVerdict verdict = check_scenario(s, default_check_config(), &history);
      std::set<std::pair<uint64_t, uint64_t>> reported;  // (first hold's acquire, second's)
      const Violation* first = nullptr;
      for (const Violation& v : verdict.violations) {
        if (v.property != property::kMutualExclusion) continue;
        reported.insert({v.event_ids[0], v.event_ids[1]});
        if (first == nullptr) first = &v;
      }
      if (first == nullptr) continue;
      // The dot text of the violation's timeline: each overlap column is a
      // node of class "overlap ev e<acquire>", its tooltip "overlap of #a and #b".
      const std::string dot = violation_timeline_dot(history.events, *first, TimelineOptions{});
      const std::regex drawn_re(R"re(tooltip="overlap of #(\d+) and #(\d+)", class="overlap ev e\d+")re");
      std::set<std::pair<uint64_t, uint64_t>> drawn;
      for (auto it = std::sregex_iterator(dot.begin(), dot.end(), drawn_re); it != std::sregex_iterator(); ++it) {
        const std::pair<uint64_t, uint64_t> ids{std::stoull((*it)[1]), std::stoull((*it)[2])};
        EXPECT_TRUE(reported.count(ids)) << lock << " seed " << s.seed << ": drawn overlap #" << ids.first << " and #"
                                         << ids.second << " is not one the checker reports";
        EXPECT_TRUE(drawn.insert(ids).second) << lock << " seed " << s.seed << ": overlap #" << ids.first
                                              << " and #" << ids.second << " drawn twice";
      }
      // Every report whose acquire lies in the drawn window is drawn.
      std::smatch m;
      ASSERT_TRUE(std::regex_search(dot, m, std::regex(R"(events #(\d+) to #(\d+))")));
      const uint64_t from = std::stoull(m[1]), to = std::stoull(m[2]);
      for (const auto& ids : reported) {
        if (ids.second < from || ids.second > to) continue;
        EXPECT_TRUE(drawn.count(ids)) << lock << " seed " << s.seed << ": reported overlap #" << ids.first << " and #"
                                      << ids.second << " is not drawn";
      }
      EXPECT_GE(drawn.size(), 1u) << lock << " seed " << s.seed;
      drawn_total += drawn.size();
    }
  }
  EXPECT_GT(drawn_total, 0u);
}

// Every node carries a fixed position ("x,y!"), so `neato -n2` only draws.
void expect_every_node_placed(const std::string& dot) {
  std::istringstream lines(dot);
  std::string line;
  size_t nodes = 0;
  const std::regex node(R"(^  n\d+ \[)");
  while (std::getline(lines, line)) {
    if (!std::regex_search(line, node)) continue;
    ++nodes;
    EXPECT_NE(line.find("pos=\""), std::string::npos) << line;
    EXPECT_NE(line.find("!\""), std::string::npos) << line;
  }
  EXPECT_GT(nodes, 0u);
}

TEST(ReviewTimeline, LargeWindowIsPlacedAndRendersWithNeatoN2) {
  // 2,000 events: four clients taking turns, a pause now and then.
  History h;
  uint64_t op_id = 1;
  double t_ms = 0;
  for (int round = 0; h.events.size() < 2000; ++round) {
    const int c = round % 4;
    const std::string owner = "c" + std::to_string(c) + ":1";
    h.op(EventKind::Invoke, t_ms, c, owner, "lock", op_id);
    h.script(t_ms + 1, c, owner, "rlock_acquire", "nil", {owner}, op_id);
    h.op(EventKind::Ok, t_ms + 2, c, owner, "lock", op_id).value = 1;
    h.op(EventKind::Invoke, t_ms + 20, c, owner, "unlock", op_id + 1);
    h.script(t_ms + 21, c, owner, "rlock_release", "1", {}, op_id + 1).op = Op::Unlock;
    h.op(EventKind::Ok, t_ms + 22, c, owner, "unlock", op_id + 1).value = 1;
    if (round % 50 == 0) h.fault(t_ms + 23, c, "pause", 300);
    op_id += 2;
    t_ms += round % 100 == 99 ? 20'000 : 30;  // a quiet stretch every 100 rounds
  }
  TimelineOptions opts;
  opts.max_events = 2000;
  const std::string dot = timeline_dot(h.events, opts);
  expect_every_node_placed(dot);
  EXPECT_NE(dot.find("quiet"), std::string::npos);
  EXPECT_EQ(dot, timeline_dot(h.events, opts));
  const auto dir = std::filesystem::temp_directory_path() / ("locksim-review-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  render_timeline(dot, (dir / "big.svg").string(), "svg");
  std::ifstream in(dir / "big.svg");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("<svg"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// The checkers' violations of a history, as a campaign finds them.
std::vector<Violation> violations_of(const std::vector<Event>& events) {
  CheckerSuite suite(default_check_config());
  for (const Event& e : events) suite.on_event(e);
  suite.finish();
  return suite.violations();
}

// The DOT label of a left-aligned text node, as review_dot writes it.
std::string text_label(const std::string& text) { return "label=\"" + text + "\\l\""; }

// A violation's timeline says what went wrong in words: who paused past
// its lease, who took the lock; the caller's title (a file, a seed) is the
// grey line under it. With nothing to say in words the caller's title stays.
TEST(ReviewTimeline, TitleSaysWhatWentWrongInWords) {
  const std::vector<Event> events = classic_pause();
  const std::vector<Violation> found = violations_of(events);
  const auto overlap = std::find_if(found.begin(), found.end(), [](const Violation& v) { return v.property == "mutual_exclusion"; });
  ASSERT_NE(overlap, found.end());
  TimelineOptions opts;
  opts.title = "classic.jsonl: mutual_exclusion on L0 (violation 1)";
  const std::string words = "mutual exclusion on L0: client 0 paused 41.0 s past its lease while client 1 took the lock";
  const std::string dot = violation_timeline_dot(events, *overlap, opts);
  EXPECT_NE(dot.find(text_label(words)), std::string::npos);
  EXPECT_NE(dot.find("fontsize=9.0, fontcolor=\"#555555\", margin=0, " + text_label(opts.title)), std::string::npos);
  const testing::Svg svg = testing::parse_svg(render_svg(dot, "title.svg"));
  EXPECT_EQ(svg.title(), words);
  // A window with the overlap in it says the same without a focus.
  EXPECT_NE(review_dot(record(events), events, opts).find(text_label(words)), std::string::npos);
  // Before B's acquire there is nothing gone wrong: the title is the caller's.
  const std::vector<Event> before(events.begin(), events.begin() + 7);
  const std::string plain = review_dot(record(before), before, opts);
  EXPECT_EQ(plain.find("mutual exclusion on"), std::string::npos);
  EXPECT_EQ(testing::parse_svg(render_svg(plain, "plain.svg")).title(), opts.title);
}

// Where a quiet stretch is collapsed, the axis and every bar across it are
// broken, with the stretch's true length on the break; drawn to scale
// (nothing collapsed), no bar is.
TEST(ReviewTimeline, BarsAcrossACollapsedStretchAreBrokenWithTheirLength) {
  const std::vector<Event> events = classic_pause();
  TimelineOptions opts;
  opts.quiet_us = 2'000'000;
  const testing::Svg svg = testing::parse_svg(render_svg(review_dot(record(events), events, opts), "cut.svg"));
  // The stretches of the classic pause longer than 2 s: 9.9 s (renewal), 30.0 s
  // (to the expiry), 10.5 s (to the resume).
  for (const std::string length : {"9.9 s", "30.0 s", "10.5 s"}) {
    size_t on_bars = 0, on_axis = 0;
    for (const auto& t : svg.texts) {
      if (t.text != length) continue;
      (t.size_pt == 7 ? on_bars : on_axis)++;
      if (t.size_pt == 7) {
        EXPECT_NE(svg.lane_at(t.y_pt), "") << length;  // on a lane's bar
      }
    }
    EXPECT_EQ(on_axis, 1u) << length;
    EXPECT_GE(on_bars, 2u) << length;  // A's hold and its pause or its lease cross each
  }
  // A's hold label stays readable: it starts past the breaks it would touch.
  EXPECT_TRUE(svg.has_text("holds L0 #2 - unlock #10, 51.0 s, 1 renewal"));
  opts.quiet_us = 1'000'000'000;
  const testing::Svg to_scale = testing::parse_svg(render_svg(review_dot(record(events), events, opts), "scale.svg"));
  for (const auto& t : to_scale.texts) EXPECT_NE(t.size_pt, 7) << t.text;
}

// Labels inside bars stay legible: a label is wholly on one red band
// (white on red) or clear of every red band, never half on each; a
// renewal tick that would cross a label inside its bar is drawn as its two
// ends standing out of the bar. A (client 0) takes L0 with a 1 s lease and
// is paused 5 s; B (client 1) takes it at 1.1 s and holds it to 60 s,
// renewing every second from 6 s, under its label.
TEST(ReviewTimeline, LabelsInsideBarsAreNeverHalfOnRedNorCrossedByTicks) {
  History h;
  h.op(EventKind::Invoke, 0, 0, kA, "lock", 1);                                        // #0
  h.script(1, 0, kA, "rlock_acquire", "nil", {kA}, 1).lease_ms = 1000;                 // #1
  h.op(EventKind::Ok, 2, 0, kA, "lock", 1).value = 1;                                  // #2
  h.fault(3, 0, "pause", 5000);                                                        // #3
  h.op(EventKind::Invoke, 1100, 1, kB, "lock", 2);                                     // #4
  h.script(1101, 1, kB, "rlock_acquire", "nil", {kB}, 2);                              // #5
  h.op(EventKind::Ok, 1102, 1, kB, "lock", 2).value = 1;                               // #6
  h.fault(5003, 0, "resume", 0);                                                       // #7
  h.op(EventKind::Invoke, 5004, 0, kA, "unlock", 4);                                   // #8
  h.script(5005, 0, kA, "rlock_release", "nil", {kB}, 4).op = Op::Unlock;             // #9
  h.op(EventKind::Fail, 5006, 0, kA, "unlock", 4).reason = EndReason::IllegalMonitorState;  // #10
  std::vector<std::string> renewals;
  for (int k = 0; k < 9; ++k) {                                                        // #11 to #19
    Event& r = h.script(6000 + 1000 * k, 1, kB, "rlock_renew", "1", {kB}, 10 + static_cast<uint64_t>(k));
    r.op = Op::Renew;
    renewals.push_back("#" + std::to_string(r.id) + " renew L0 -> 1");
  }
  h.op(EventKind::Invoke, 60000, 1, kB, "unlock", 5);                                  // #20
  h.script(60001, 1, kB, "rlock_release", "1", {}, 5).op = Op::Unlock;                // #21
  h.op(EventKind::Ok, 60002, 1, kB, "unlock", 5).value = 1;                            // #22
  ASSERT_EQ(renewals.size(), 9u);
  const HistoryRecording rec = record(h.events);
  TimelineOptions opts;
  opts.quiet_us = 1'000'000'000;  // to scale
  const review::ReviewLayout layout = review::lay_out_review(rec, h.events, opts);
  size_t inside = 0, on_red = 0;
  for (const review::Lane& lane : layout.lanes) {
    for (const auto& [category, items] : lane.items) {
      for (const review::Item& item : items) {
        if (item.label.empty() || review::label_above(item) || item.label_x_pt >= item.x1_pt) continue;
        ++inside;
        const double x0 = item.label_x_pt, x1 = x0 + review::text_pt(item.label, 9, true);
        EXPECT_LE(x1, item.x1_pt) << item.label;
        for (const review::Band& b : item.bands) {
          if (b.fill != review::kRed || x1 <= b.x0_pt || x0 >= b.x1_pt) continue;
          ++on_red;
          EXPECT_TRUE(x0 >= b.x0_pt && x1 <= b.x1_pt) << item.label << " is half on red";
        }
      }
    }
  }
  EXPECT_GE(inside, 1u);
  EXPECT_EQ(on_red, 0u);  // neither hold's red stretch holds its label: A's goes after its bar, B's after its red
  const testing::Svg svg = testing::parse_svg(render_svg(review_dot(rec, h.events, opts), "labels.svg"));
  const auto label = std::find_if(svg.texts.begin(), svg.texts.end(),
                                  [](const auto& t) { return t.text.rfind("holds L0 #6 - unlock #", 0) == 0; });
  ASSERT_NE(label, svg.texts.end());
  EXPECT_EQ(label->text.find(", 9 renewals"), label->text.size() - std::string(", 9 renewals").size()) << label->text;
  const double text_x1 = label->x_pt + review::text_pt(label->text, 9);
  size_t crossing = 0, stubs = 0;
  for (const auto& shape : svg.shapes) {
    if (std::find(renewals.begin(), renewals.end(), shape.tooltip) == renewals.end()) continue;
    const bool under_text = shape.x1_pt > label->x_pt && shape.x0_pt < text_x1;
    if (!under_text) continue;
    if (shape.y0_pt < label->y_pt && shape.y1_pt > label->y_pt) ++crossing;
    else ++stubs;
  }
  EXPECT_EQ(crossing, 0u);
  EXPECT_GE(stubs, 4u);  // at least two ticks under the words, each drawn as its two ends
}

// The findings the review draws in red: a renewal of another owner's lock
// and one long after the final release are offending, a renewal within
// one's own hold is not; a release sent again after a pause is a retry that
// says why, a release answered at once is not.
TEST(ReviewFindings, OffendingRenewalsAndRetriedReleasesSayWhatAndWhy) {
  History h;
  h.op(EventKind::Invoke, 0, 0, kA, "lock", 1);                                        // #0
  h.script(1, 0, kA, "rlock_acquire", "nil", {kA}, 1);                                 // #1
  h.op(EventKind::Ok, 2, 0, kA, "lock", 1).value = 1;                                  // #2
  h.op(EventKind::Invoke, 100, 0, kA, "unlock", 2);                                    // #3
  h.script(101, 0, kA, "rlock_release", "1", {}, 2).request_id = "a-1";                // #4
  h.op(EventKind::Ok, 102, 0, kA, "unlock", 2).value = 1;                              // #5: A's final release
  h.script(10000, 0, kA, "rlock_renew", "0", {}, 3).op = Op::Renew;                  // #6: 9.9 s after it
  h.op(EventKind::Invoke, 11000, 1, kB, "lock", 4);                                    // #7
  h.script(11001, 1, kB, "rlock_acquire", "nil", {kB}, 4);                             // #8
  h.op(EventKind::Ok, 11002, 1, kB, "lock", 4).value = 1;                              // #9
  h.script(12000, 0, kA, "rlock_renew", "1", {kB}, 5).op = Op::Renew;                // #10: B's lock
  h.script(13000, 1, kB, "rlock_renew", "1", {kB}, 6).op = Op::Renew;                // #11: B's own
  h.op(EventKind::Invoke, 14000, 1, kB, "unlock", 7);                                  // #12
  h.script(14001, 1, kB, "rlock_release", "1", {}, 7).request_id = "b-1";              // #13
  h.fault(14002, 1, "pause", 5000);                                                    // #14
  h.fault(19002, 1, "resume", 0);                                                      // #15
  h.script(19003, 1, kB, "rlock_release", "nil", {}, 7).request_id = "b-1";            // #16: the retry
  h.op(EventKind::Fail, 19004, 1, kB, "unlock", 7).reason = EndReason::IllegalMonitorState; // #17
  const HistoryRecording rec = record(h.events);
  const std::vector<review::OffendingRenewal> offending = review::offending_renewals(rec, h.events, default_check_config());
  ASSERT_EQ(offending.size(), 2u);
  EXPECT_EQ(offending[0].renewal->id, 6u);
  EXPECT_EQ(offending[0].kind, review::OffendingRenewal::Kind::AfterRelease);
  EXPECT_EQ(offending[0].release_event, 5u);
  EXPECT_EQ(offending[1].renewal->id, 10u);
  EXPECT_EQ(offending[1].kind, review::OffendingRenewal::Kind::OthersLock);
  EXPECT_EQ(offending[1].holder, kB);
  // The checker finds the same two.
  std::set<uint64_t> reported;
  for (const Violation& v : violations_of(h.events))
    if (v.property == "watchdog_expiry") reported.insert(v.event_ids.back());
  EXPECT_EQ(reported, (std::set<uint64_t>{6, 10}));
  const std::vector<review::RetriedRelease> retried = review::retried_releases(rec, h.events, default_check_config());
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].retry->id, 16u);
  ASSERT_NE(retried[0].first, nullptr);
  EXPECT_EQ(retried[0].first->id, 13u);
  EXPECT_EQ(retried[0].invoke_event, 12u);
  EXPECT_EQ(retried[0].reason, "client 1 was paused 5.0 s before it read the reply of #13, and the request timed out");
  // Drawn: red, in words, on the renewer's and the releaser's lanes.
  TimelineOptions opts;
  const std::string dot = review_dot(rec, h.events, opts);
  EXPECT_NE(dot.find("#6: a renewal 9.9 s after the final release (#5), answered 0"), std::string::npos);
  EXPECT_NE(dot.find("#10: a renewal of client 1's lock, answered 1"), std::string::npos);
  EXPECT_NE(dot.find("#16 retried release -> nil (the first, #13, answered 1): client 1 was paused 5.0 s"), std::string::npos);
  EXPECT_EQ(dot.find("#4 retried"), std::string::npos);
  EXPECT_EQ(dot.find("#13 retried"), std::string::npos);
  EXPECT_EQ(dot.find("#11: a renewal"), std::string::npos);
  const testing::Svg svg = testing::parse_svg(render_svg(dot, "findings.svg"));
  size_t said = 0;
  for (const auto& t : svg.texts) {
    const bool renewal = t.text.rfind("#6: a renewal", 0) == 0 || t.text.rfind("#10: a renewal", 0) == 0;
    if (renewal || t.text.rfind("#16 retried", 0) == 0) {
      ++said;
      EXPECT_EQ(svg.lane_at(t.y_pt), renewal ? "client 0" : "client 1") << t.text;
    }
  }
  EXPECT_EQ(said, 3u);
  // A lost request is the reason when there is one (the retry comes after
  // the request timeout).
  const int64_t timeout_ms = default_check_config().request_timeout_ms;
  History lost;
  lost.op(EventKind::Invoke, 0, 0, kA, "unlock", 1);                                   // #0
  Event& drop = lost.fault(0, 0, "lost", 0);                                           // #1
  drop.lost = LostMessage::request("rlock_release", "L0");
  lost.script(static_cast<double>(timeout_ms) + 5, 0, kA, "rlock_release", "nil", {}, 1).request_id = "a-1";  // #2
  const std::vector<review::RetriedRelease> after_loss =
      review::retried_releases(record(lost.events), lost.events, default_check_config());
  ASSERT_EQ(after_loss.size(), 1u);
  EXPECT_EQ(after_loss[0].first, nullptr);
  EXPECT_EQ(after_loss[0].reason, "its request was lost (#1)");
  // Within the request timeout, a first request is no retry, lost message or not.
  lost.events.back().true_us = ms_to_us(timeout_ms / 2);
  EXPECT_TRUE(review::retried_releases(record(lost.events), lost.events, default_check_config()).empty());
}

// Every server of the run has a lane; one the window shows nothing of says
// so, and for a RedLock why: its acquire stopped at a majority.
TEST(ReviewTimeline, EveryServerOfTheRunHasALaneAndAnEmptyOneSaysWhy) {
  History h;
  const std::string group = "L0";
  h.op(EventKind::Invoke, 0, 0, kA, "try_lock", 1).lock = LockRef(group);                         // #0
  Event& m0 = h.script(1, 0, kA, "rlock_acquire", "nil", {kA}, 1);                       // #1
  m0.lock = LockRef::member_of(group, 0);
  Event& m1 = h.script(2, 0, kA, "rlock_acquire", "nil", {kA}, 1);                       // #2
  m1.lock = LockRef::member_of(group, 1);
  m1.server = 1;
  h.op(EventKind::Ok, 3, 0, kA, "try_lock", 1).value = 1;                                // #3
  TimelineOptions opts;
  opts.servers = 3;
  opts.redlock = true;
  const std::string dot = review_dot(record(h.events), h.events, opts);
  for (const char* lane : {"redis 0", "redis 1", "redis 2"}) EXPECT_NE(dot.find(text_label(lane)), std::string::npos) << lane;
  EXPECT_NE(dot.find("not asked: a RedLock acquire stops at a majority (client 0's, #3, held redis 0 and 1: 2 of 3)"),
            std::string::npos);
  opts.redlock = false;
  EXPECT_NE(review_dot(record(h.events), h.events, opts).find("no script ran on redis 2 in this window"), std::string::npos);
  opts.servers = 0;  // unknown: the servers the window shows
  const std::string seen = review_dot(record(h.events), h.events, opts);
  EXPECT_EQ(seen.find(text_label("redis 2")), std::string::npos);
  EXPECT_NE(seen.find(text_label("redis 1")), std::string::npos);
}

TEST(ViolationWindow, NamedEventsAndTheHolderAreAlwaysInside) {
  // A acquires at #100 (invoked at #90), is paused at #150, B acquires at
  // #5000: far more than max_events apart, and still both inside, A's hold
  // from its start.
  History h;
  for (int i = 0; h.events.size() < 6000; ++i) {
    const size_t id = h.events.size();
    const double t = static_cast<double>(id);
    if (id == 90) h.op(EventKind::Invoke, t, 0, kA, "lock", 7);
    else if (id == 100) h.op(EventKind::Ok, t, 0, kA, "lock", 7).value = 1;
    else if (id == 150) h.fault(t, 0, "pause", 41000);
    else if (id == 4990) h.op(EventKind::Invoke, t, 1, kB, "lock", 8);
    else if (id == 5000) h.op(EventKind::Ok, t, 1, kB, "lock", 8).value = 1;
    else if (id == 5100) h.fault(t, 0, "resume", 0);
    else if (id == 5101) h.op(EventKind::Invoke, t, 0, kA, "unlock", 9);
    else h.add(EventKind::Deliver, t, 2, "");
  }
  Violation v;
  v.property = "mutual_exclusion";
  v.lock.assign("L0");
  v.message = "believed holds overlap: A holds since event #100 and B acquired at event #5000";
  v.event_ids = {100, 5000};
  v.owners = {kA, kB};
  for (uint64_t max_events : {600u, 10'000u}) {
    ViolationWindow w(v, 20, max_events);
    for (const Event& e : h.events) w.on_event(e);
    const EventRange r = w.range();
    EXPECT_LE(r.from_id, 100u) << max_events;  // the holder's acquire
    EXPECT_GE(r.to_id, 5000u) << max_events;
    EXPECT_EQ(w.named_ids(), (std::set<uint64_t>{100, 5000}));
    if (max_events == 10'000u) {
      // Room for the rest: the acquires' Invokes, the holder's end (#5101), the resume, 20 events either side.
      EXPECT_EQ(r.from_id, 70u);
      EXPECT_EQ(r.to_id, 5121u);
    } else {
      EXPECT_EQ(r.from_id, 100u);  // only what rules 1-2 need
      EXPECT_EQ(r.to_id, 5000u);
    }
  }
  // The events its sentences name count as named, beside its evidence: a
  // fault the blame names far outside the rest is inside too.
  v.facts.named_ids = {100, 5000};
  v.facts.blamed_ids = {150};
  ViolationWindow w(v, 20, 600);
  for (const Event& e : h.events) w.on_event(e);
  EXPECT_EQ(w.named_ids(), (std::set<uint64_t>{100, 150, 5000}));
  EXPECT_LE(w.range().from_id, 100u);
  EXPECT_GE(w.range().to_id, 5000u);
}

}  // namespace
}  // namespace locksim
