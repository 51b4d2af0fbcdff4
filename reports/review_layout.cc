#include "reports/review_layout.h"

#include <algorithm>

#include "properties/saturating_time.h"
#include "properties/scenario_check.h"
#include "reports/review_scene.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

constexpr double kMarginPt = 12;      // right of the rightmost label
constexpr double kItemGapPt = 8;
constexpr size_t kMaxTracks = 48;     // per lane and category; more share the last track
constexpr size_t kMaxOverlapNotes = 3;

// Where a label inside a bar may start: past the chevron of a bar begun
// before the window, past each cut's break mark, at the start of a red
// band (white on red) and just after it.
std::vector<double> label_starts(const Item& item) {
  std::vector<double> at{item.x0_pt + (item.open_left ? 7 : 4)};
  for (const Cut& c : item.cuts) at.push_back(c.x1_pt + 5);
  for (const Band& b : item.bands) {
    if (b.fill != kRed) continue;
    at.push_back(b.x0_pt + 4);
    at.push_back(b.x1_pt + 4);
  }
  std::sort(at.begin(), at.end());
  return at;
}

// Whether a label from `from_pt`, `w_pt` wide (`bold_w_pt` in white bold
// on red), fits inside the bar: within it, clear of every cut, and either
// wholly on one red band or clear of all of them (never half on red).
bool fits_inside(const Item& item, double from_pt, double w_pt, double bold_w_pt) {
  const Band* red = nullptr;
  for (const Band& b : item.bands)
    if (b.fill == kRed && from_pt >= b.x0_pt && from_pt < b.x1_pt) red = &b;
  const double to_pt = from_pt + (red != nullptr ? bold_w_pt : w_pt) + 4;
  if (from_pt < item.x0_pt || to_pt > item.x1_pt) return false;
  if (red != nullptr && to_pt > red->x1_pt) return false;
  for (const Band& b : item.bands)
    if (&b != red && b.fill == kRed && from_pt < b.x1_pt && to_pt > b.x0_pt) return false;
  for (const Cut& c : item.cuts)
    if (from_pt < c.x1_pt + 5 && to_pt > c.x0_pt) return false;
  return true;
}

// The left edge of a label inside the bar: the first place it fits, if any.
bool inside_room(const Item& item, double w_pt, double bold_w_pt, double* at_pt) {
  for (double from : label_starts(item)) {
    if (fits_inside(item, from, w_pt, bold_w_pt)) {
      *at_pt = from;
      return true;
    }
  }
  return false;
}

void place_label(Item* item) {
  const double w = text_pt(item->label, 9, item->bold);
  const double bold_w = text_pt(item->label, 9, true);
  const double bar = item->x1_pt - item->x0_pt;
  if (label_above(*item)) {
    item->label_x_pt = item->x0_pt + 2;
    item->extent_x1_pt = item->x1_pt;
  } else if (double at_pt = 0;
             item->shape == "box" && item->height_pt > kThinPt && bar >= w + 8 && inside_room(*item, w, bold_w, &at_pt)) {
    item->label_x_pt = at_pt;  // inside, at the first place that holds it
    item->extent_x1_pt = item->x1_pt;
  } else {
    // After the bar and whatever is drawn past its end (a lost slot, a mark).
    double end_pt = item->x1_pt;
    for (const Band& b : item->bands) end_pt = std::max(end_pt, b.x1_pt);
    for (const Mark& m : item->marks) end_pt = std::max(end_pt, m.x_pt + m.width_pt / 2);
    item->label_x_pt = end_pt + 4;
    item->extent_x1_pt = end_pt + 4 + w;
  }
  for (const Band& b : item->bands) item->extent_x1_pt = std::max(item->extent_x1_pt, b.x1_pt);
}

// First-fit packing of one category's items into tracks (sorted by start,
// stable); a fixed track (a place in a fair line) is kept. Returns the
// number of tracks.
size_t pack(std::vector<Item>* items, bool one_track) {
  if (one_track) {
    for (Item& item : *items) place_label(&item);
    return items->empty() ? 0 : 1;
  }
  std::stable_sort(items->begin(), items->end(), [](const Item& a, const Item& b) { return a.x0_pt < b.x0_pt; });
  std::vector<double> track_end_pt;
  for (Item& item : *items) {
    place_label(&item);
    if (item.fixed_track >= 0) {
      item.track = static_cast<size_t>(item.fixed_track);
      if (track_end_pt.size() <= item.track) track_end_pt.resize(item.track + 1, -1e18);
      track_end_pt[item.track] = std::max(track_end_pt[item.track], item.extent_x1_pt);
      continue;
    }
    size_t t = 0;
    while (t < track_end_pt.size() && track_end_pt[t] + kItemGapPt > item.x0_pt) ++t;
    if (t >= kMaxTracks) t = kMaxTracks - 1;
    if (t == track_end_pt.size()) track_end_pt.push_back(-1e18);
    item.track = t;
    track_end_pt[t] = std::max(track_end_pt[t], item.extent_x1_pt);
  }
  return track_end_pt.size();
}

