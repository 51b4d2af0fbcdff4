#include "reports/timeline_review.h"


#include <algorithm>
#include <cassert>
#include <cstdio>
#include <map>
#include <sstream>

#include "reports/dot_text.h"
#include "reports/hold_intervals.h"
#include "reports/time_axis.h"

namespace locksim {

namespace {

// Sizes in points (Helvetica 9 pt is about 5.2 pt per character).
constexpr double kCharPt = 5.2;
constexpr double kSmallCharPt = 4.7;  // 8 pt
constexpr double kLaneLabelPt = 110;  // the lane names column
constexpr double kLeftPt = kLaneLabelPt + 16;
constexpr double kRightPadPt = 160;   // room for labels after the last instant
constexpr double kTrackPt = 22;
constexpr double kLanePadPt = 6;
constexpr double kItemGapPt = 8;
constexpr size_t kMaxTracks = 24;     // per lane and category; more share the last track
constexpr size_t kMaxOverlapNotes = 3;
constexpr double kLabelledWaitPt = 40;
constexpr double kMinRedPt = 4;

// Palette.
constexpr const char* kHoldFill = "#7ccf7c";
constexpr const char* kHoldEdge = "#2e7d32";
constexpr const char* kWaitFill = "#c9c9c9";
constexpr const char* kLeaseFill = "#8ab4f8";
constexpr const char* kLeaseEdge = "#1a5fb4";
constexpr const char* kFaultFill = "#ffb74d";
constexpr const char* kFaultEdge = "#e65100";
constexpr const char* kCrashFill = "#616161";
constexpr const char* kRed = "#d50000";
constexpr const char* kOverlapBack = "#ffcdd2";
constexpr const char* kWakeFill = "#9c27b0";

double text_pt(const std::string& text, double char_pt = kCharPt) {
  size_t longest = 0, current = 0;
  for (char c : text) {
    current = c == '\n' ? 0 : current + 1;
    longest = std::max(longest, current);
  }
  return static_cast<double>(longest) * char_pt;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The lock name as a reader knows it: scripts may add a key prefix.
std::string short_owner(const std::string& owner) {
  const auto colon = owner.rfind(':');
  const std::string uuid = owner.substr(0, colon);
  const std::string task = colon == std::string::npos ? "" : owner.substr(colon);
  return (uuid.size() > 8 ? uuid.substr(0, 8) : uuid) + task;
}

enum class Category { Evidence, Fault, Activity, Lease, Script };
constexpr Category kCategories[] = {Category::Evidence, Category::Fault, Category::Activity, Category::Lease,
                                    Category::Script};

struct Mark {  // a tick on a bar: renewal, wake-up, end
  double x_pt = 0;
  std::string shape;   // box (a tick) or diamond
  std::string fill;
  std::string tooltip;
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
  std::vector<Mark> marks;
  std::vector<std::pair<double, double>> red_spans_pt;  // overlapped parts, drawn red on the bar
  // Filled in by packing.
  double label_x_pt = 0;  // left edge of the label
  double extent_x1_pt = 0;
  size_t track = 0;
};

void place_label(Item* item) {
  const double w = text_pt(item->label);
  const double bar = item->x1_pt - item->x0_pt;
  if (item->shape == "box" && bar >= w + 8) {
    item->label_x_pt = item->x0_pt + 4;  // inside, at the start
    item->extent_x1_pt = item->x1_pt;
  } else {
    item->label_x_pt = item->x1_pt + 4;  // after the bar
    item->extent_x1_pt = item->x1_pt + 4 + w;
  }
}

struct Lane {
  std::string name;    // "client 0", "redis 1"
  std::string detail;  // second line: the owner / "server"
  std::map<Category, std::vector<Item>> items;
  std::map<Category, size_t> tracks;
  double y0_pt = 0;    // top, growing downwards
  double height_pt = 0;
};

// First-fit packing of one category's items into tracks (sorted by start, stable).
size_t pack(std::vector<Item>* items, bool one_track) {
  if (one_track) {
    for (Item& item : *items) place_label(&item);
    return items->empty() ? 0 : 1;
  }
  std::stable_sort(items->begin(), items->end(), [](const Item& a, const Item& b) { return a.x0_pt < b.x0_pt; });
  std::vector<double> track_end_pt;
  for (Item& item : *items) {
    place_label(&item);
    size_t t = 0;
    while (t < track_end_pt.size() && track_end_pt[t] + kItemGapPt > item.x0_pt) ++t;
    if (t >= kMaxTracks) t = kMaxTracks - 1;
    if (t == track_end_pt.size()) track_end_pt.push_back(-1e18);
    item.track = t;
    track_end_pt[t] = std::max(track_end_pt[t], item.extent_x1_pt);
  }
  return track_end_pt.size();
}

class DotWriter {
 public:
  // A filled box (or other shape) with its centre at (x, y), y growing downwards.
  void shape(const std::string& shape, double cx_pt, double cy_pt, double w_pt, double h_pt, const std::string& fill,
             const std::string& edge, double penwidth, const std::string& style, const std::string& tooltip) {
    out_ << "  n" << next_++ << " [shape=" << shape << ", label=\"\", fixedsize=true, width=" << inches(w_pt)
         << ", height=" << inches(h_pt) << ", style=\"" << style << "\", fillcolor=\"" << fill << "\", color=\""
         << (edge.empty() ? fill : edge) << "\", penwidth=" << num(penwidth) << ", pos=\"" << pos(cx_pt, cy_pt) << "\"";
    if (!tooltip.empty()) out_ << ", tooltip=\"" << dot_escape(tooltip) << "\"";
    out_ << "];\n";
  }
  void rect(double x0_pt, double y0_pt, double x1_pt, double y1_pt, const std::string& fill, const std::string& edge = "",
            double penwidth = 1, const std::string& style = "filled", const std::string& tooltip = "") {
    const double w = std::max(x1_pt - x0_pt, 1.0);
    shape("box", x0_pt + w / 2, (y0_pt + y1_pt) / 2, w, std::max(y1_pt - y0_pt, 1.0), fill, edge, penwidth, style, tooltip);
  }
  // Text whose left edge is at x (or centred there), middle at y. Left-aligned
  // text sits in a fixed-size node as wide as our estimate, justified left
  // ("\l"), so it starts at x whatever the font's real widths are.
  void text(const std::string& label, double x_pt, double y_pt, double size_pt = 9, const std::string& colour = "black",
            bool bold = false, bool centred = false) {
    const double w = std::max(text_pt(label, size_pt >= 9 ? kCharPt : kSmallCharPt) * size_pt / (size_pt >= 9 ? 9 : 8), 4.0);
    out_ << "  n" << next_++ << " [shape=plaintext, fontsize=" << num(size_pt) << ", fontcolor=\"" << colour << "\""
         << (bold ? ", fontname=\"Helvetica-Bold\"" : "") << ", margin=0";
    if (centred) {
      out_ << ", label=\"" << dot_escape(label) << "\", width=0, height=0, pos=\"" << pos(x_pt, y_pt) << "\"];\n";
    } else {
      out_ << ", label=\"" << dot_escape(label) << "\\l\", fixedsize=true, width=" << inches(w)
           << ", height=" << inches(size_pt + 2) << ", pos=\"" << pos(x_pt + w / 2, y_pt) << "\"];\n";
    }
  }
  // A straight line (an edge between two invisible points).
  void line(double x0_pt, double y0_pt, double x1_pt, double y1_pt, const std::string& colour, const std::string& style,
            double penwidth = 1) {
    const size_t a = point(x0_pt, y0_pt);
    const size_t b = point(x1_pt, y1_pt);
    out_ << "  n" << a << " -> n" << b << " [color=\"" << colour << "\", style=\"" << style
         << "\", penwidth=" << num(penwidth) << "];\n";
  }
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& colour) {
    for (size_t i = 1; i < points.size(); ++i) {
      line(points[i - 1].first, points[i - 1].second, points[i].first, points[i].second, colour, "solid");
    }
  }
  std::string str() const { return out_.str(); }
  std::ostringstream& raw() { return out_; }

 private:
  static std::string inches(double pt) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", pt / 72.0);
    return buf;
  }
  static std::string pos(double x_pt, double y_pt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f,%.1f!", x_pt, -y_pt);
    return buf;
  }
  size_t point(double x_pt, double y_pt) {
    const size_t id = next_++;
    out_ << "  n" << id << " [shape=point, style=invis, width=0.01, height=0.01, label=\"\", pos=\"" << pos(x_pt, y_pt)
         << "\"];\n";
    return id;
  }
  std::ostringstream out_;
  size_t next_ = 0;
};

std::string client_lane(int c) { return "client " + std::to_string(c); }
std::string server_lane(int s) { return "redis " + std::to_string(s); }

// The lane an event's mark belongs to (as in the sequence view).
std::string lane_of(const Event& e) {
  if (e.kind == EventKind::Script) return server_lane(std::max(e.server, 0));
  if (e.kind == EventKind::Fault) {
    if (e.op == "redis_restart" || e.op == "failover") return server_lane(e.server >= 0 ? e.server : std::max(e.target, 0));
    if (e.op == "clock_jump" && e.client < 0) return server_lane(e.server >= 0 ? e.server : std::max(e.target, 0));
    if (e.target >= 0) return client_lane(e.target);
  }
  return client_lane(std::max(e.client, 0));
}

// A lease key names the lock, maybe with a prefix ("lsim:L0") or a member
// suffix ("G@1"): does it belong to `lock`?
bool lease_is_of(const std::string& key, const std::string& lock) {
  if (key == lock) return true;
  const auto at = key.find(lock);
  if (at == std::string::npos) return false;
  const size_t after = at + lock.size();
  const bool left_ok = at == 0 || key[at - 1] == ':' || key[at - 1] == '{';
  const bool right_ok = after == key.size() || key[after] == '@' || key[after] == '}';
  return left_ok && right_ok;
}

std::string lease_end_text(const Lease& l) {
  switch (l.end) {
    case Lease::End::Expired: return "expired";
    case Lease::End::Deleted: return "deleted";
    case Lease::End::ServerReset: return l.reset_by == "failover" ? "lost in the failover" : "lost in the restart";
    case Lease::End::Replaced: return "gone";
    case Lease::End::Open: return "";
  }
  return "";
}

std::string hold_end_text(const BelievedHold& h) {
  switch (h.end) {
    case BelievedHold::End::Released: return "unlock #" + std::to_string(h.end_event);
    case BelievedHold::End::Lost: return "learns lost #" + std::to_string(h.end_event);
    case BelievedHold::End::Crashed: return "crash #" + std::to_string(h.end_event);
    case BelievedHold::End::Open: return "still held at the end";
  }
  return "";
}

std::vector<std::string> wrap(const std::string& text, size_t width_chars) {
  std::vector<std::string> lines;
  std::string current;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!current.empty() && current.size() + 1 + word.size() > width_chars) {
      lines.push_back(current);
      current.clear();
    }
    current += (current.empty() ? "" : " ") + word;
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

}  // namespace

