// The review layout's builder for fair lines (reports/review_scene.h): a row
// per place in the line, the head on top. Each waiter's stay runs on the
// row of its place, moving up as those ahead leave, with a tick where its
// slot ends and its end marked by how it left (granted: green, purged: red).
// What a violation names of a stay (a purge before its slot's end, a ghost,
// the head a busy poller spins behind, the waiter a fifo violation names) is
// written above the rows over the time it concerns, in red, with the slot
// it lost dashed.
#include <algorithm>
#include <climits>

#include "properties/saturating_time.h"
#include "properties/scenario_check.h"
#include "reports/review_scene.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

std::string how_it_left(const RecordedLineStay& s) {
  switch (s.left) {
    case RecordedLineStay::Left::Granted: return "granted #" + std::to_string(s.left_event);
    case RecordedLineStay::Left::Purged:
      return "purged #" + std::to_string(s.left_event) +
             (s.purged_by_client >= 0 ? " by client " + std::to_string(s.purged_by_client) : std::string());
    case RecordedLineStay::Left::GaveUp: return "gave up #" + std::to_string(s.left_event);
    case RecordedLineStay::Left::Removed: return "left #" + std::to_string(s.left_event);
    case RecordedLineStay::Left::ServerReset: return "line lost #" + std::to_string(s.left_event);
    case RecordedLineStay::Left::Open: return "in line";
  }
  return "";
}

// What is said of one stay, and whether a violation names it.
struct StayStory {
  std::string name;   // "c2:3"
  std::string how;    // "purged #15 by client 1"
  std::string label;  // the whole story
  bool notable = false;
  bool bold = false;
  int64_t ghost_from_us = -1;  // a ghost: its client gave up then (-1: not a ghost)
  uint64_t gave_up_event = 0;
};

// Still in the line after its client gave up (its own give-up script did
// not take it out): it blocks those behind it until its slot ends. A ghost
// when the ghost_waiter checker says so. Adds the red stretch to `note`.
bool add_ghost(ReviewScene& sc, const RecordedLineStay& s, Item* note, StayStory* st) {
  for (const RecordedWait& w : sc.rec.waits) {
    if (s.left == RecordedLineStay::Left::GaveUp || w.owner != s.owner || w.outcome != RecordedWait::Outcome::GaveUp ||
        w.end_us < s.join_us || w.end_us >= s.left_us || w.start_us > s.join_us)
      continue;
    note->bands.push_back({sc.X(w.end_us), std::max(note->x1_pt, sc.X(w.end_us) + 2), kRed, kDarkRed,
                           "in the line after its client gave up at #" + std::to_string(w.end_event), 12, "filled"});
    st->ghost_from_us = w.end_us;
    st->gave_up_event = w.end_event;
    const bool named = std::any_of(sc.options.focus.begin(), sc.options.focus.end(), [&](const Violation& v) {
      return v.property == property::kGhostWaiter && std::find(v.owners.begin(), v.owners.end(), s.owner) != v.owners.end();
    });
    st->label += " - still in the line after its client gave up #" + std::to_string(w.end_event) + (named ? ": a ghost" : "");
    sc.any_ghost = true;
    return true;
  }
  return false;
}

// The stay's story, and its evidence above the rows (`note`: the stay in
// outline, what it lost or held up in bands).
StayStory stay_story(ReviewScene& sc, const RecordedLineStay& s, Item* note) {
  StayStory st;
  st.name = sc.who(s.owner);
  st.how = how_it_left(s);
  const bool deadline_known = s.deadline_true_us != INT64_MAX;
  st.label = st.name + " joined " + (s.joined_at == 0 ? std::string("at the head") : ordinal(s.joined_at + 1)) + " #" +
             std::to_string(s.join_event) + " - " + st.how;
  const bool slot_matters = s.left != RecordedLineStay::Left::Granted && s.left != RecordedLineStay::Left::GaveUp;
  if (deadline_known && slot_matters) {
    // The slot's end in true time, and by the waiter's clock where that reads otherwise.
    const std::string by_true = run_s(s.deadline_true_us, 2), by_clock = run_s(sc.local_us(s.deadline_ms), 2);
    st.label += ", slot to " + by_true + (by_clock == by_true ? "" : " (" + by_clock + " by its clock)");
  }
  const bool early_purge = s.left == RecordedLineStay::Left::Purged && deadline_known &&
                           s.deadline_true_us > sat_add(s.left_us, ms_to_us(default_check_config().purge_tolerance_ms));
  const bool focused = s.left != RecordedLineStay::Left::Open && sc.evidence.focus_stays.count({s.owner, s.left_event}) > 0;
  if (early_purge) {
    sc.any_early_purge = true;
    st.label += " (" + format_duration_us(s.deadline_true_us - s.left_us) + " of its slot left)";
    note->bands.push_back({note->x1_pt, std::max(sc.X(s.deadline_true_us), note->x1_pt + 2), "none", kRed,
                           "the slot it still had by its own clock", 12, "dashed"});
  }
  const bool ghost = add_ghost(sc, s, note, &st);
  bool spun_behind = false;
  for (const Storm& storm : sc.evidence.storms)
    spun_behind |= !storm.head.empty() && storm.head == s.owner && s.join_us <= storm.to_us && s.left_us >= storm.from_us;
  if (spun_behind) st.label += " - head that the busy poller spins behind";
  st.notable = early_purge || ghost || spun_behind || focused;
  st.bold = focused || spun_behind;
  return st;
}

