// Timelines, sequence view: deterministic Graphviz text with one lane per
// client/server, highlighted counterexample events, and a real `dot`
// rendering. (The review view, the default, is tested in
// test_timeline_review.cc.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/timeline.h"

namespace locksim {
namespace {

std::vector<Event> small_history() {
  std::vector<Event> h;
  auto add = [&](EventKind kind, int client, const std::string& op) -> Event& {
    Event e;
    e.id = h.size();
    e.true_us = static_cast<int64_t>(h.size()) * 1000;
    e.kind = kind;
    e.client = client;
    e.op = op_from_name(op).value();
    e.owner.assign("c" + std::to_string(client) + ":1");
    e.lock.assign("L0");
    e.op_id = 1;
    h.push_back(e);
    return h.back();
  };
  add(EventKind::Invoke, 0, "lock");
  Event& s = add(EventKind::Script, 0, "lock");
  s.script = "rlock_acquire";
  s.server = 0;
  s.reply = EventReply::nil();
  add(EventKind::Ok, 0, "lock").value = 1;
  Event& f = add(EventKind::Fault, -1, "pause");
  f.target = 0;
  f.duration_ms = 41000;
  f.op_id = 0;
  add(EventKind::Invoke, 1, "lock").op_id = 2;
  return h;
}

TimelineOptions sequence() {
  TimelineOptions opts;
  opts.view = TimelineView::Sequence;
  return opts;
}

TEST(Timeline, LanesRowsAndHighlights) {
  TimelineOptions opts = sequence();
  opts.title = "example";
  opts.highlight_ids = {3};
  const std::string dot = timeline_dot(small_history(), opts);
  EXPECT_NE(dot.find("label=\"client 0\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"client 1\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"redis 0\""), std::string::npos);
  EXPECT_NE(dot.find("pause 41000 ms"), std::string::npos);
  // Event 3 (the pause) is highlighted, event 2 is not.
  const auto e3 = dot.find("e3 [label=");
  ASSERT_NE(e3, std::string::npos);
  EXPECT_NE(dot.substr(e3, 200).find("tomato"), std::string::npos);
  const auto e2 = dot.find("e2 [label=");
  ASSERT_NE(e2, std::string::npos);
  EXPECT_EQ(dot.substr(e2, 120).find("tomato"), std::string::npos);
  // Deterministic.
  EXPECT_EQ(dot, timeline_dot(small_history(), opts));
}

TEST(Timeline, LongHistoriesAreCutAndSaySo) {
  std::vector<Event> h = small_history();
  TimelineOptions opts = sequence();
  opts.max_events = 2;
  const std::string dot = timeline_dot(h, opts);
  EXPECT_NE(dot.find("first 2 of 5 events"), std::string::npos);
  EXPECT_EQ(dot.find("e4 [label="), std::string::npos);
}

TEST(Timeline, RendersSvgWithDot) {
  const auto dir = std::filesystem::temp_directory_path() / "locksim-timeline-test";
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "t.svg").string();
  std::filesystem::remove(out);
  render_timeline(timeline_dot(small_history(), sequence()), out, "svg");
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("<svg"), std::string::npos);
  EXPECT_NE(text.str().find("client 1"), std::string::npos);
  EXPECT_THROW(render_timeline("digraph {", (dir / "bad.svg").string(), "svg"), std::runtime_error);
  EXPECT_THROW(render_timeline("digraph {}", (dir / "x.gif").string(), "gif"), std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST(Timeline, ServerFaultsAreDrawnOnTheirServersLane) {
  std::vector<Event> h;
  Event s;
  s.kind = EventKind::Script;
  s.client = 0;
  s.server = 2;
  s.script = "rlock_acquire";
  s.lock.assign("L0@2");
  s.reply = EventReply::nil();
  h.push_back(s);
  Event failover;
  failover.id = 1;
  failover.true_us = 1000;
  failover.kind = EventKind::Fault;
  failover.op = Op::Failover;
  failover.target = 2;
  failover.server = 2;
  failover.duration_ms = 80;
  h.push_back(failover);
  Event jump;
  jump.id = 2;
  jump.true_us = 2000;
  jump.kind = EventKind::Fault;
  jump.op = Op::ClockJump;
  jump.target = 1;
  jump.server = 1;
  jump.duration_ms = 45000;
  h.push_back(jump);
  const std::string dot = timeline_dot(h, sequence());
  EXPECT_NE(dot.find("label=\"redis 2\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"redis 1\""), std::string::npos);
  EXPECT_EQ(dot.find("label=\"client 1\""), std::string::npos);  // not a client's lane
  EXPECT_EQ(dot.find("label=\"client 2\""), std::string::npos);
}

TEST(Timeline, ViewNames) {
  TimelineView v = TimelineView::Sequence;
  EXPECT_TRUE(timeline_view_from_name("review", &v));
  EXPECT_EQ(v, TimelineView::Review);
  EXPECT_TRUE(timeline_view_from_name("sequence", &v));
  EXPECT_EQ(v, TimelineView::Sequence);
  EXPECT_FALSE(timeline_view_from_name("gantt", &v));
  EXPECT_STREQ(timeline_view_name(TimelineView::Review), "review");
  EXPECT_EQ(TimelineOptions{}.view, TimelineView::Review);  // the default
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// A subtitle names the cause once: appended when the explanation lacks it,
// not again when the explanation (a violation written with its cause, as a
// report's failure section has it) already gives it in other words.
TEST(ViolationSubtitle, SaysTheCauseOnce) {
  EXPECT_EQ(violation_subtitle("overlap", "client 3 paused"), "overlap. Cause: client 3 paused.");
  EXPECT_EQ(violation_subtitle("overlap; blamed: client 3 paused", "client 3 paused"),
            "overlap; blamed: client 3 paused");
  EXPECT_EQ(violation_subtitle("overlap; cause: confirmed by 4 re-runs: lost reply #37",
                               "explained (lost reply, confirmed by 4 re-runs): lost reply #37"),
            "overlap; cause: confirmed by 4 re-runs: lost reply #37");
  EXPECT_EQ(violation_subtitle("overlap", ""), "overlap");
}

}  // namespace
}  // namespace locksim
