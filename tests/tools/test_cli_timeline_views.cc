// `locksim timeline` and campaign timelines, one view per property, drawn
// from real counterexamples and read back from the SVG as a user sees it:
// the lanes that must be there, the evidence the violation names, the
// overlaps exactly as the checker reports them, every label inside the
// canvas (tests/svg_check.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/svg_check.h"

namespace {

using locksim::testing::parse_svg;
using locksim::testing::read_file;
using locksim::testing::run_locksim;
using locksim::testing::Svg;

class TimelineViews : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("locksim-timeline-views-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  Svg svg_of(const std::string& file) const { return parse_svg(read_file(file)); }
  // `locksim timeline TRACE <args> -o <name>`, which must succeed; its SVG.
  Svg draw(const std::string& trace, const std::string& args, const std::string& name) const {
    const auto r = run_locksim("timeline " + trace + " " + args + " -o " + path(name));
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.out;
    return svg_of(path(name));
  }
  // Every text is in the SVG, as a part of some label.
  static void expect_texts(const Svg& svg, const std::vector<std::string>& texts, const std::string& what) {
    for (const std::string& t : texts) EXPECT_TRUE(svg.has_text_containing(t)) << what << ": " << t;
  }
  static void expect_on_canvas(const Svg& svg, const std::string& what) {
    EXPECT_GT(svg.width_pt, 0) << what;
    EXPECT_EQ(svg.texts_off_canvas(), std::vector<std::string>{}) << what;
  }
  // The title says what went wrong in words (it starts with `words`), not
  // a file: the trace's name is in the grey line under it.
  static void expect_title_in_words(const Svg& svg, const std::string& words, const std::string& what) {
    EXPECT_EQ(svg.title().rfind(words, 0), 0u) << what << ": " << svg.title();
    EXPECT_EQ(svg.title().find(".jsonl"), std::string::npos) << what << ": " << svg.title();
  }
  // A text matching `re` lies on lane `lane`.
  static void expect_text_on_lane(const Svg& svg, const std::string& re, const std::string& lane, const std::string& what) {
    const auto found = std::find_if(svg.texts.begin(), svg.texts.end(),
                                    [&](const auto& t) { return std::regex_search(t.text, std::regex(re)); });
    ASSERT_NE(found, svg.texts.end()) << what << ": no text matching " << re;
    EXPECT_EQ(svg.lane_at(found->y_pt), lane) << what << ": " << found->text;
  }
  // The named events (red diamonds: "#id what cN:T ... at S s") lie on
  // their owner's client lane, and no text carries a raw clock reading
  // (13-digit milliseconds): times are run-relative.
  static void expect_named_events_on_their_owners_lanes(const Svg& svg, const std::string& what) {
    const std::regex named(R"(^#\d+ .*\bc(\d+):\d+.* at \d+\.\d{3} s$)");
    size_t n = 0;
    for (const auto& shape : svg.shapes) {
      std::smatch m;
      if (!std::regex_match(shape.tooltip, m, named)) continue;
      ++n;
      EXPECT_EQ(svg.lane_at(shape.cy_pt()), "client " + m[1].str()) << what << ": " << shape.tooltip;
    }
    EXPECT_GT(n, 0u) << what;
    for (const auto& t : svg.texts) EXPECT_FALSE(std::regex_search(t.text, std::regex(R"(\d{13})"))) << what << ": " << t.text;
  }
  std::filesystem::path dir_;
};

// The heights of a fair line's rows in `svg`: its place labels ("1st",
// "2nd", ...) on the lane `lane`, in order.
std::vector<double> line_rows(const Svg& svg, const std::string& lane) {
  std::vector<double> rows;
  for (const auto& t : svg.texts)
    if (std::regex_match(t.text, std::regex(R"(\d+(st|nd|rd|th)\+?)")) && svg.lane_at(t.y_pt) == lane)
      rows.push_back(t.y_pt);
  return rows;
}

// The lines of `locksim check` for `property`.
std::vector<std::string> check_lines(const std::string& trace, const std::string& property) {
  const auto r = run_locksim("check " + trace);
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line))
    if (line.find(" " + property + " [") != std::string::npos) out.push_back(line);
  return out;
}