// The red lines under the title: each overlap the checker reports (the
// first kMaxOverlapNotes), then how many more there are.
std::vector<std::string> overlap_notes(const ReviewScene& s) {
  std::vector<std::string> notes;
  size_t noted = 0, unlisted = 0;
  for (const RecordedOverlap& o : s.rec.overlaps) {
    if (!o.reported) {
      ++unlisted;
      continue;
    }
    if (noted++ >= kMaxOverlapNotes) continue;
    const RecordedHold& a = s.rec.holds[o.first];
    const RecordedHold& b = s.rec.holds[o.second];
    const std::string how_long =
        o.open ? (s.seen_us(o.end_us) > o.start_us ? "for at least " + format_duration_us(s.seen_us(o.end_us) - o.start_us)
                                                   : "at the end of the window")
               : "for " + format_duration_us(o.end_us - o.start_us);
    notes.push_back("Both believe they hold " + b.lock.name() + " " + how_long + ": " + client_lane(a.client) + " (" +
                    s.who(a.owner) + ", since #" + std::to_string(a.start_event) + ") and " + client_lane(b.client) +
                    " (" + s.who(b.owner) + ", acquired #" + std::to_string(b.start_event) + ")");
  }
  if (noted > kMaxOverlapNotes) notes.push_back("... and " + std::to_string(noted - kMaxOverlapNotes) + " more overlaps (drawn)");
  if (unlisted > 0)
    notes.push_back(std::to_string(unlisted) + " more overlap" + (unlisted > 1 ? "s" : "") + " past the " +
                    std::to_string(default_check_config().max_violations_per_checker) + " the checker lists (drawn)");
  return notes;
}

// "events #114 to #154: 41 events of 213, 1.20 s to 5.00 s of the run; ..."
std::string window_info(const ReviewScene& s) {
  const HistoryRecording& rec = s.rec;
  std::string info = "events #" + std::to_string(rec.first_event) + " to #" + std::to_string(rec.last_event) + ": " +
                     grouped(static_cast<int64_t>(s.window.size())) + " events";
  if (s.options.total_events > 0) info += " of " + grouped(static_cast<int64_t>(s.options.total_events));
  info += ", " + run_s(s.t0_us, 2) + " to " + run_s(s.horizon_us, 2) + " of the run";
  if (rec.first_event > 0) info += "; what began before #" + std::to_string(rec.first_event) + " is drawn from its start";
  return info;
}

// Each bar that crosses a collapsed quiet stretch is cut there: it is drawn
// broken, with the stretch's true length on it.
void cut_bars(std::vector<Lane>* lanes, const std::vector<AxisBreak>& breaks) {
  if (breaks.empty()) return;
  for (Lane& l : *lanes) {
    for (auto& [category, items] : l.items) {
      for (Item& item : items) {
        if (item.shape != "box" || item.style == "invis") continue;
        for (const AxisBreak& b : breaks)
          if (item.x0_pt < b.x0_pt && item.x1_pt > b.x1_pt) item.cuts.push_back({b.x0_pt + 3, b.x1_pt - 3, b.length});
      }
    }
  }
}

// Packs every lane's items; returns the right edge of what they draw.
double pack_lanes(std::vector<Lane>* lanes, double content_x1_pt) {
  for (Lane& l : *lanes) {
    for (Category c : kCategories) {
      auto it = l.items.find(c);
      const size_t tracks = it == l.items.end() ? 0 : pack(&it->second, c == Category::Script);
      l.tracks[c] = tracks;
      if (it != l.items.end())
        for (const Item& item : it->second) content_x1_pt = std::max(content_x1_pt, item.extent_x1_pt);
    }
  }
  return content_x1_pt;
}