std::string review_timeline_dot(const std::vector<Event>& all_events, const TimelineOptions& options) {
  const size_t count = std::min(all_events.size(), options.max_events);
  const std::vector<Event> events(all_events.begin(), all_events.begin() + static_cast<std::ptrdiff_t>(count));
  HoldIntervals iv = derive_hold_intervals(events);
  // Bars still open at the end of the window run on a little past it (a
  // twenty-fifth of the span), so a hold that began with the last event (a
  // shrunk counterexample ends there) shows, and its overlap too.
  const int64_t horizon_us = iv.end_us;
  const bool any_open = std::any_of(iv.holds.begin(), iv.holds.end(),
                                    [](const BelievedHold& h) { return h.end == BelievedHold::End::Open; });
  if (any_open) {
    iv.end_us += std::max<int64_t>((iv.end_us - iv.first_us) / 25, 1000);
    for (BelievedHold& h : iv.holds) {
      if (h.end == BelievedHold::End::Open) h.end_us = iv.end_us;
    }
    for (Wait& w : iv.waits) {
      if (w.open) w.end_us = iv.end_us;
    }
    for (Lease& l : iv.leases) {
      if (l.end == Lease::End::Open) l.end_us = iv.end_us;
    }
    for (HoldOverlap& o : iv.overlaps) {
      if (iv.holds[o.first].end == BelievedHold::End::Open && iv.holds[o.second].end == BelievedHold::End::Open) {
        o.end_us = iv.end_us;
      }
    }
  }
  auto seen_us = [&](int64_t span_end_us) { return std::min(span_end_us, horizon_us); };

  // The instants the axis must tell apart.
  std::vector<int64_t> instants;
  instants.reserve(events.size() + iv.leases.size() + iv.faults.size());
  for (const Event& e : events) instants.push_back(e.true_us);
  for (const Lease& l : iv.leases) instants.push_back(l.end_us);
  for (const FaultSpan& f : iv.faults) instants.push_back(f.end_us);
  instants.push_back(iv.end_us);
  TimeAxisOptions axis_options;
  axis_options.quiet_us = options.quiet_us;
  const TimeAxis axis(instants, axis_options);
  auto X = [&](int64_t true_us) { return kLeftPt + axis.x_pt(true_us); };
  // A bar from start to end (at least 2 pt wide, so an instant still shows).
  auto bar = [&](Category category, int64_t start_us, int64_t end_us, double height_pt, std::string fill,
                 std::string edge) {
    Item item;
    item.category = category;
    item.x0_pt = X(start_us);
    item.x1_pt = std::max(X(end_us), item.x0_pt + 2);
    item.height_pt = height_pt;
    item.fill = std::move(fill);
    item.edge = std::move(edge);
    return item;
  };

  // Lanes: clients ascending, then servers ascending.
  std::vector<Lane> lanes;
  std::map<std::string, size_t> lane_index;
  std::map<int, std::string> owner_of_client;
  for (const Event& e : events) {
    if (e.client >= 0 && !e.owner.empty() && e.kind != EventKind::Script) owner_of_client.emplace(e.client, e.owner);
  }
  for (int c : iv.clients) {
    lane_index[client_lane(c)] = lanes.size();
    const auto owner = owner_of_client.find(c);
    lanes.push_back({client_lane(c), owner == owner_of_client.end() ? "" : short_owner(owner->second), {}, {}, 0, 0});
  }
  for (int s : iv.servers) {
    lane_index[server_lane(s)] = lanes.size();
    lanes.push_back({server_lane(s), "server", {}, {}, 0, 0});
  }
  auto lane = [&](const std::string& name) -> Lane& {
    auto [it, added] = lane_index.emplace(name, lanes.size());
    if (added) lanes.push_back({name, "", {}, {}, 0, 0});
    return lanes[it->second];
  };

  // Believed holds (red where they overlap another owner's).
  std::vector<std::vector<std::pair<double, double>>> red_of_hold(iv.holds.size());
  for (const HoldOverlap& o : iv.overlaps) {
    red_of_hold[o.first].push_back({X(o.start_us), X(o.end_us)});
    red_of_hold[o.second].push_back({X(o.start_us), X(o.end_us)});
  }
  for (size_t i = 0; i < iv.holds.size(); ++i) {
    const BelievedHold& h = iv.holds[i];
    Item item = bar(Category::Activity, h.start_us, h.end_us, 14, kHoldFill, kHoldEdge);
    const bool open = h.end == BelievedHold::End::Open;
    item.label = h.start_known ? "holds " + h.lock + " #" + std::to_string(h.start_event) + " - " + hold_end_text(h) +
                                     (open && seen_us(h.end_us) == h.start_us
                                          ? std::string()
                                          : ", " + format_duration_us(seen_us(h.end_us) - h.start_us))
                               : "holds " + h.lock + " since before the window - " + hold_end_text(h);
    item.tooltip = h.owner + " believes it holds " + h.lock;
    item.red_spans_pt = red_of_hold[i];
    lane(client_lane(h.client)).items[Category::Activity].push_back(std::move(item));
  }
  for (const Wait& w : iv.waits) {
    Item item = bar(Category::Activity, w.start_us, w.end_us, 7, kWaitFill, "#9e9e9e");
    const int64_t span_us = w.end_us - w.start_us;
    // Short waits (an immediate acquire, a single try) stay unlabelled: they are noise in a review.
    if (item.x1_pt - item.x0_pt >= kLabelledWaitPt) {
      item.label = "waits " + w.lock + " " + format_duration_us(span_us) +
                   (w.open ? "…" : (w.acquired ? "" : (w.crashed ? " (crashed)" : " (gave up)")));
    }
    item.tooltip = w.op + " " + w.lock + " #" + std::to_string(w.start_event) + " -> #" + std::to_string(w.end_event);
    for (const IntervalTick& t : w.wakeups) item.marks.push_back({X(t.true_us), "diamond", kWakeFill, "#" + std::to_string(t.event_id) + " " + t.label});
    lane(client_lane(w.client)).items[Category::Activity].push_back(std::move(item));
  }

  // Leases, and the expiries that outlived their owner's belief.
  std::vector<std::pair<int64_t, std::string>> expiry_lines;  // true_us, note
  for (const Lease& l : iv.leases) {
    Item item = bar(Category::Lease, l.start_us, l.end_us, 14, kLeaseFill, kLeaseEdge);
    int client = -1;
    for (const BelievedHold& h : iv.holds) {
      if (h.owner == l.owner) client = h.client;
    }
    const std::string whose = client >= 0 ? client_lane(client) : short_owner(l.owner);
    item.label = "lease " + l.lock + " (" + whose +
                 (l.lease_ms > 0 ? ", " + format_duration_us(l.lease_ms * 1000) : std::string(", from before")) + ")";
    if (!l.renewals.empty()) item.label += ", " + std::to_string(l.renewals.size()) + " renewal" + (l.renewals.size() > 1 ? "s" : "");
    if (const std::string end = lease_end_text(l); !end.empty()) item.label += " - " + end;
    item.tooltip = l.owner + " on the server, #" + std::to_string(l.start_event);
    for (const IntervalTick& t : l.renewals) item.marks.push_back({X(t.true_us), "box", "black", "#" + std::to_string(t.event_id) + " " + t.label});
    if (l.end == Lease::End::Expired) {
      item.marks.push_back({X(l.end_us), "box", kRed, "expired"});
      // Did its owner still believe it held the lock then?
      for (const BelievedHold& h : iv.holds) {
        if (h.owner == l.owner && lease_is_of(l.lock, h.lock) && h.start_us <= l.end_us && h.end_us > l.end_us) {
          const int64_t set_us = l.renewals.empty() ? l.start_us : l.renewals.back().true_us;
          expiry_lines.push_back({l.end_us, "lease of " + whose + " expired (" + format_duration_us(l.end_us - set_us) +
                                                " after its " + (l.renewals.empty() ? "grant" : "last renewal") +
                                                "), still believed held"});
          break;
        }
      }
    }
    lane(server_lane(l.server)).items[Category::Lease].push_back(std::move(item));
  }

  // Faults.
  for (const FaultSpan& f : iv.faults) {
    Item item;
    item.category = Category::Fault;
    item.x0_pt = X(f.start_us);
    item.label = f.label;
    item.tooltip = "#" + std::to_string(f.start_event) + " " + f.label;
    if (f.instant) {
      item.shape = "triangle";
      item.x1_pt = item.x0_pt + 5;
      item.x0_pt -= 5;
      item.height_pt = 10;
      item.fill = f.kind == "lost" ? "#ffe0b2" : kFaultFill;
      item.edge = kFaultEdge;
    } else {
      item.x1_pt = std::max(X(f.end_us), item.x0_pt + 2);
      item.height_pt = 12;
      item.fill = f.kind == "crash" ? kCrashFill : kFaultFill;
      item.edge = f.kind == "crash" ? "black" : kFaultEdge;
      if (f.kind == "crash") item.label_colour = "white";
    }
    lane(f.client >= 0 ? client_lane(f.client) : server_lane(f.server)).items[Category::Fault].push_back(std::move(item));
  }

  // Scripts that changed nothing drawn as dots (polls, refused renewals).
  // Highlighted events as red marks named by their ids.
  for (const Event& e : events) {
    const bool hot = options.highlight_ids.count(e.id) > 0;
    if (hot) {
      Item item;
      item.category = Category::Evidence;
      item.shape = "diamond";
      item.x0_pt = X(e.true_us) - 6;
      item.x1_pt = X(e.true_us) + 6;
      item.height_pt = 12;
      item.fill = kRed;
      item.edge = kRed;
      std::string what = describe_event(e);
      std::replace(what.begin(), what.end(), '\n', ' ');
      item.label = "#" + std::to_string(e.id) + " " + what;
      item.label_colour = kRed;
      item.bold = true;
      item.tooltip = item.label;
      lane(lane_of(e)).items[Category::Evidence].push_back(std::move(item));
    }
    if (e.kind == EventKind::Script) {
      Item item;
      item.category = Category::Script;
      item.shape = "circle";
      item.x0_pt = X(e.true_us) - 2;
      item.x1_pt = X(e.true_us) + 2;
      item.height_pt = 4;
      item.fill = "#757575";
      item.tooltip = "#" + std::to_string(e.id) + " " + e.script + " " + e.owner + " -> " + e.reply;
      lane(lane_of(e)).items[Category::Script].push_back(std::move(item));
    }
  }

  // --- vertical layout ---------------------------------------------------------
  const double width_pt = kLeftPt + axis.width_pt() + kRightPadPt;
  std::string title = options.title;
  if (count < all_events.size()) {
    title += " (first " + std::to_string(count) + " of " + std::to_string(all_events.size()) + " events)";
  }
  std::vector<std::string> notes;  // red lines under the title: overlaps
  for (size_t i = 0; i < iv.overlaps.size() && i < kMaxOverlapNotes; ++i) {
    const HoldOverlap& o = iv.overlaps[i];
    const BelievedHold& a = iv.holds[o.first];
    const BelievedHold& b = iv.holds[o.second];
    const bool both_open = a.end == BelievedHold::End::Open && b.end == BelievedHold::End::Open;
    const std::string how_long =
        both_open ? (seen_us(o.end_us) > o.start_us ? "for at least " + format_duration_us(seen_us(o.end_us) - o.start_us)
                                                    : "at the end of the window")
                  : "for " + format_duration_us(o.end_us - o.start_us);
    notes.push_back("Both believe they hold " + a.lock + " " + how_long + ": " +
                    client_lane(a.client) + " (since #" + std::to_string(a.start_event) + ") and " +
                    client_lane(b.client) + " (acquired #" + std::to_string(b.start_event) + ")");
  }
  if (iv.overlaps.size() > kMaxOverlapNotes) {
    notes.push_back("... and " + std::to_string(iv.overlaps.size() - kMaxOverlapNotes) + " more overlaps");
  }
  const size_t wrap_chars = static_cast<size_t>(std::max(60.0, width_pt / kCharPt));
  std::vector<std::string> caption_lines = wrap(options.caption, wrap_chars);

  double y_pt = 0;
  const double title_y_pt = y_pt + 10;
  y_pt += 26;
  const double caption_y_pt = y_pt;
  y_pt += 13 * static_cast<double>(caption_lines.size() + notes.size()) + 8;
  const double axis_label_y_pt = y_pt + 6;
  const double axis_y_pt = y_pt + 18;
  y_pt = axis_y_pt + 10;
  const double lanes_top_pt = y_pt;
  for (Lane& l : lanes) {
    l.y0_pt = y_pt;
    double h = kLanePadPt;
    for (Category c : kCategories) {
      auto it = l.items.find(c);
      const size_t tracks = it == l.items.end() ? 0 : pack(&it->second, c == Category::Script);
      l.tracks[c] = tracks;
      h += static_cast<double>(tracks) * (c == Category::Script ? 10 : kTrackPt);
    }
    l.height_pt = std::max(h + kLanePadPt, 34.0);
    y_pt += l.height_pt;
  }
  const double lanes_bottom_pt = y_pt;
  const double legend_y_pt = lanes_bottom_pt + 22;

  // --- drawing ---------------------------------------------------------------------
  DotWriter w;
  // Backgrounds first: lane stripes, quiet bands, overlap columns.
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    w.rect(0, l.y0_pt, width_pt, l.y0_pt + l.height_pt, i % 2 == 0 ? "#f5f5f5" : "#ffffff");
  }
  for (const TimeAxis::QuietBand& b : axis.bands()) {
    const double x0 = kLeftPt + b.x0_pt + 6, x1 = kLeftPt + b.x1_pt - 6;
    w.rect(x0, axis_y_pt - 4, x1, lanes_bottom_pt, "#eceff1", "", 1, "filled",
           format_duration_us(b.end_us - b.start_us) + " without events, collapsed");
  }
  for (const TimeAxis::Tick& t : axis.ticks()) {  // grid lines
    w.rect(kLeftPt + t.x_pt - 0.3, axis_y_pt + 4, kLeftPt + t.x_pt + 0.3, lanes_bottom_pt, "#dddddd");
  }
  for (const HoldOverlap& o : iv.overlaps) {
    w.rect(X(o.start_us), lanes_top_pt, std::max(X(o.end_us), X(o.start_us) + 2), lanes_bottom_pt, kOverlapBack, "", 1,
           "filled", "overlap");
  }
  // Lane names.
  for (const Lane& l : lanes) {
    const double mid = l.y0_pt + l.height_pt / 2;
    w.text(l.name, 8, l.detail.empty() ? mid : mid - 6, 10, "black", true);
    if (!l.detail.empty()) w.text(l.detail, 8, mid + 7, 8, "#555555");
  }
  // Title, caption, notes.
  w.text(title, 8, title_y_pt, 12, "black", true);
  double line_y = caption_y_pt;
  for (const std::string& c : caption_lines) {
    w.text(c, 8, line_y, 9, "#333333");
    line_y += 13;
  }
  for (const std::string& n : notes) {
    w.text(n, 8, line_y, 9, kRed, true);
    line_y += 13;
  }
  // Items, lane by lane, category by category, track by track.
  for (const Lane& l : lanes) {
    double track_y = l.y0_pt + kLanePadPt;
    for (Category c : kCategories) {
      auto it = l.items.find(c);
      const double track_h = c == Category::Script ? 10 : kTrackPt;
      const size_t tracks = l.tracks.at(c);
      if (it != l.items.end()) {
        for (const Item& item : it->second) {
          const double cy = track_y + (static_cast<double>(item.track) + 0.5) * track_h;
          const double bar_w = std::max(item.x1_pt - item.x0_pt, 1.5);
          w.shape(item.shape, item.x0_pt + bar_w / 2, cy, bar_w, item.height_pt, item.fill, item.edge, item.penwidth,
                  item.style, item.tooltip);
          for (const auto& [r0, r1] : item.red_spans_pt) {
            const double a = std::max(r0, item.x0_pt), b = std::min(r1, item.x1_pt);
            const double b_min = std::max(b, a + kMinRedPt);  // an overlap that just began still shows
            if (b >= a) w.rect(a, cy - item.height_pt / 2, b_min, cy + item.height_pt / 2, kRed, "#b71c1c", 1, "filled", "overlap");
          }
          for (const Mark& m : item.marks) {
            if (m.shape == "diamond") {
              w.shape("diamond", m.x_pt, cy, 8, 10, m.fill, m.fill, 1, "filled", m.tooltip);
            } else {
              w.shape("box", m.x_pt, cy, 2, item.height_pt + 6, m.fill, m.fill, 1, "filled", m.tooltip);
            }
          }
          if (!item.label.empty()) {
            const bool inside = item.label_x_pt < item.x1_pt;
            bool on_red = false;
            for (const auto& [r0, r1] : item.red_spans_pt) on_red |= inside && item.label_x_pt + 20 > r0 && item.label_x_pt < r1;
            const std::string colour = on_red ? "white" : (inside ? item.label_colour : (item.bold ? kRed : "black"));
            w.text(item.label, item.label_x_pt, cy, 9, colour, item.bold || on_red);
          }
        }
      }
      track_y += static_cast<double>(tracks) * track_h;
    }
  }
  // The axis: a line, round ticks, quiet bands with their lengths.
  w.line(kLeftPt, axis_y_pt, kLeftPt + axis.width_pt(), axis_y_pt, "#424242", "solid", 1.2);
  for (const TimeAxis::Tick& t : axis.ticks()) {
    w.line(kLeftPt + t.x_pt, axis_y_pt - 4, kLeftPt + t.x_pt, axis_y_pt + 4, "#424242", "solid");
    w.text(t.label, kLeftPt + t.x_pt, axis_label_y_pt, 8, "#424242", false, true);
  }
  for (const TimeAxis::QuietBand& b : axis.bands()) {
    const double x0 = kLeftPt + b.x0_pt + 6, x1 = kLeftPt + b.x1_pt - 6;
    for (double x : {x0, x1}) {  // zig-zag edges
      std::vector<std::pair<double, double>> zig;
      bool left = true;
      for (double y = axis_y_pt - 4; y <= lanes_bottom_pt; y += 8, left = !left) zig.push_back({x + (left ? -3 : 3), y});
      w.polyline(zig, "#90a4ae");
    }
    w.text(format_duration_us(b.end_us - b.start_us), (x0 + x1) / 2, axis_label_y_pt - 4, 8, "#37474f", true, true);
    w.text("quiet", (x0 + x1) / 2, axis_label_y_pt + 6, 8, "#37474f", false, true);
  }
  w.text("true time", 8, axis_y_pt, 8, "#424242");
  // Expiries that outlived their owner's belief: dashed lines across every lane.
  for (const auto& [at_us, note] : expiry_lines) {
    w.line(X(at_us), axis_y_pt + 2, X(at_us), lanes_bottom_pt, kRed, "dashed", 1.4);
    w.text(note, X(at_us) + 4, axis_y_pt + 8, 8, kRed, true);
  }
  // Legend.
  double lx = 8;
  auto legend = [&](const std::string& shape, const std::string& fill, const std::string& edge, double w_pt, double h_pt,
                    const std::string& text) {
    w.shape(shape, lx + w_pt / 2, legend_y_pt, w_pt, h_pt, fill, edge, 1, "filled", "");
    w.text(text, lx + w_pt + 4, legend_y_pt, 8, "#333333");
    lx += w_pt + 10 + text_pt(text, kSmallCharPt) + 14;
  };
  legend("box", kHoldFill, kHoldEdge, 22, 12, "believed hold (acquire ok to unlock, loss or crash)");
  legend("box", kWaitFill, "#9e9e9e", 22, 7, "wait");
  legend("diamond", kWakeFill, kWakeFill, 8, 10, "wake-up message");
  legend("box", kLeaseFill, kLeaseEdge, 22, 12, "lease on the server");
  legend("box", "black", "black", 2, 14, "renewal");
  legend("box", kFaultFill, kFaultEdge, 22, 12, "fault (pause, partition...)");
  legend("triangle", kFaultFill, kFaultEdge, 10, 10, "instant fault");
  legend("box", kRed, "#b71c1c", 22, 12, "overlap");
  legend("diamond", kRed, kRed, 12, 12, "named event");
  legend("box", "#eceff1", "#90a4ae", 22, 12, "quiet, collapsed");

  std::ostringstream dot;
  dot << "digraph timeline {\n"
      << "  graph [splines=line, outputorder=nodesfirst, fontname=\"Helvetica\", bgcolor=white, pad=0.2];\n"
      << "  node [fontname=\"Helvetica\"];\n"
      << "  edge [arrowhead=none];\n"
      << w.str() << "}\n";
  return dot.str();
}

}  // namespace locksim
