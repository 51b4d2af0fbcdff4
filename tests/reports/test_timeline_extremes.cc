// Times a trace may carry, however large: the checkers (as `locksim check`
// and `locksim timeline` run them), the reading the timelines draw
// (properties/history_recording.h) and every drawing of it (review and
// sequence views, a violation's window, the run plot) take any int64 in t,
// lms, sms, lease, wait and dur, and any deadline in a fair line (inf
// included), without a signed overflow (the -DLOCKSIM_SANITIZE=ON build
// stops at the first one), and draw a picture of finite size. A regression
// test for the overflows the sanitizers found in the drawing's former
// reading of a history (a hold's end at t = INT64_MAX, a lease of 2^62 ms).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "search/campaign.h"
#include "properties/checker_suite.h"
#include "properties/history_recording.h"
#include "properties/scenario_check.h"
#include "reports/run_plot.h"
#include "reports/timeline.h"
#include "reports/timeline_review.h"
#include "traces/event_sink.h"
#include "tests/lock_kind_of.h"

namespace locksim {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kTwo62 = int64_t{1} << 62;

// The first `n` events of a campaign seed's history.
std::vector<Event> history_of(const char* profile, const char* lock, int locks, int servers, uint64_t seed, size_t n) {
  CampaignOptions options;
  options.scenario.profile = Profile::named(profile);
  options.scenario.lock_kind = testing::lock_kind_of(lock);
  options.scenario.locks = locks;
  options.scenario.servers = servers;
  Scenario s = campaign_template(options);
  s.seed = seed;
  VectorSink sink;
  check_scenario(s, default_check_config(), &sink);
  std::vector<Event> out;
  for (const Event& e : sink.events) {
    if (e.kind == EventKind::Verdict) continue;
    if (out.size() == n) break;
    out.push_back(e);
  }
  return out;
}

// Every position DOT is given is finite and within a sane canvas.
void expect_finite_positions(const std::string& dot, const std::string& what) {
  const std::regex pos_re(R"re(pos="([^",]+),([^"!]+)!")re");
  size_t positions = 0;
  for (auto it = std::sregex_iterator(dot.begin(), dot.end(), pos_re); it != std::sregex_iterator(); ++it) {
    ++positions;
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    ASSERT_TRUE(std::isfinite(x) && std::isfinite(y)) << what << ": " << (*it)[0];
    ASSERT_LT(std::abs(x), 1e6) << what << ": " << (*it)[0];
    ASSERT_LT(std::abs(y), 1e6) << what << ": " << (*it)[0];
  }
  EXPECT_GT(positions, 0u) << what;
  EXPECT_EQ(dot.find("nan"), std::string::npos) << what;
  EXPECT_EQ(dot.find("inf,"), std::string::npos) << what;
}

// Checks `history` with every checker and draws it every way a user can:
// the review of the whole, of its second half, the sequence view, the
// window of each property's first violation, the run plot.
void check_and_draw(const std::vector<Event>& history, const std::string& what) {
  const std::vector<Violation> violations = check_history(history, default_check_config());
  TimelineOptions review;
  review.max_events = history.size();
  expect_finite_positions(timeline_dot(history, review), what + ", review");
  const uint64_t mid = history[history.size() / 2].id;
  const std::vector<Event> second_half(history.begin() + static_cast<std::ptrdiff_t>(history.size() / 2),
                                       history.end());
  expect_finite_positions(
      review_dot(record_history(history, default_check_config(), mid, history.back().id), second_half, review),
      what + ", second half");
  TimelineOptions sequence = review;
  sequence.view = TimelineView::Sequence;
  expect_finite_positions(timeline_dot(history, sequence), what + ", sequence");
  std::set<std::string> drawn;
  for (const Violation& v : violations) {
    if (!drawn.insert(v.property).second) continue;
    expect_finite_positions(violation_timeline_dot(history, v, TimelineOptions{}), what + ", " + v.property);
  }
  RunPlotSink plot;
  for (const Event& e : history) plot.on_event(e);
  EXPECT_TRUE(plot.data().is_object()) << what;
}

TEST(TimelineExtremes, AnyTimeOrLeaseAReadTraceCarriesIsDrawnWithoutOverflow) {
  struct Base {
    const char* name;
    std::vector<Event> events;
  };
  const std::vector<Base> bases = {
      {"pauses rlock 7", history_of("pauses", "rlock", 1, 1, 7, 260)},
      {"hostile fair 180", history_of("hostile", "fair", 1, 1, 180, 400)},
      {"hostile mixed 9", history_of("hostile", "mixed", 2, 1, 9, 400)},
      {"hostile redlock 3", history_of("hostile", "redlock", 1, 3, 3, 300)},
  };
  const std::vector<int64_t> extremes = {kMax, kMin, kTwo62, -kTwo62};
  using Field = std::function<void(Event&, int64_t)>;
  const std::vector<std::pair<const char*, Field>> fields = {
      {"lms", [](Event& e, int64_t v) { e.local_ms = v; }},
      {"sms", [](Event& e, int64_t v) { e.server_ms = v; }},
      {"lease", [](Event& e, int64_t v) { e.lease_ms = v; }},
      {"wait", [](Event& e, int64_t v) { e.wait_ms = v; }},
      {"dur", [](Event& e, int64_t v) { e.duration_ms = v; }},
      {"v", [](Event& e, int64_t v) { e.value = v; }},
  };
  for (const Base& base : bases) {
    ASSERT_FALSE(base.events.empty()) << base.name;
    auto draw = [&](const std::vector<Event>& h, const std::string& what) { check_and_draw(h, what); };
    draw(base.events, base.name);
    // Every event's field at an extreme, then at INT64_MAX and INT64_MIN by turns.
    for (const auto& [field, set] : fields) {
      for (int64_t x : extremes) {
        std::vector<Event> h = base.events;
        for (Event& e : h) set(e, x);
        draw(h, std::string(base.name) + ", " + field + " = " + std::to_string(x));
      }
      std::vector<Event> h = base.events;
      for (size_t i = 0; i < h.size(); ++i) set(h[i], i % 2 ? kMax : kMin);
      draw(h, std::string(base.name) + ", " + field + " = INT64_MAX and INT64_MIN by turns");
    }
    // Time: the second half (or only the last event) at the end of time,
    // still in order.
    for (int64_t end : {kMax, kTwo62}) {
      for (size_t from : {base.events.size() / 2, base.events.size() - 1}) {
        std::vector<Event> h = base.events;
        for (size_t i = from; i < h.size(); ++i) h[i].true_us = end - static_cast<int64_t>(h.size() - 1 - i);
        draw(h, std::string(base.name) + ", t up to " + std::to_string(end) + " from event " +
                              std::to_string(from));
      }
    }
    // The end of time and leases of 2^62 ms together.
    std::vector<Event> h = base.events;
    for (size_t i = 0; i < h.size(); ++i) {
      h[i].true_us = kMax - static_cast<int64_t>(h.size() - 1 - i) * 1000;
      h[i].lease_ms = kTwo62;
      h[i].server_ms = kTwo62 + static_cast<int64_t>(i);
      h[i].local_ms = kMax - static_cast<int64_t>(h.size() - i);
    }
    draw(h, std::string(base.name) + ", t = INT64_MAX and lease 2^62");
    // Fair lines: deadlines at the ends of the doubles.
    for (double deadline : {HUGE_VAL, -HUGE_VAL, 1e300, -1e300, 9.3e18, -9.3e18}) {
      std::vector<Event> line = base.events;
      bool any = false;
      for (Event& e : line) {
        if (!e.line_known) continue;
        for (LineEntry& entry : e.line_after.edit()) entry.deadline_ms = deadline;
        any = true;
      }
      if (any) draw(line, std::string(base.name) + ", line deadlines " + std::to_string(deadline));
    }
  }
}

}  // namespace
}  // namespace locksim