// The axis, the lines across the lanes, the overlap columns, in points.
void lay_out_axis(const ReviewScene& s, ReviewLayout* out) {
  const TimeAxis& axis = s.axis();
  out->axis_x0_pt = kLeftPt;
  out->axis_x1_pt = kLeftPt + axis.width_pt();
  for (const TimeAxis::Tick& t : axis.ticks()) out->ticks.push_back({kLeftPt + t.x_pt, t.label});
  for (const TimeAxis::QuietBand& b : axis.bands())
    out->breaks.push_back({kLeftPt + b.x0_pt + 6, kLeftPt + b.x1_pt - 6, format_duration_us(b.end_us - b.start_us),
                           b.start_us >= s.horizon_us});
  for (const ExpiryLine& e : s.expiry_lines) out->cross_lines.push_back({s.X(e.at_us), e.note});
  for (const Bound& b : s.evidence.bounds) out->cross_lines.push_back({s.X(b.at_us), b.note});
  for (const RecordedOverlap& o : s.rec.overlaps) {
    out->overlaps.push_back({s.X(o.start_us), std::max(s.X(o.end_us), s.X(o.start_us) + 2),
                             "overlap of #" + std::to_string(s.rec.holds[o.first].start_event) + " and #" +
                                 std::to_string(o.start_event),
                             "overlap " + cls_of(o.start_event)});
  }
}

// The header's lines wrapped to the width, and every height from the top:
// title, caption and notes, the axis, the lanes.
void lay_out_rows(const ReviewScene& s, ReviewLayout* out) {
  const double width_pt = out->width_pt;
  const size_t wrap_chars = static_cast<size_t>((width_pt - 16) / (9 * kBoldRatio));
  const std::string headline = review_headline(s);
  out->title_lines = wrap(headline.empty() ? s.options.title : headline,
                          static_cast<size_t>((width_pt - 16) / (12 * kBoldRatio)));
  if (!headline.empty()) out->source_lines = wrap(s.options.title, static_cast<size_t>((width_pt - 16) / (9 * kCharRatio)));
  out->caption_lines = wrap(s.options.caption, wrap_chars);
  for (const std::string& n : overlap_notes(s))
    for (std::string& line : wrap(n, wrap_chars)) out->note_lines.push_back(std::move(line));
  out->info_lines = wrap(window_info(s), static_cast<size_t>((width_pt - 16) / (8 * kCharRatio)));
  double y_pt = 4;
  out->title_y_pt = y_pt + 8;
  y_pt += 16 * static_cast<double>(out->title_lines.size()) + 6;
  out->source_y_pt = y_pt;
  y_pt += 13 * static_cast<double>(out->source_lines.size());
  out->caption_y_pt = y_pt;
  y_pt += 13 * static_cast<double>(out->caption_lines.size() + out->note_lines.size() + out->info_lines.size()) + 8;
  out->axis_label_y_pt = y_pt + 6;
  out->axis_y_pt = y_pt + 18;
  y_pt = out->axis_y_pt + 10 + 12 * static_cast<double>(out->cross_lines.size());
  out->lanes_top_pt = y_pt;
  for (Lane& l : out->lanes) {
    l.y0_pt = y_pt;
    double h = kLanePadPt;
    for (Category c : kCategories) h += static_cast<double>(l.tracks[c]) * (c == Category::Script ? kScriptTrackPt : kTrackPt);
    const double names_pt = 16 + 11 * static_cast<double>(l.details.size());
    l.height_pt = std::max(h + kLanePadPt, std::max(34.0, names_pt + 8));
    y_pt += l.height_pt;
  }
  out->lanes_bottom_pt = y_pt;
}

// Whether some client lane holds an activity item of that fill.
bool drawn(const std::vector<Lane>& lanes, const char* fill) {
  return std::any_of(lanes.begin(), lanes.end(), [&](const Lane& l) {
    auto it = l.items.find(Category::Activity);
    return it != l.items.end() &&
           std::any_of(it->second.begin(), it->second.end(), [&](const Item& item) { return item.fill == fill; });
  });
}

bool dense_polls_drawn(const std::vector<Lane>& lanes) {
  return std::any_of(lanes.begin(), lanes.end(), [](const Lane& l) {
    auto it = l.items.find(Category::Activity);
    return it != l.items.end() && std::any_of(it->second.begin(), it->second.end(), [](const Item& item) {
             return std::any_of(item.bands.begin(), item.bands.end(), [](const Band& b) { return b.fill == kPollFill; });
           });
  });
}