// The 1-based place of the first violation of `property` (and containing
// `text`) in `locksim check`'s list; 0 when none.
// As `timeline --violation N` counts: violations only, never an advisory
// report (busy_poll; drawn with --property busy_poll instead).
int nth_of(const std::string& trace, const std::string& property, const std::string& text = "") {
  const auto r = run_locksim("check " + trace);
  std::istringstream lines(r.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("FAIL ", 0) != 0 && line.rfind("note ", 0) != 0) continue;
    if (line.find(" busy_poll [") != std::string::npos) {
      if (property == "busy_poll") return 1;  // the first report, as --property busy_poll draws it
      continue;
    }
    ++n;
    if (line.find(" " + property + " [") != std::string::npos && line.find(text) != std::string::npos) return n;
  }
  return 0;
}

// The checker's one overlap, drawn once: exactly one overlap mark and one
// "Both believe they hold" note naming the clients and acquires of the
// checker's line `overlap` (locksim check's).
void expect_the_one_overlap(const Svg& svg, const std::string& overlap, const std::string& what) {
  std::smatch m;
  ASSERT_TRUE(std::regex_search(overlap, m,
                                std::regex(R"(\(client (\d+)\) holds since event #(\d+) and \S+ \(client (\d+)\) acquired at event #(\d+))")))
      << overlap;
  const std::string note = "client " + m[1].str() + " (c" + m[1].str() + ":";
  const std::string since = ", since #" + m[2].str() + ") and client " + m[3].str() + " (c" + m[3].str() + ":";
  const std::string acquired = ", acquired #" + m[4].str() + ")";
  EXPECT_EQ(svg.count_class("overlap"), 1u) << what;
  size_t notes = 0;
  for (const auto& t : svg.texts) {
    if (t.text.rfind("Both believe they hold", 0) != 0) continue;
    ++notes;
    EXPECT_NE(t.text.find(note), std::string::npos) << what << ": " << t.text;
    EXPECT_NE(t.text.find(since), std::string::npos) << what << ": " << t.text;
    EXPECT_NE(t.text.find(acquired), std::string::npos) << what << ": " << t.text;
  }
  EXPECT_EQ(notes, 1u) << what;
}

// The hostile mixed campaign's seed 60: its timeline (the mutual_exclusion
// counterexample) and `--violation 1` of its shrunk trace draw exactly the
// one overlap the checker reports, between the same clients and acquires.
TEST_F(TimelineViews, HostileMixedSeed60DrawsTheCheckersOneOverlap) {
  const std::string out = path("mixed60");
  auto r = run_locksim("campaign --profile hostile --lock mixed --locks 2 --base-seed 60 --seeds 1 --out " + out);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::string shrunk = out + "/failures/60.shrunk.jsonl";
  ASSERT_TRUE(std::filesystem::exists(shrunk)) << r.out;
  const std::vector<std::string> overlaps = check_lines(shrunk, "mutual_exclusion");
  ASSERT_EQ(overlaps.size(), 1u);
  const Svg campaign = svg_of(out + "/timelines/60.svg");
  expect_the_one_overlap(campaign, overlaps[0], "timelines/60.svg");
  expect_on_canvas(campaign, "timelines/60.svg");
  const Svg first = draw(shrunk, "--violation 1", "v1.svg");
  expect_the_one_overlap(first, overlaps[0], "--violation 1");
  expect_on_canvas(first, "--violation 1");
  // In words: whose lease ran out and why, who took the lock; in the
  // shrunk trace (which runs past the violation), the first holder's
  // release, retried after its request was lost, in red on its lane.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(overlaps[0], m, std::regex(R"(\(client (\d+)\) holds since event #\d+ and \S+ \(client (\d+)\))")));
  for (const Svg* svg : {&campaign, &first}) {
    expect_title_in_words(*svg, "mutual exclusion on lsim:L0: client " + m[1].str() + "'s lease ran out after its request was lost",
                          "seed 60");
    EXPECT_NE(svg->title().find(" while client " + m[2].str() + " took the lock"), std::string::npos) << svg->title();
  }
  expect_text_on_lane(first, R"(^#\d+ retried release -> nil: its request was lost \(#\d+\)$)", "client " + m[1].str(), "seed 60");
}