// The stay, place by place: a bar per stretch on the row of its place.
void add_stay_places(ReviewScene& sc, const RecordedLineStay& s, const StayStory& st, const std::string& tooltip) {
  const bool deadline_known = s.deadline_true_us != INT64_MAX;
  for (size_t k = 0; k < s.places.size(); ++k) {
    const int64_t from_us = s.places[k].first;
    const int64_t to_us = k + 1 < s.places.size() ? s.places[k + 1].first : s.left_us;
    if (to_us < sc.t0_us) continue;
    Item item = sc.bar(Category::Activity, from_us, to_us, 12, kLineFill, st.notable ? kRed : kLineEdge);
    item.fixed_track = static_cast<int>(std::min(s.places[k].second, kMaxLineRows - 1));
    if (st.notable) item.penwidth = 2;
    if (st.ghost_from_us >= 0 && to_us > st.ghost_from_us) {  // a ghost's stretch, in red
      const double x0 = std::max(item.x0_pt, sc.X(st.ghost_from_us));
      item.bands.push_back({x0, std::max(item.x1_pt, x0 + 2), kRed, kDarkRed,
                            st.name + ": a ghost from the give-up #" + std::to_string(st.gave_up_event) + " on"});
    }
    if (item.x1_pt - item.x0_pt >= text_pt(st.name, 9) + 8) item.label = st.name;
    item.tooltip = tooltip;
    item.cls = cls_of(s.join_event);
    if (deadline_known && s.deadline_true_us >= std::max(from_us, sc.t0_us) && s.deadline_true_us <= std::min(to_us, sc.t1_us))
      item.marks.push_back({sc.X(s.deadline_true_us), "box", kLineEdge,
                            "slot of " + st.name + " ends at " + run_s(s.deadline_true_us, 2) + " (its clock: " +
                                run_s(sc.local_us(s.deadline_ms), 2) + ")",
                            16, 1.5});
    if (k + 1 == s.places.size() &&
        (s.left == RecordedLineStay::Left::Purged || s.left == RecordedLineStay::Left::Granted)) {
      const bool purged = s.left == RecordedLineStay::Left::Purged;
      (purged ? sc.any_purge : sc.any_grant) = true;
      item.marks.push_back({item.x1_pt - 1, "box", purged ? kRed : kHoldEdge, st.name + " " + st.how, 16, 3});
    }
    sc.lane(line_lane(s.lock)).items[Category::Activity].push_back(std::move(item));
  }
}

}  // namespace

void add_line_stays(ReviewScene& sc) {
  for (const RecordedLineStay& s : sc.rec.line_stays) {
    Item note = sc.bar(Category::Evidence, s.join_us, s.left_us, 12, "none", kRed);
    note.penwidth = 2;
    note.label_colour = kRed;
    const StayStory st = stay_story(sc, s, &note);
    const std::string tooltip = st.label + "; " + s.owner.str() + " in the line of " + s.lock.name() + ", deadline " +
                                run_s(sc.local_us(s.deadline_ms), 3) + " by its clock" +
                                (s.deadline_moves > 0 ? ", moved " + std::to_string(s.deadline_moves) + " times" : "");
    if (st.notable) {
      note.label = st.label;
      note.bold = st.bold;
      note.tooltip = tooltip;
      note.cls = cls_of(s.join_event);
      sc.lane(line_lane(s.lock)).items[Category::Evidence].push_back(std::move(note));
    }
    add_stay_places(sc, s, st, tooltip);
  }
}

}  // namespace locksim::review
