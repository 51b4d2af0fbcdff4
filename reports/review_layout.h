// ReviewLayout: the review timeline (reports/timeline_review.h) laid out
// once, as plain data, before anything is drawn: the header's lines, the
// time axis with its ticks and its breaks (collapsed quiet stretches), the
// lanes with their items packed into tracks, the overlap columns, the red
// lines across every lane, the legend, and the canvas they fill. Every
// coordinate is final (points, y growing downwards), so drawing
// (reports/timeline_review.cc, one function per layer) only writes it out.
// lay_out_review() reads a HistoryRecording (properties/history_recording.h),
// the checkers' reading of the history, and the window's events, and is
// pure: the same input gives the same layout.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "properties/history_recording.h"
#include "reports/timeline.h"
#include "traces/event.h"

namespace locksim::review {

// Sizes in points.
constexpr double kLaneLabelPt = 118;  // the lane names column
constexpr double kLeftPt = kLaneLabelPt + 16;
constexpr double kTrackPt = 22;
constexpr double kScriptTrackPt = 12;
constexpr double kLanePadPt = 6;
constexpr size_t kMaxLineRows = 24;   // a fair line's places drawn; those further back share the last row
constexpr double kThinPt = 8;         // a bar this thin (a wait) carries its label above it

// Palette.
constexpr const char* kHoldFill = "#7ccf7c";
constexpr const char* kHoldEdge = "#2e7d32";
constexpr const char* kWaitFill = "#c9c9c9";
constexpr const char* kPollFill = "#616161";
constexpr const char* kLeaseFill = "#8ab4f8";
constexpr const char* kLeaseEdge = "#1a5fb4";
constexpr const char* kLineFill = "#d1c4e9";
constexpr const char* kLineEdge = "#5e35b1";
constexpr const char* kFreeFill = "#fff59d";
constexpr const char* kFreeEdge = "#f9a825";
constexpr const char* kFaultFill = "#ffb74d";
constexpr const char* kFaultEdge = "#e65100";
constexpr const char* kCrashFill = "#616161";
constexpr const char* kRed = "#d50000";
constexpr const char* kDarkRed = "#b71c1c";
constexpr const char* kOffenceInk = "#7f0000";  // an offending renewal's tick (it shows on a red overlap)
constexpr const char* kGhostFill = "#ef9a9a";
constexpr const char* kOverlapBack = "#ffcdd2";
constexpr const char* kWakeFill = "#9c27b0";
constexpr const char* kQuietFill = "#eceff1";
constexpr const char* kQuietEdge = "#90a4ae";

// A lane's items are drawn in rows by category, top to bottom in this order.
enum class Category { Evidence, Fault, Activity, Lease, Script };
inline constexpr Category kCategories[] = {Category::Evidence, Category::Fault, Category::Activity, Category::Lease,
                                           Category::Script};

struct Mark {  // a tick on a bar: renewal, poll, wake-up
  double x_pt = 0;
  std::string shape;   // box (a tick) or diamond
  std::string fill;
  std::string tooltip;
  double height_pt = 0;  // 0: the bar's height + 6
  double width_pt = 2;
};

struct Band {  // a stretch drawn over a bar (dense polls, a red overlap, a purge's lost slot)
  double x0_pt = 0;
  double x1_pt = 0;
  std::string fill;
  std::string edge;
  std::string tooltip;
  double height_pt = 0;  // 0: the bar's
  std::string style = "filled";
};

// Where a bar crosses a collapsed quiet stretch: drawn broken, with the
// stretch's true length on it.
struct Cut {
  double x0_pt = 0;
  double x1_pt = 0;
  std::string length;  // "30.0 s"
};

// One drawable thing in a lane: a bar (or a point) and its label.
struct Item {
  Category category = Category::Activity;
  double x0_pt = 0;
  double x1_pt = 0;
  double height_pt = 12;
  std::string fill;
  std::string edge;
  double penwidth = 1;
  std::string style = "filled";
  std::string shape = "box";
  std::string label;
  std::string label_colour = "black";
  bool bold = false;
  std::string tooltip;
  std::string cls;         // SVG class: "ev e<id>"
  int fixed_track = -1;    // >= 0: this track, not the first that is free (a place in a fair line)
  bool open_left = false;  // started before the window: a chevron at its left edge
  std::vector<Mark> marks;
  std::vector<Band> bands;
  std::vector<Cut> cuts;   // filled in by the layout
  // Filled in by packing.
  double label_x_pt = 0;   // left edge of the label
  double extent_x1_pt = 0;
  size_t track = 0;
};

// Whether a thin bar (a wait) carries its label above it, in 8 pt: it is
// long enough, and its ticks (polls) would cover a label inside it.
bool label_above(const Item& item);

struct Lane {
  std::string name;                  // "client 0", "line lsim:L1", "redis 1"
  std::vector<std::string> details;  // lines under the name: the owner, its clock offset
  std::map<Category, std::vector<Item>> items;
  std::map<Category, size_t> tracks;
  double y0_pt = 0;                  // top
  double height_pt = 0;
  bool is_line() const { return name.rfind("line ", 0) == 0; }
};

struct AxisTick {
  double x_pt = 0;
  std::string label;  // "12.35 s"
};

// A collapsed quiet stretch: a band across the axis and every lane.
struct AxisBreak {
  double x0_pt = 0;      // the band, inside its zig-zag edges
  double x1_pt = 0;
  std::string length;    // how long it was: "41.2 s"
  bool past_window = false;  // after the window's last event: not drawn
};

struct OverlapColumn {  // a pink column behind every lane
  double x0_pt = 0;
  double x1_pt = 0;
  std::string tooltip;
  std::string cls;
};

struct CrossLine {  // a dashed red line across every lane, with its note
  double x_pt = 0;
  std::string note;
};

struct LegendEntry {
  std::string shape, fill, edge;
  double w_pt = 0, h_pt = 0;
  std::string text;
  std::string style = "filled";
  double x_pt = 0;  // placed in rows that fit the width
  size_t row = 0;
};

struct ReviewLayout {
  double width_pt = 0;
  double height_pt = 0;
  // Header: the title (what went wrong, in words, or what the picture is),
  // the source (what the picture is, when the title says what went wrong),
  // the caption (grey), notes (red: the overlaps), window info.
  std::vector<std::string> title_lines, source_lines, caption_lines, note_lines, info_lines;
  double title_y_pt = 0;
  double source_y_pt = 0;
  double caption_y_pt = 0;
  // The time axis.
  double axis_x0_pt = 0;
  double axis_x1_pt = 0;
  double axis_y_pt = 0;
  double axis_label_y_pt = 0;
  std::vector<AxisTick> ticks;
  std::vector<AxisBreak> breaks;
  // Lanes, top to bottom.
  std::vector<Lane> lanes;
  double lanes_top_pt = 0;
  double lanes_bottom_pt = 0;
  std::vector<OverlapColumn> overlaps;
  std::vector<CrossLine> cross_lines;  // expiries that outlived a belief, then liveness bounds
  std::vector<LegendEntry> legend;
  double legend_y_pt = 0;
};

ReviewLayout lay_out_review(const HistoryRecording& recording, const std::vector<Event>& window,
                            const TimelineOptions& options);

}  // namespace locksim::review