// The hostile mixed campaign's seed 9: its fifo_fairness counterexample
// shows one thing (one lock, one property, no overlap drawn: the checker
// reports none), and the fifo view shows the line, the purge and client
// 2's clock offset.
TEST_F(TimelineViews, HostileMixedSeed9ShowsTheFifoPurgeOnOneLock) {
  const std::string out = path("mixed");
  auto r = run_locksim("campaign --profile hostile --lock mixed --locks 2 --base-seed 9 --seeds 1 --out " + out);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::string shrunk = out + "/failures/9.shrunk.jsonl";
  ASSERT_TRUE(std::filesystem::exists(shrunk)) << r.out;
  std::smatch m;
  const auto check = run_locksim("check " + shrunk);
  for (const std::string other : {"mutual_exclusion", "liveness", "watchdog_expiry", "reentrancy", "ghost_waiter"})
    EXPECT_EQ(check.out.find(" " + std::string(other) + " ["), std::string::npos) << other << "\n" << check.out;
  const Svg campaign = svg_of(out + "/timelines/9.svg");
  EXPECT_EQ(campaign.count_class("overlap"), 0u);
  EXPECT_FALSE(campaign.has_text_containing("Both believe they hold"));
  EXPECT_FALSE(campaign.has_text_containing("lsim:L0"));

  // The fifo view: its line, the purge by the client the checker names,
  // client 2's clock offset under its name.
  const std::vector<std::string> fifo = check_lines(shrunk, "fifo_fairness");
  ASSERT_EQ(fifo.size(), 1u);
  ASSERT_TRUE(std::regex_search(fifo[0], m, std::regex(R"(purged as stale by \S+ of client (\d+) at event #(\d+))")));
  EXPECT_TRUE(campaign.has_text("line lsim:L1"));
  EXPECT_TRUE(campaign.has_text_containing("- purged #" + m[2].str() + " by client " + m[1].str()));
  expect_title_in_words(campaign, "fifo fairness on lsim:L1: client " + m[1].str() + " purged client 2's waiter with ",
                        "timelines/9.svg");
  EXPECT_NE(campaign.title().find("of its slot left (client 2's clock "), std::string::npos) << campaign.title();
  EXPECT_TRUE(campaign.has_text_containing("of its slot left"));
  EXPECT_TRUE(campaign.has_text("client 2"));
  ASSERT_TRUE(std::regex_search(fifo[0], m, std::regex(R"(client 2's clock is ([\d ]+) ms behind)")));
  // The message gives whole milliseconds, the drawing tenths of a second
  // of the exact offset: either neighbour of a x.x5 s offset may be drawn.
  const double behind_ms = std::stod(std::regex_replace(m[1].str(), std::regex(" "), ""));
  char below[32], above[32];
  std::snprintf(below, sizeof below, "clock -%.1f s", (behind_ms - 1) / 1000);
  std::snprintf(above, sizeof above, "clock -%.1f s", (behind_ms + 1) / 1000);
  EXPECT_TRUE(campaign.has_text(below) || campaign.has_text(above)) << below << " or " << above;
  expect_named_events_on_their_owners_lanes(campaign, "timelines/9.svg");
  // --shrink draws the shrunk counterexample, and --lock keeps one lock of it.
  const int nth = nth_of(out + "/failures/9.jsonl", "fifo_fairness");
  ASSERT_GT(nth, 0);
  const Svg one_lock = draw(out + "/failures/9.jsonl", "--violation " + std::to_string(nth) + " --shrink --lock lsim:L1",
                            "shrunk-l1.svg");
  EXPECT_TRUE(one_lock.has_text("line lsim:L1"));
  EXPECT_FALSE(one_lock.has_text_containing("lsim:L0"));
  expect_on_canvas(one_lock, "--shrink --lock lsim:L1");

  // The line in queue order: a row per place, the head on top; the purged
  // waiter's first stretch is on the row of the place it joined at, and it
  // was at the head when it was purged (its last stretch on the first row).
  const std::vector<double> rows = line_rows(campaign, "line lsim:L1");
  ASSERT_GE(rows.size(), 1u);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  ASSERT_TRUE(std::regex_search(fifo[0], m, std::regex(R"(:(\d+) \(client (\d+)\), who joined the line at event #(\d+))")));
  // Its stretches' tooltips say where it joined ("c2:3 joined 2nd #19 ...",
  // "c2:3 joined at the head #19 ...").
  const std::string who = "c" + m[2].str() + ":" + m[1].str() + " joined ";
  const std::regex place(R"(joined (at the head|(\d+)(st|nd|rd|th)) #)" + m[3].str() + " ");
  std::vector<const locksim::testing::SvgShape*> stretches;
  int joined_at = 0;
  for (const auto& shape : campaign.shapes) {
    std::smatch p;
    if (shape.tooltip.rfind(who, 0) != 0 || !std::regex_search(shape.tooltip, p, place)) continue;
    joined_at = p[2].matched ? std::stoi(p[2].str()) : 1;
    if (std::any_of(rows.begin(), rows.end(), [&](double y) { return std::abs(shape.cy_pt() - y) < 2; }))
      stretches.push_back(&shape);
  }
  ASSERT_FALSE(stretches.empty()) << who;
  ASSERT_GE(joined_at, 1) << who;
  ASSERT_GE(rows.size(), static_cast<size_t>(joined_at)) << who;
  std::sort(stretches.begin(), stretches.end(), [](const auto* a, const auto* b) { return a->x0_pt < b->x0_pt; });
  // It joined on its place's row and was purged at the head (a purge takes
  // stale heads only): its first stretch on row joined_at, its last on the top row.
  EXPECT_NEAR(stretches.front()->cy_pt(), rows[static_cast<size_t>(joined_at - 1)], 2) << who;
  EXPECT_NEAR(stretches.back()->cy_pt(), rows[0], 2) << who;
}

