// HistoryRecording: the intervals a timeline draws are the checkers' reading.
//  - Every overlap the recording holds is one the mutual-exclusion checker
//    reports (same owners, same events) and every report is a recorded
//    overlap, over hostile campaigns of every lock kind: 300 seeds of each
//    (LOCKSIM_RECORDING_SEEDS=N runs N; README, Timelines).
//  - A failed unlock neither starts nor ends a hold; a reentrant hold is one
//    hold with its count; a window that starts at event 0 has nothing before
//    it; a window later in the history keeps the hold open at its start
//    with its real acquire.
//  - Leases end at their expiry, mapped through the server's clock; fair
//    lines record joins, purges and grants.
#include "properties/history_recording.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <algorithm>
#include <set>
#include <string>

#include "search/campaign.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "tests/properties/history_builder.h"
#include "traces/event_sink.h"
#include "tests/lock_kind_of.h"

namespace locksim::testing {
namespace {

int seeds_to_run() {
  const char* env = std::getenv("LOCKSIM_RECORDING_SEEDS");
  if (env == nullptr) return 300;
  const int n = std::atoi(env);
  return n > 0 ? n : 300;
}

struct Kind {
  const char* lock;
  int locks;
  int servers;
};

// Checks the recording of one whole history against the checker's reports.
// Returns how many overlaps the checker reported.
size_t expect_overlaps_as_reported(const std::vector<Event>& history, const std::string& what) {
  const CheckConfig config = default_check_config();
  CheckerSuite suite(config);
  ReadingRecorder recorder(config);
  suite.record_with(&recorder);
  for (const Event& e : history) suite.on_event(e);
  suite.finish();
  const HistoryRecording rec = recorder.finish();
  std::vector<Violation> reported;
  for (const Violation& v : suite.violations())
    if (v.property == property::kMutualExclusion) reported.push_back(v);
  std::vector<const RecordedOverlap*> listed;
  for (const RecordedOverlap& o : rec.overlaps)
    if (o.reported) listed.push_back(&o);
  EXPECT_EQ(rec.overlaps.size(), rec.overlaps_in_history) << what;
  EXPECT_EQ(listed.size(), reported.size()) << what;
  // The checker reports them in history order (the event each starts at),
  // ties in owner order: as recorded.
  for (size_t i = 0; i < std::min(listed.size(), reported.size()); ++i) {
    const RecordedOverlap& o = *listed[i];
    const RecordedHold& first = rec.holds[o.first];
    const RecordedHold& second = rec.holds[o.second];
    EXPECT_EQ(reported[i].event_ids, (std::vector<uint64_t>{first.start_event, second.start_event})) << what;
    EXPECT_EQ(reported[i].owners, (std::vector<std::string>{first.owner, second.owner})) << what;
    EXPECT_EQ(reported[i].lock, second.lock) << what;
    EXPECT_EQ(o.start_event, second.start_event) << what;
  }
  // Overlaps past the checker's cap are recorded but not listed.
  const size_t cap = static_cast<size_t>(config.max_violations_per_checker);
  EXPECT_EQ(listed.size(), std::min(rec.overlaps.size(), cap)) << what;
  return reported.size();
}

TEST(HistoryRecording, OverlapsAreTheCheckersOnHostileCampaignsOfEveryLockKind) {
  const int seeds = seeds_to_run();
  for (const Kind& kind : {Kind{"rlock", 1, 1}, Kind{"fair", 1, 1}, Kind{"mixed", 2, 1}, Kind{"multi", 1, 3},
                           Kind{"redlock", 1, 3}}) {
    CampaignOptions options;
    options.scenario.profile = Profile::named("hostile");
    options.scenario.lock_kind = lock_kind_of(kind.lock);
    options.scenario.locks = kind.locks;
    options.scenario.servers = kind.servers;
    const Scenario tmpl = campaign_template(options);
    size_t reported = 0;
    for (int i = 0; i < seeds; ++i) {
      Scenario s = tmpl;
      s.seed = options.scenario.seed + static_cast<uint64_t>(i);
      VectorSink history;
      check_scenario(s, default_check_config(), &history);
      reported += expect_overlaps_as_reported(history.events, std::string(kind.lock) + " seed " + std::to_string(s.seed));
    }
    // The campaigns do overlap: the comparison is not vacuous.
    if (std::string(kind.lock) != "fair") {
      EXPECT_GT(reported, 0u) << kind.lock;
    }
    std::printf("%s: %d seeds, %zu overlaps reported and recorded\n", kind.lock, seeds, reported);
  }
}

// A holds reentrantly (count 2); B's unlock fails (illegal monitor state)
// while A holds; A releases both; B acquires.
std::vector<Event> reentry_and_failed_unlock() {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.ok(1, 1, "lock", 1);            // #1: A's hold starts
  h.invoke(2, 1, "lock", 2);
  h.ok(3, 1, "lock", 2);            // #3: reentry
  h.invoke(4, 2, "unlock", 3);      // #4: B holds nothing
  h.fail(5, 2, "unlock", 3, "illegal monitor state");
  h.invoke(6, 1, "unlock", 4);      // count 2 -> 1
  h.ok(7, 1, "unlock", 4, 0);
  h.invoke(8, 2, "lock", 5);        // #8: B waits
  h.invoke(9, 1, "unlock", 6);      // #9: A's hold ends
  h.ok(10, 1, "unlock", 6, 1);
  h.ok(11, 2, "lock", 5);           // #11: B's hold starts
  return h.events();
}

TEST(HistoryRecording, AFailedUnlockIsNoHoldAndAReentrantHoldIsOne) {
  const HistoryRecording rec = record_history(reentry_and_failed_unlock(), CheckConfig{});
  ASSERT_EQ(rec.holds.size(), 2u);
  EXPECT_EQ(rec.holds[0].start_event, 1u);
  EXPECT_EQ(rec.holds[0].end_event, 9u);
  EXPECT_EQ(rec.holds[0].end, RecordedHold::End::Released);
  EXPECT_EQ(rec.holds[0].max_count, 2);
  EXPECT_EQ(rec.holds[0].reentries, 1);
  EXPECT_EQ(rec.holds[1].owner, owner_of(2));
  EXPECT_EQ(rec.holds[1].start_event, 11u);
  EXPECT_EQ(rec.holds[1].end, RecordedHold::End::Open);
  EXPECT_TRUE(rec.overlaps.empty());
  EXPECT_EQ(rec.first_event, 0u);
}

TEST(HistoryRecording, AWindowKeepsTheHoldOpenAtItsStartWithItsRealAcquire) {
  const HistoryRecording rec = record_history(reentry_and_failed_unlock(), CheckConfig{}, 5, 8);
  ASSERT_EQ(rec.holds.size(), 1u);  // A's, from #1; B's starts after the window
  EXPECT_EQ(rec.holds[0].start_event, 1u);
  EXPECT_EQ(rec.holds[0].end, RecordedHold::End::Open);
  EXPECT_EQ(rec.first_event, 5u);
  EXPECT_EQ(rec.last_event, 8u);
  EXPECT_EQ(rec.events, 4u);
  EXPECT_EQ(rec.events_read, 9u);
  ASSERT_EQ(rec.waits.size(), 1u);  // B's wait from #8; A's waits ended before the window
  EXPECT_EQ(rec.waits[0].start_event, 8u);
  EXPECT_TRUE(rec.clients.count(1));  // A holds through the window without an event there
}

TEST(HistoryRecording, OverlapsEndWithTheFirstHoldToEnd) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.ok(1, 1, "lock", 1);            // #1
  h.fault(2, "pause", 1, 50000);
  h.invoke(3, 2, "lock", 2);
  h.ok(4, 2, "lock", 2);            // #4: overlap
  h.invoke(5, 2, "unlock", 3);      // #5: B's hold ends, and the overlap
  h.fault(6, "crash", 1);           // #6: A's hold ends
  const HistoryRecording rec = record_history(h.events(), CheckConfig{});
  ASSERT_EQ(rec.overlaps.size(), 1u);
  EXPECT_EQ(rec.overlaps[0].start_event, 4u);
  EXPECT_EQ(rec.overlaps[0].end_event, 5u);
  EXPECT_TRUE(rec.overlaps[0].reported);
  EXPECT_FALSE(rec.overlaps[0].open);
  EXPECT_EQ(rec.holds[rec.overlaps[0].first].end, RecordedHold::End::Crashed);
  ASSERT_EQ(rec.faults.size(), 2u);
  EXPECT_EQ(rec.faults[0].op, Op::Pause);
}

// A fair line's places, as recorded, are its queue order at every instant:
// the waiters in the line at a time hold distinct places, and a waiter
// that joined earlier is ahead (FIFO: nobody joins ahead of another), over
// hostile fair campaigns (lost messages, pauses, clock skew: purges, give
// ups, ghosts).
TEST(HistoryRecording, LinePlacesAreTheQueueOrderAtEveryInstant) {
  CampaignOptions options;
  options.scenario.profile = Profile::named("hostile");
  options.scenario.lock_kind = ScenarioLockKind::Fair;
  const Scenario tmpl = campaign_template(options);
  size_t instants = 0, stays_moved = 0;
  for (int i = 0; i < 20; ++i) {
    Scenario s = tmpl;
    s.seed = options.scenario.seed + static_cast<uint64_t>(i);
    VectorSink history;
    check_scenario(s, default_check_config(), &history);
    const HistoryRecording rec = record_history(history.events, default_check_config());
    auto place_at = [](const RecordedLineStay& stay, int64_t t_us) {
      size_t place = stay.places.front().second;
      for (const auto& [at_us, p] : stay.places)
        if (at_us <= t_us) place = p;
      return place;
    };
    std::set<int64_t> changes;
    for (const RecordedLineStay& stay : rec.line_stays) {
      ASSERT_FALSE(stay.places.empty());
      EXPECT_EQ(stay.places.front().second, stay.joined_at);
      stays_moved += stay.places.size() > 1 ? 1 : 0;
      for (const auto& [at_us, p] : stay.places) changes.insert(at_us);
    }
    for (int64_t t : changes) {
      std::vector<const RecordedLineStay*> present;
      for (const RecordedLineStay& stay : rec.line_stays)
        if (stay.join_us <= t && stay.left_us > t) present.push_back(&stay);
      std::sort(present.begin(), present.end(),
                [](const RecordedLineStay* a, const RecordedLineStay* b) { return a->join_event < b->join_event; });
      for (size_t k = 1; k < present.size(); ++k) {
        EXPECT_LT(place_at(*present[k - 1], t), place_at(*present[k], t))
            << "seed " << s.seed << " at " << t << " us: " << present[k - 1]->owner.str() << " (joined #"
            << present[k - 1]->join_event << ") and " << present[k]->owner.str() << " (joined #" << present[k]->join_event
            << ")";
      }
      ++instants;
    }
  }
  EXPECT_GT(instants, 100u);
  EXPECT_GT(stays_moved, 10u);  // waiters do move up: the check is not vacuous
}

}  // namespace
}  // namespace locksim::testing
