// The review timeline drawn from its layout (reports/review_layout.h), one
// function per layer, back to front: lane stripes, quiet bands with their
// zig-zag edges, grid lines and overlap columns; lane names; the header;
// the items of every lane; the time axis with its breaks; the red lines
// across the lanes; the legend.
#include "reports/timeline_review.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "reports/dot_writer.h"
#include "reports/review_layout.h"
#include "reports/review_text.h"

namespace locksim {

namespace {

using namespace review;

constexpr const char* kBreakInk = "#37474f";

std::string break_tooltip(const AxisBreak& b) {
  return b.length + (b.past_window ? " after the window's last event, not drawn" : " without events, collapsed");
}

void draw_backgrounds(const ReviewLayout& L, DotWriter& w) {
  for (size_t i = 0; i < L.lanes.size(); ++i) {
    const Lane& l = L.lanes[i];
    w.rect(0, l.y0_pt, L.width_pt, l.y0_pt + l.height_pt, l.is_line() ? "#f3effa" : (i % 2 == 0 ? "#f5f5f5" : "#ffffff"),
           "", 1, "filled", l.name, "lane");
  }
  for (const AxisBreak& b : L.breaks) {
    w.rect(b.x0_pt, L.axis_y_pt - 4, b.x1_pt, L.lanes_bottom_pt, kQuietFill, "", 1, "filled", break_tooltip(b));
    for (double x : {b.x0_pt, b.x1_pt}) {  // zig-zag edges, behind what the lanes draw
      std::vector<std::pair<double, double>> zig;
      bool left = true;
      for (double y = L.axis_y_pt - 4; y <= L.lanes_bottom_pt; y += 8, left = !left) zig.push_back({x + (left ? -3 : 3), y});
      w.polyline(zig, kQuietEdge);
    }
  }
  for (const AxisTick& t : L.ticks) w.rect(t.x_pt - 0.3, L.axis_y_pt + 4, t.x_pt + 0.3, L.lanes_bottom_pt, "#dddddd");
  for (const OverlapColumn& o : L.overlaps)
    w.rect(o.x0_pt, L.lanes_top_pt, o.x1_pt, L.lanes_bottom_pt, kOverlapBack, "", 1, "filled", o.tooltip, o.cls);
}

void draw_lane_names(const ReviewLayout& L, DotWriter& w) {
  for (const Lane& l : L.lanes) {
    const double block = 12 + 11 * static_cast<double>(l.details.size());
    double y = l.y0_pt + l.height_pt / 2 - block / 2 + 6;
    w.text(l.name.size() > 20 ? l.name.substr(0, 19) + "…" : l.name, 8, y, 10, "black", true);
    for (const std::string& d : l.details) {
      y += 11;
      const bool clock = d.rfind("clock ", 0) == 0;
      w.text(d, 8, y, 8, clock ? kDarkRed : "#555555", clock);
    }
  }
}

void draw_header(const ReviewLayout& L, DotWriter& w) {
  double y = L.title_y_pt;
  for (const std::string& t : L.title_lines) {
    w.text(t, 8, y, 12, "black", true);
    y += 16;
  }
  y = L.source_y_pt;
  for (const std::string& t : L.source_lines) {
    w.text(t, 8, y, 9, "#555555");
    y += 13;
  }
  y = L.caption_y_pt;
  for (const std::string& c : L.caption_lines) {
    w.text(c, 8, y, 9, "#333333");
    y += 13;
  }
  for (const std::string& n : L.note_lines) {
    w.text(n, 8, y, 9, kRed, true);
    y += 13;
  }
  for (const std::string& i : L.info_lines) {
    w.text(i, 8, y, 8, "#555555");
    y += 13;
  }
}

// An item's label: above a thin bar, inside a bar that holds it (white on
// red), or after it.
void draw_item_label(const Item& item, double cy, DotWriter& w) {
  if (item.label.empty()) return;
  if (label_above(item)) {
    w.text(item.label, item.label_x_pt, cy - 10, 8, item.label_colour == "white" ? "black" : item.label_colour, item.bold);
    return;
  }
  const bool inside = item.label_x_pt < item.x1_pt;
  bool on_red = false;  // the layout puts a label inside wholly on one red band or clear of them
  for (const Band& b : item.bands)
    on_red |= inside && b.fill == kRed && item.label_x_pt >= b.x0_pt && item.label_x_pt < b.x1_pt;
  const std::string colour =
      on_red ? "white"
             : (inside ? (item.label_colour == "white" || item.label_colour == kRed ? item.label_colour : "black")
                       : (item.label_colour == "white" ? "black" : item.label_colour));
  w.text(item.label, item.label_x_pt, cy, 9, colour, item.bold || on_red);
}

// A break mark: two slanted strokes, like those on a broken axis.
void draw_break_strokes(double x_pt, double cy, double half_h, DotWriter& w) {
  for (double dx : {-2.0, 2.0})
    w.line(x_pt + dx - 2.5, cy + half_h + 2, x_pt + dx + 2.5, cy - half_h - 2, kBreakInk, "solid", 1.2);
}

// Where a bar crosses a collapsed stretch: a gap in the band's colour
// between break marks, with the stretch's true length in it.
void draw_cuts(const Item& item, double cy, DotWriter& w) {
  for (const Cut& c : item.cuts) {
    w.rect(c.x0_pt, cy - item.height_pt / 2 - 1, c.x1_pt, cy + item.height_pt / 2 + 1, kQuietFill, kQuietFill);
    draw_break_strokes(c.x0_pt, cy, item.height_pt / 2, w);
    draw_break_strokes(c.x1_pt, cy, item.height_pt / 2, w);
    if (item.height_pt >= 10) w.text(c.length, (c.x0_pt + c.x1_pt) / 2, cy, 7, kBreakInk, true, true);
  }
}

// Whether a tick at x crosses the item's label inside its bar.
bool under_label(const Item& item, const Mark& m) {
  if (item.label.empty() || label_above(item) || item.label_x_pt >= item.x1_pt || m.shape != "box") return false;
  const bool bold = item.bold || item.label_colour == "white" ||
                    std::any_of(item.bands.begin(), item.bands.end(), [&](const Band& b) {
                      return b.fill == kRed && item.label_x_pt >= b.x0_pt && item.label_x_pt < b.x1_pt;
                    });
  const double label_x1_pt = item.label_x_pt + text_pt(item.label, 9, bold);
  return m.x_pt + m.width_pt / 2 + 1 > item.label_x_pt && m.x_pt - m.width_pt / 2 - 1 < label_x1_pt;
}

// A tick on a bar; one that would cross the label inside the bar is drawn
// as its two ends standing out of the bar, so the words stay clear.
void draw_mark(const Item& item, const Mark& m, double cy, DotWriter& w) {
  const double h = m.height_pt > 0 ? m.height_pt : item.height_pt + 6;
  if (!under_label(item, m)) {
    w.shape(m.shape, m.x_pt, cy, m.width_pt, h, m.fill, m.fill, 1, "filled", m.tooltip);
    return;
  }
  const double half_bar = item.height_pt / 2;
  const double out_pt = std::max((h - item.height_pt) / 2, 3.0);
  for (double sign : {-1.0, 1.0}) {
    const double edge = cy + sign * half_bar;
    w.shape("box", m.x_pt, edge + sign * (out_pt - 1) / 2, m.width_pt, out_pt + 1, m.fill, m.fill, 1, "filled",
            m.tooltip);
  }
}

// One item centred on height cy: its shape, a chevron when it began before
// the window, its bands, its cuts, its marks, its label.
void draw_item(const Item& item, double cy, DotWriter& w) {
  const double bar_w = std::max(item.x1_pt - item.x0_pt, 1.5);
  w.shape(item.shape, item.x0_pt + bar_w / 2, cy, bar_w, item.height_pt, item.fill, item.edge, item.penwidth, item.style,
          item.tooltip, item.cls);
  if (item.open_left) {
    w.polyline({{item.x0_pt + 5, cy - item.height_pt / 2}, {item.x0_pt + 1, cy}, {item.x0_pt + 5, cy + item.height_pt / 2}},
               "#212121");
  }
  for (const Band& b : item.bands) {
    const double h = b.height_pt > 0 ? b.height_pt : item.height_pt;
    w.rect(b.x0_pt, cy - h / 2, std::max(b.x1_pt, b.x0_pt + 1), cy + h / 2, b.fill, b.edge, b.style == "dashed" ? 1.4 : 1,
           b.style, b.tooltip);
  }
  draw_cuts(item, cy, w);
  for (const Mark& m : item.marks) draw_mark(item, m, cy, w);
  draw_item_label(item, cy, w);
}

// Items, lane by lane, category by category, track by track; a fair line's
// rows named by their places, the head on top.
void draw_items(const ReviewLayout& L, DotWriter& w) {
  for (const Lane& l : L.lanes) {
    double track_y = l.y0_pt + kLanePadPt;
    for (Category c : kCategories) {
      const double track_h = c == Category::Script ? kScriptTrackPt : kTrackPt;
      const size_t tracks = l.tracks.at(c);
      if (auto it = l.items.find(c); it != l.items.end()) {
        for (const Item& item : it->second)
          draw_item(item, track_y + (static_cast<double>(item.track) + 0.5) * track_h, w);
      }
      if (c == Category::Activity && l.is_line()) {
        for (size_t r = 0; r < tracks; ++r) {
          const std::string place = ordinal(r + 1) + (r + 1 == kMaxLineRows ? "+" : "");
          w.text(place, kLeftPt - 10, track_y + (static_cast<double>(r) + 0.5) * track_h, 7, kLineEdge, false, true);
        }
      }
      track_y += static_cast<double>(tracks) * track_h;
    }
  }
}

// The axis: a line broken at each collapsed stretch (break marks on it),
// round ticks, quiet bands with zig-zag edges and their true lengths.
void draw_axis(const ReviewLayout& L, DotWriter& w) {
  double from = L.axis_x0_pt;
  for (const AxisBreak& b : L.breaks) {
    w.line(from, L.axis_y_pt, b.x0_pt, L.axis_y_pt, "#424242", "solid", 1.2);
    draw_break_strokes(b.x0_pt, L.axis_y_pt, 3, w);
    draw_break_strokes(b.x1_pt, L.axis_y_pt, 3, w);
    from = b.x1_pt;
  }
  w.line(from, L.axis_y_pt, L.axis_x1_pt, L.axis_y_pt, "#424242", "solid", 1.2);
  for (const AxisTick& t : L.ticks) {
    w.line(t.x_pt, L.axis_y_pt - 4, t.x_pt, L.axis_y_pt + 4, "#424242", "solid");
    w.text(t.label, t.x_pt, L.axis_label_y_pt, 8, "#424242", false, true);
  }
  for (const AxisBreak& b : L.breaks) {
    w.text(b.length, (b.x0_pt + b.x1_pt) / 2, L.axis_label_y_pt - 4, 8, "#37474f", true, true);
    w.text(b.past_window ? "not drawn" : "quiet", (b.x0_pt + b.x1_pt) / 2, L.axis_label_y_pt + 6, 8, "#37474f", false, true);
  }
  w.text("time since the run began", 8, L.axis_y_pt - 12, 8, "#424242");
}

// Expiries that outlived their owner's belief, and liveness bounds: dashed
// lines across every lane, each with its note.
void draw_cross_lines(const ReviewLayout& L, DotWriter& w) {
  double note_y = L.axis_y_pt + 12;
  for (const CrossLine& c : L.cross_lines) {
    w.line(c.x_pt, L.axis_y_pt + 2, c.x_pt, L.lanes_bottom_pt, kRed, "dashed", 1.4);
    w.text(c.note, c.x_pt + 4, note_y, 8, kRed, true);
    note_y += 12;
  }
}

void draw_legend(const ReviewLayout& L, DotWriter& w) {
  for (const LegendEntry& e : L.legend) {
    const double y = L.legend_y_pt + 18 * static_cast<double>(e.row);
    w.shape(e.shape, e.x_pt + e.w_pt / 2, y, e.w_pt, e.h_pt, e.fill, e.edge, 1, e.style, "");
    w.text(e.text, e.x_pt + e.w_pt + 4, y, 8, "#333333");
  }
}

}  // namespace

std::string review_dot(const HistoryRecording& recording, const std::vector<Event>& window,
                       const TimelineOptions& options) {
  const ReviewLayout layout = lay_out_review(recording, window, options);
  DotWriter w;
  draw_backgrounds(layout, w);
  draw_lane_names(layout, w);
  draw_header(layout, w);
  draw_items(layout, w);
  draw_axis(layout, w);
  draw_cross_lines(layout, w);
  draw_legend(layout, w);
  return w.document(layout.width_pt, layout.height_pt);
}

}  // namespace locksim