// Around the event the pause violation names: the paused holder has its
// lane, its pause and its hold from the acquire; its lease expired while it
// believed it held the lock, in red, with a line across the lanes.
TEST_F(TimelineViews, AroundTheViolationShowsThePausedHolderAndItsExpiredLease) {
  const std::string trace = path("pauses.jsonl");
  ASSERT_EQ(run_locksim("run --seed 7 --profile pauses --lock rlock --trace " + trace).exit_code, 1);
  const Svg svg = draw(trace, "--around 134", "a.svg");
  EXPECT_TRUE(svg.has_text("client 3"));  // the paused holder, without an event in the window
  expect_texts(svg,
               {"holds lsim:L0 since #67", "holds lsim:L0 x3 #142", "pause 34.2 s",
                "- expired while client 3 believed it held",
                "lease of client 3 expired at", "#134 lock ok", "Both believe they hold lsim:L0"},
               "--around 134");
  expect_on_canvas(svg, "--around 134");
  expect_named_events_on_their_owners_lanes(svg, "--around 134");
  expect_title_in_words(svg, "mutual exclusion on lsim:L0: client 3 paused 34.2 s past its lease while client 0 took the lock",
                        "--around 134");
  EXPECT_TRUE(svg.has_text(trace + " around #134"));  // the grey line under the title
  // The correct lock's watchdog renews only its own holds.
  EXPECT_FALSE(svg.has_text_containing("renewal of a lock its owner does not hold"));
  EXPECT_FALSE(draw(trace, "", "whole.svg").has_text_containing("renewal of a lock its owner does not hold"));
}