// The legend: an entry for each kind of thing drawn.
std::vector<LegendEntry> legend_entries(const ReviewScene& s, const std::vector<Lane>& lanes) {
  const HistoryRecording& rec = s.rec;
  std::vector<LegendEntry> legend;
  auto add = [&](std::string shape, const char* fill, const char* edge, double w, double h, std::string text,
                 std::string style = "filled") {
    legend.push_back({std::move(shape), fill, edge, w, h, std::move(text), std::move(style)});
  };
  if (!rec.holds.empty()) add("box", kHoldFill, kHoldEdge, 22, 12, "believed hold (acquire ok to unlock, loss or crash; xN: reentered)");
  if (drawn(lanes, kWaitFill)) add("box", kWaitFill, "#9e9e9e", 22, 7, "wait (acquire invoked to its end), ticks: polls");
  if (dense_polls_drawn(lanes)) add("box", kPollFill, kPollFill, 22, 7, "polls, a dense stretch counted");
  if (std::any_of(rec.waits.begin(), rec.waits.end(), [](const RecordedWait& w) { return !w.wakeups.empty(); }))
    add("diamond", kWakeFill, kWakeFill, 8, 10, "wake-up message");
  if (!rec.line_stays.empty()) {
    add("box", kLineFill, kLineEdge, 22, 12, "waiter in a fair lock's line, on the row of its place (tick: its slot's end)");
    if (s.any_grant) add("box", kHoldEdge, kHoldEdge, 3, 14, "granted the lock");
    if (s.any_purge) add("box", kRed, kRed, 3, 14, "purged from the line");
    if (s.any_early_purge) add("box", "none", kRed, 22, 12, "slot lost to an early purge", "dashed");
    if (s.any_ghost) add("box", kRed, kDarkRed, 22, 12, "still in the line after its client gave up (a ghost)");
  }
  if (!rec.leases.empty()) add("box", kLeaseFill, kLeaseEdge, 22, 12, "lease on the server");
  if (!s.renewals.empty() ||
      std::any_of(rec.leases.begin(), rec.leases.end(), [](const RecordedLease& l) { return !l.renewals.empty(); }))
    add("box", "black", "black", 2, 14, "renewal (red: refused)");
  if (!s.offending_renewals.empty()) add("box", kOffenceInk, kOffenceInk, 3, 18, "renewal of a lock its owner does not hold");
  if (!s.retried_releases.empty()) add("box", "none", kRed, 22, 6, "release retried, and why", "dashed");
  if (!s.evidence.free_spans.empty()) add("box", kFreeFill, kFreeEdge, 22, 10, "lock free on the server");
  if (std::any_of(rec.faults.begin(), rec.faults.end(), [](const RecordedFault& f) { return !f.instant; }))
    add("box", kFaultFill, kFaultEdge, 22, 12, "fault (pause, partition, crash...)");
  if (std::any_of(rec.faults.begin(), rec.faults.end(), [](const RecordedFault& f) { return f.instant; }))
    add("triangle", kFaultFill, kFaultEdge, 10, 10, "instant fault");
  if (!rec.overlaps.empty()) add("box", kRed, kDarkRed, 22, 12, "overlap (the checker's)");
  if (!s.options.highlight_ids.empty()) add("diamond", kRed, kRed, 12, 12, "named event");
  if (!s.axis().bands().empty())
    add("box", kQuietFill, kQuietEdge, 22, 12, "quiet stretch, collapsed (not to scale): its true length is written on it");
  return legend;
}

// The legend in rows that fit the width, under the lanes; the canvas's height.
void lay_out_legend(const ReviewScene& s, ReviewLayout* out) {
  out->legend = legend_entries(s, out->lanes);
  double lx = 8;
  size_t row = 0;
  for (LegendEntry& e : out->legend) {
    const double w = e.w_pt + 10 + text_pt(e.text, 8) + 14;
    if (lx > 8 && lx + w > out->width_pt - 8) {
      ++row;
      lx = 8;
    }
    e.x_pt = lx;
    e.row = row;
    lx += w;
  }
  out->legend_y_pt = out->lanes_bottom_pt + 18;
  out->height_pt = out->legend_y_pt + 18 * static_cast<double>(out->legend.empty() ? 0 : out->legend.back().row) + 12;
}

}  // namespace

bool label_above(const Item& item) {
  return item.shape == "box" && item.height_pt <= kThinPt &&
         item.x1_pt - item.x0_pt >= text_pt(item.label, 8, item.bold) + 4;
}

ReviewLayout lay_out_review(const HistoryRecording& recording, const std::vector<Event>& window,
                            const TimelineOptions& options) {
  ReviewScene scene(recording, window, options);
  add_holds(scene);
  add_stray_renewals(scene);
  add_waits(scene);
  add_line_stays(scene);
  add_leases(scene);
  add_faults(scene);
  add_findings(scene);
  add_named_events_and_scripts(scene);
  add_empty_server_notes(scene);

  ReviewLayout out;
  lay_out_axis(scene, &out);
  cut_bars(&scene.lanes, out.breaks);
  double content_x1_pt = pack_lanes(&scene.lanes, out.axis_x1_pt);
  for (const CrossLine& c : out.cross_lines) content_x1_pt = std::max(content_x1_pt, c.x_pt + 4 + text_pt(c.note, 8, true));
  out.width_pt = std::max(content_x1_pt + kMarginPt, 720.0);
  out.lanes = std::move(scene.lanes);
  lay_out_rows(scene, &out);
  lay_out_legend(scene, &out);
  return out;
}

}  // namespace locksim::review