// A busy poller's view counts its polls and their rate and marks the head
// it spins behind; a liveness violation's view shows the lock free on the
// server and the bound.
TEST_F(TimelineViews, BusyPollShowsThePollRateAndLivenessTheFreeSpanAndBound) {
  const std::string trace = path("fair.jsonl");
  ASSERT_EQ(run_locksim("run --seed 286 --profile hostile --lock fair --trace " + trace).exit_code, 1);
  const int busy = nth_of(trace, "busy_poll");
  ASSERT_GT(busy, 0);
  const Svg b = draw(trace, "--property busy_poll", "busy.svg");
  // How many of the trace's events it shows ("103 events of 2 363").
  const std::string total = std::to_string(locksim::testing::line_count(read_file(trace)) - 1);
  std::string grouped_total;
  for (size_t i = 0; i < total.size(); ++i) grouped_total += (i > 0 && (total.size() - i) % 3 == 0 ? " " : "") + total.substr(i, 1);
  EXPECT_TRUE(b.has_text_containing(" events of " + grouped_total + ", ")) << grouped_total;
  EXPECT_TRUE(b.has_text("line lsim:L0"));
  expect_texts(b, {"busy_poll: ", "head that the busy poller spins behind"}, "busy_poll");
  EXPECT_TRUE(std::any_of(b.texts.begin(), b.texts.end(), [](const auto& t) {
    return std::regex_search(t.text, std::regex(R"(\d+ polls, \d+/s behind c\d+:\d+ \(head\))"));
  }));
  expect_on_canvas(b, "busy_poll");
  expect_named_events_on_their_owners_lanes(b, "busy_poll");
  EXPECT_TRUE(std::regex_match(b.title(), std::regex(R"(busy poll on lsim:L0: client \d+ made [\d ]+ polls in [\d.]+ m?s, [\d ]+/s, behind client \d+)")))
      << b.title();

  const int live = nth_of(trace, "liveness", "shows free since");
  ASSERT_GT(live, 0);
  const Svg l = draw(trace, "--violation " + std::to_string(live), "live.svg");
  expect_texts(l, {"free on the server since #", "liveness bound "}, "liveness");
  expect_on_canvas(l, "liveness");
  expect_named_events_on_their_owners_lanes(l, "liveness");
  EXPECT_TRUE(std::regex_match(l.title(), std::regex(R"(liveness on lsim:L0: client \d+ waited [\d.]+ s for a lock free on the server \(bound [\d.]+ s\))")))
      << l.title();
  // The waiter's polls and what the server told it: how long to wait.
  EXPECT_TRUE(std::any_of(l.texts.begin(), l.texts.end(), [](const auto& t) {
    return std::regex_search(t.text, std::regex(R"(^waits lsim:L0 .*\(polls answered #\d+ (wait [\d ]+ ms|-> \S+))"));
  }));
  // The busy poller's line: its rows, the head on top.
  EXPECT_GE(line_rows(b, "line lsim:L0").size(), 3u);
}

// A watchdog that is not cancelled: the renewal after the release, and its
// reply, on the holder's lane.
TEST_F(TimelineViews, WatchdogExpiryShowsTheRenewalOnTheHoldersLane) {
  const std::string out = path("wd");
  const auto r = run_locksim("campaign --mutant watchdog_not_cancelled --seeds 1 --out " + out);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const Svg svg = svg_of(out + "/timelines/1.svg");
  expect_texts(svg, {"rlock_renew", "watchdog was not cancelled", "holds lsim:L0 #"}, "watchdog_expiry");
  expect_on_canvas(svg, "watchdog_expiry");
  expect_named_events_on_their_owners_lanes(svg, "watchdog_expiry");
  // The renewal after the final release, in red and in words, on the holder's lane.
  const auto holder = std::find_if(svg.texts.begin(), svg.texts.end(),
                                   [](const auto& t) { return t.text.rfind("holds lsim:L0 #", 0) == 0; });
  ASSERT_NE(holder, svg.texts.end());
  expect_text_on_lane(svg, R"(^#\d+: a renewal [\d.]+ s after the final release \(#\d+\), answered \d$)",
                      svg.lane_at(holder->y_pt), "watchdog_expiry");
  EXPECT_TRUE(std::regex_match(svg.title(), std::regex(R"(watchdog expiry on lsim:L0: client \d+'s watchdog was still renewing [\d.]+ s after the final release \(#\d+\): #\d+ answered 0)")))
      << svg.title();
}

// A renewal of someone else's lock (the renew_no_owner_check mutant, the
// README's quickstart): red, standing out of the paused holder's bar, and
// said in words on its lane: whose lock it renews, how many times.
TEST_F(TimelineViews, RenewalOfAnothersLockIsRedAndSaysWhose) {
  const std::string out = path("quick");
  ASSERT_EQ(run_locksim("campaign --seeds 20 --profile pauses --mutant renew_no_owner_check --out " + out).exit_code, 1);
  const std::string shrunk = out + "/failures/7.watchdog_expiry.shrunk.jsonl";
  ASSERT_TRUE(std::filesystem::exists(shrunk));
  // Who renews whose lock: the overlap names both with their clients.
  const std::vector<std::string> overlap = check_lines(shrunk, "mutual_exclusion");
  ASSERT_FALSE(overlap.empty());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(overlap[0], m, std::regex(R"(overlap: (\S+) \(client (\d+)\) holds since event #\d+ and (\S+) \(client (\d+)\))")));
  const std::string renewer = m[2], holder = m[4];
  const Svg svg = draw(shrunk, "--property watchdog_expiry", "renew.svg");
  expect_title_in_words(svg, "watchdog expiry on lsim:L0: client " + renewer + "'s watchdog renewed client " + holder + "'s lock (#",
                        "renew_no_owner_check");
  expect_text_on_lane(svg, R"(^(\d+ renewals \(#\d+ to #\d+\)|#\d+: a renewal) of client )" + holder + R"('s lock, (each )?answered 1$)",
                      "client " + renewer, "renew_no_owner_check");
  EXPECT_TRUE(svg.has_text("renewal of a lock its owner does not hold"));  // the legend
  // Its ticks are the offence's colour, on the renewer's lane.
  size_t red_ticks = 0;
  for (const auto& shape : svg.shapes)
    if (shape.tooltip.find(": renews a lock its owner does not hold") != std::string::npos) {
      ++red_ticks;
      EXPECT_EQ(shape.fill, "#7f0000") << shape.tooltip;
      EXPECT_EQ(svg.lane_at(shape.cy_pt()), "client " + renewer) << shape.tooltip;
    }
  EXPECT_GE(red_ticks, 1u);
  expect_on_canvas(svg, "renew_no_owner_check");
}

// explore's counterexamples (docs/exploring.md's first configuration): the
// mutual exclusion case's collapsed 30 s is a break on every bar across it,
// its length written there (the lease on redis 0 among them), and the
// reentrancy case's retried release says why it was sent again.
TEST_F(TimelineViews, ExploreCounterexamplesShowBreaksAndWhyAReleaseWasRetried) {
  const std::string out = path("ex");
  const auto r = run_locksim("explore --lock rlock --clients 2 --ops lock,unlock,lock,unlock --faults crash,pause,loss "
                             "--max-faults 2 --out " + out);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  for (const char* property : {"mutual_exclusion", "reentrancy"}) {  // explore's own timelines say it in words too
    const Svg drawn = svg_of(out + "/timelines/" + property + ".svg");
    EXPECT_EQ(drawn.title().rfind(std::string(property) == "reentrancy" ? "reentrancy on lsim:L0: " : "mutual exclusion on lsim:L0: ", 0), 0u)
        << drawn.title();
  }
  // The counterexample's trace runs on to its end: 30 s of it are quiet.
  const Svg me = draw(out + "/failures/mutual_exclusion.jsonl", "--violation 1", "me.svg");
  expect_title_in_words(me, "mutual exclusion on lsim:L0: client 0 paused 31.0 s past its lease while client 1 took the lock",
                        "explore mutual_exclusion");
  std::set<std::string> broken_lanes;
  for (const auto& t : me.texts)
    if (t.size_pt == 7 && t.text == "30.0 s") broken_lanes.insert(me.lane_at(t.y_pt));
  EXPECT_EQ(broken_lanes, (std::set<std::string>{"client 0", "client 1", "redis 0"}));
  expect_on_canvas(me, "explore mutual_exclusion");
  const Svg re = draw(out + "/failures/reentrancy.jsonl", "--violation 1", "re.svg");
  expect_title_in_words(re, "reentrancy on lsim:L0: client 0's release was sent again (#8) and answered nil, though the first (#5) answered 1: client 0 was paused 31.0 s",
                        "explore reentrancy");
  expect_text_on_lane(re, R"(^#\d+ retried release -> nil \(the first, #\d+, answered 1\): client 0 was paused 31.0 s before it read the reply of #\d+, and the request timed out$)",
                      "client 0", "explore reentrancy");
  expect_on_canvas(re, "explore reentrancy");
}

// A RedLock over 3 servers whose shrunk counterexample never asks the third:
// all three are drawn, and the third says why it is empty; the seed's whole
// trace, where all three serve, has no such note.
TEST_F(TimelineViews, RedLockOverThreeServersDrawsEveryMember) {
  const std::string out = path("rl");
  ASSERT_EQ(run_locksim("campaign --profile hostile --lock redlock --servers 3 --base-seed 2 --seeds 1 --out " + out).exit_code, 1);
  const Svg campaign = svg_of(out + "/timelines/2.svg");
  const Svg shrunk = draw(out + "/failures/2.shrunk.jsonl", "--violation 1", "rl.svg");
  for (const Svg* svg : {&campaign, &shrunk}) {
    for (const char* lane : {"redis 0", "redis 1", "redis 2"}) EXPECT_TRUE(svg->has_text(lane)) << lane;
    expect_text_on_lane(*svg, R"(^not asked: a RedLock acquire stops at a majority \(client \d+'s, #\d+, held redis 0 and 1: 2 of 3\)$)",
                        "redis 2", "redlock");
    expect_on_canvas(*svg, "redlock");
  }
  const Svg whole = draw(out + "/failures/2.jsonl", "--violation 1", "whole.svg");
  EXPECT_TRUE(whole.has_text("redis 2"));
  EXPECT_FALSE(whole.has_text_containing("not asked"));
}

// A ghost in a fair line (the fair_giveup_no_acquire_failed mutant): the
// waiter whose client gave up without acquire_failed stays in the line,
// named above the rows from the give-up on, as ghost_waiter reports it.
TEST_F(TimelineViews, GhostWaiterStaysInTheLineAfterItsClientGaveUp) {
  const std::string out = path("ghost");
  const auto r = run_locksim("campaign --mutant fair_giveup_no_acquire_failed --lock fair --seeds 1 --out " + out);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::vector<std::string> ghost = check_lines(out + "/failures/1.shrunk.jsonl", "ghost_waiter");
  ASSERT_FALSE(ghost.empty());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(ghost[0], m, std::regex(R"(gave up waiting \([^)]*\) at event #(\d+))")));
  const Svg svg = svg_of(out + "/timelines/1.svg");
  EXPECT_TRUE(svg.has_text_containing("still in the line after its client gave up #" + m[1].str() + ": a ghost"));
  EXPECT_GE(line_rows(svg, "line lsim:L0").size(), 1u);
  expect_title_in_words(svg, "ghost waiter on lsim:L0: client ", "ghost");
  EXPECT_NE(svg.title().find(" gave up (#" + m[1].str() + ") but its waiter stayed in the line"), std::string::npos)
      << svg.title();
  // Its stretch in the line from the give-up on is red.
  size_t red = 0;
  for (const auto& shape : svg.shapes) {
    if (shape.tooltip.find(": a ghost from the give-up #" + m[1].str() + " on") == std::string::npos) continue;
    ++red;
    EXPECT_EQ(shape.fill, "#d50000") << shape.tooltip;
    EXPECT_EQ(svg.lane_at(shape.cy_pt()), "line lsim:L0") << shape.tooltip;
  }
  EXPECT_GE(red, 1u);
  expect_on_canvas(svg, "ghost");
  expect_named_events_on_their_owners_lanes(svg, "ghost");
}

// --lock that names no lock of the trace is an error listing those it
// names; --from-ms/--to-ms pick a window by time.
TEST_F(TimelineViews, LockFilterAndTimeWindow) {
  const std::string trace = path("mixed.jsonl");
  ASSERT_EQ(run_locksim("run --seed 3 --lock mixed --locks 2 --duration-s 20 --trace " + trace).exit_code, 0);
  auto r = run_locksim("timeline " + trace + " --lock nosuch -o " + path("x.svg"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("no lock 'nosuch'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("locks present: lsim:L0, lsim:L1"), std::string::npos) << r.out;
  EXPECT_EQ(locksim::testing::line_count(r.out), 1) << r.out;
  const Svg svg = draw(trace, "--lock lsim:L1 --from-ms 2000 --to-ms 5000", "t.svg");
  EXPECT_FALSE(svg.has_text_containing("lsim:L0"));
  std::smatch m;
  bool found = false;
  for (const auto& t : svg.texts) {
    if (!std::regex_search(t.text, m, std::regex(R"(events #\d+ to #\d+: .* ([\d.]+) s to ([\d.]+) s of the run)"))) continue;
    found = true;
    EXPECT_GE(std::stod(m[1]), 2.0);
    EXPECT_LE(std::stod(m[2]), 5.0);
  }
  EXPECT_TRUE(found);
  for (const char* args : {" --from-ms 5000 --to-ms 2000", " --from-ms 10 --from 3", " --around 5 --to-ms 9",
                                  " --from-ms 99999999"}) {
    r = run_locksim("timeline " + trace + std::string(args) + " -o " + path("bad.svg"));
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(locksim::testing::line_count(r.out), 1) << args << ": " << r.out;
  }
}

}  // namespace
