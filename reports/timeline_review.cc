#include "reports/timeline_review.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <climits>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "properties/saturating_time.h"
#include "properties/scenario_check.h"
#include "reports/dot_text.h"
#include "reports/time_axis.h"
#include "traces/event_detail.h"

namespace locksim {

namespace {

// Sizes in points. Helvetica (Liberation Sans where it is missing) averages
// about 0.55 of the font size per character; 0.6 keeps every label's box
// at least as wide as its text, so the canvas always holds it.
constexpr double kCharRatio = 0.6;
constexpr double kBoldRatio = 0.64;
constexpr double kLaneLabelPt = 118;  // the lane names column
constexpr double kLeftPt = kLaneLabelPt + 16;
constexpr double kMarginPt = 12;      // right of the rightmost label
constexpr double kTrackPt = 22;
constexpr double kScriptTrackPt = 12;
constexpr double kLanePadPt = 6;
constexpr double kItemGapPt = 8;
constexpr size_t kMaxTracks = 48;     // per lane and category; more share the last track
constexpr size_t kMaxOverlapNotes = 3;
constexpr size_t kMaxLineRows = 24;   // a fair line's places drawn; those further back share the last row
constexpr double kLabelledWaitPt = 40;
constexpr double kMinRedPt = 4;
constexpr double kDenseGapPt = 3;     // ticks closer than this are counted, not drawn
constexpr size_t kDenseCount = 8;     // a run of this many such ticks is one band
constexpr int64_t kSkewShownMs = 50;  // a clock offset this large is written under the lane name
constexpr size_t kStormPolls = 10;    // polls this close together are counted as one stretch
constexpr int64_t kStormGapUs = 250'000;

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
constexpr const char* kOverlapBack = "#ffcdd2";
constexpr const char* kWakeFill = "#9c27b0";

double text_pt(const std::string& text, double size_pt, bool bold = false) {
  size_t longest = 0, current = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      current = 0;
      continue;
    }
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: one character
    longest = std::max(longest, ++current);
  }
  return static_cast<double>(longest) * size_pt * (bold ? kBoldRatio : kCharRatio);
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// "1 843": thousands grouped, as format_ms() does.
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ' ';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

// Seconds since the run began: "8.330 s".
std::string run_s(int64_t true_us, int decimals = 3) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f s", decimals, static_cast<double>(true_us) / 1e6);
  return buf;
}

// "1st", "2nd", "11th", "23rd".
std::string ordinal(size_t n) {
  const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                       : n % 10 == 1                     ? "st"
                       : n % 10 == 2                     ? "nd"
                       : n % 10 == 3                     ? "rd"
                                                         : "th";
  return std::to_string(n) + suffix;
}

std::string client_lane(int c) { return "client " + std::to_string(c); }
std::string server_lane(int s) { return "redis " + std::to_string(s); }
std::string line_lane(const std::string& lock) { return "line " + lock; }

// An owner id "<uuid>:<task>" as "c<client>:<task>" (its uuid's first 8
// characters when the client is unknown).
std::string short_owner(const OwnerId& owner, int client) {
  const std::string_view uuid = owner.uuid();
  const std::string task(owner.str().substr(uuid.size()));  // ":<task>", or "" when it has none
  if (client >= 0) return "c" + std::to_string(client) + task;
  return std::string(uuid.substr(0, 8)) + task;
}

std::string uuid_prefix(const OwnerId& owner) {
  const std::string_view uuid = owner.uuid();
  return uuid.size() > 8 ? std::string(uuid.substr(0, 8)) + "…" : std::string(uuid);
}

std::string signed_duration_ms(int64_t ms) {
  return (ms >= 0 ? "+" : "-") + format_duration_us(ms_to_us(sat_abs(ms)));
}

enum class Category { Evidence, Fault, Activity, Lease, Script };
constexpr Category kCategories[] = {Category::Evidence, Category::Fault, Category::Activity, Category::Lease,
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
  std::string cls;     // SVG class: "ev e<id>"
  int fixed_track = -1;  // >= 0: this track, not the first that is free (a place in a fair line)
  bool open_left = false;  // started before the window: a chevron at its left edge
  std::vector<Mark> marks;
  std::vector<Band> bands;
  // Filled in by packing.
  double label_x_pt = 0;  // left edge of the label
  double extent_x1_pt = 0;
  size_t track = 0;
};

// A thin bar (a wait) carries its label above it, in 8 pt, when it is long
// enough: its ticks (polls) would cover a label inside it.
constexpr double kThinPt = 8;
bool label_above(const Item& item) {
  return item.shape == "box" && item.height_pt <= kThinPt && item.x1_pt - item.x0_pt >= text_pt(item.label, 8, item.bold) + 4;
}

void place_label(Item* item) {
  const double w = text_pt(item->label, 9, item->bold);
  const double bar = item->x1_pt - item->x0_pt;
  if (label_above(*item)) {
    item->label_x_pt = item->x0_pt + 2;
    item->extent_x1_pt = item->x1_pt;
  } else if (item->shape == "box" && item->height_pt > kThinPt && bar >= w + 8) {
    item->label_x_pt = item->x0_pt + 4;  // inside, at the start
    item->extent_x1_pt = item->x1_pt;
  } else {
    // After the bar and whatever is drawn past its end (a lost slot).
    double end_pt = item->x1_pt;
    for (const Band& b : item->bands) end_pt = std::max(end_pt, b.x1_pt);
    item->label_x_pt = end_pt + 4;
    item->extent_x1_pt = end_pt + 4 + w;
  }
  for (const Band& b : item->bands) item->extent_x1_pt = std::max(item->extent_x1_pt, b.x1_pt);
}

struct Lane {
  std::string name;    // "client 0", "line lsim:L1", "redis 1"
  std::vector<std::string> details;  // lines under the name: the owner, its clock offset
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

class DotWriter {
 public:
  // A filled box (or other shape) with its centre at (x, y), y growing downwards.
  void shape(const std::string& shape, double cx_pt, double cy_pt, double w_pt, double h_pt, const std::string& fill,
             const std::string& edge, double penwidth, const std::string& style, const std::string& tooltip,
             const std::string& cls = "") {
    out_ << "  n" << next_++ << " [shape=" << shape << ", label=\"\", fixedsize=true, width=" << inches(w_pt)
         << ", height=" << inches(h_pt) << ", style=\"" << style << "\", fillcolor=\"" << fill << "\", color=\""
         << (edge.empty() ? fill : edge) << "\", penwidth=" << num(penwidth) << ", pos=\"" << pos(cx_pt, cy_pt) << "\"";
    if (!tooltip.empty()) out_ << ", tooltip=\"" << dot_escape(tooltip) << "\"";
    if (!cls.empty()) out_ << ", class=\"" << cls << "\"";
    out_ << "];\n";
  }
  void rect(double x0_pt, double y0_pt, double x1_pt, double y1_pt, const std::string& fill, const std::string& edge = "",
            double penwidth = 1, const std::string& style = "filled", const std::string& tooltip = "",
            const std::string& cls = "") {
    const double w = std::max(x1_pt - x0_pt, 1.0);
    shape("box", x0_pt + w / 2, (y0_pt + y1_pt) / 2, w, std::max(y1_pt - y0_pt, 1.0), fill, edge, penwidth, style,
          tooltip, cls);
  }
  // Text whose left edge is at x (or centred there), middle at y. Left-aligned
  // text sits in a fixed-size node as wide as our estimate, justified left
  // ("\l"), so it starts at x whatever the font's real widths are.
  void text(const std::string& label, double x_pt, double y_pt, double size_pt = 9, const std::string& colour = "black",
            bool bold = false, bool centred = false) {
    const double w = std::max(text_pt(label, size_pt, bold), 4.0);
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
    while (word.size() > width_chars) {  // a path longer than a line
      lines.push_back(word.substr(0, width_chars));
      word = word.substr(width_chars);
    }
    current += (current.empty() ? "" : " ") + word;
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

// The number after `key` in a checker's message ("bound 33 000 ms" -> 33000),
// spaces between digit groups allowed; nullopt when absent.
std::optional<int64_t> number_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  int64_t n = 0;
  bool any = false;
  for (size_t i = at + key.size(); i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      n = sat_add(sat_mul(n, 10), c - '0');
      any = true;
    } else if (!(c == ' ' && any && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      break;
    }
  }
  return any ? std::optional<int64_t>(n) : std::nullopt;
}

std::string hold_end_text(const RecordedHold& h) {
  switch (h.end) {
    case RecordedHold::End::Released: return "unlock #" + std::to_string(h.end_event);
    case RecordedHold::End::Lost: return "learns lost #" + std::to_string(h.end_event);
    case RecordedHold::End::Crashed: return "crash #" + std::to_string(h.end_event);
    case RecordedHold::End::Open: return "still held";
  }
  return "";
}

std::string lease_end_text(const RecordedLease& l) {
  switch (l.end) {
    case RecordedLease::End::Expired: return "expired";
    case RecordedLease::End::Deleted: return "deleted #" + std::to_string(l.end_event);
    case RecordedLease::End::ServerReset:
      if (l.reset_by == Op::Failover) return "not followed after the failover #" + std::to_string(l.end_event);
      return l.data_kept ? "not followed after the restart #" + std::to_string(l.end_event) + " (data kept)"
                         : "lost in the restart #" + std::to_string(l.end_event);
    case RecordedLease::End::Replaced: return "gone #" + std::to_string(l.end_event);
    case RecordedLease::End::Open: return "";
  }
  return "";
}

// The review's short text for an event: "#81 fair_acquire c3:2 -> 2344".
std::string event_label(const Event& e, int64_t epoch_ms) {
  std::string who = e.owner.empty() ? "" : " " + short_owner(e.owner, e.client);
  std::string out = "#" + std::to_string(e.id) + " ";
  switch (e.kind) {
    case EventKind::Invoke:
      out += std::string(op_name(e.op)) + " " + e.lock.name() + who;
      if (e.wait_ms >= 0) out += " wait " + format_ms(e.wait_ms);
      if (e.lease_ms >= 0) out += " lease " + format_ms(e.lease_ms);
      break;
    case EventKind::Ok: out += std::string(op_name(e.op)) + " ok" + (e.op == Op::Unlock ? " -> " + std::to_string(e.value) : "") + who; break;
    case EventKind::Fail: out += std::string(op_name(e.op)) + " fail" + (has_detail_text(e) ? " (" + detail_text(e) + ")" : "") + who; break;
    case EventKind::Info: out += std::string(op_name(e.op)) + (has_detail_text(e) ? " (" + detail_text(e) + ")" : "") + who; break;
    case EventKind::Script:
      out += e.script + who + " -> " + e.reply.to_text();
      if (e.line_known && e.local_ms != 0) out += ", its now " + run_s(ms_to_us(sat_sub(e.local_ms, epoch_ms)), 2);
      break;
    case EventKind::Deliver: out += "message"; break;
    case EventKind::Fault:
      out += op_name(e.op);
      if (e.duration_ms != 0) out += " " + format_ms(e.duration_ms);
      break;
    case EventKind::Verdict: out += "verdict"; break;
  }
  return out;
}

// The lane an event's mark belongs to: its owner's (a script: the client
// that sent it), a fault's target, a server fault's server.
std::string lane_of(const Event& e) {
  if (e.kind == EventKind::Fault) {
    if (e.op == Op::RedisRestart || e.op == Op::Failover || (e.op == Op::ClockJump && e.client < 0))
      return server_lane(e.server >= 0 ? e.server : std::max(e.target, 0));
    if (e.target >= 0) return client_lane(e.target);
  }
  if (e.client >= 0) return client_lane(e.client);
  if (e.kind == EventKind::Script) return server_lane(std::max(e.server, 0));
  return client_lane(0);
}

// Runs of instants closer than kDenseGapPt (in x): [begin, end) index pairs.
std::vector<std::pair<size_t, size_t>> runs_of(const std::vector<double>& xs) {
  std::vector<std::pair<size_t, size_t>> runs;
  size_t begin = 0;
  for (size_t i = 1; i <= xs.size(); ++i) {
    if (i < xs.size() && xs[i] - xs[i - 1] < kDenseGapPt) continue;
    runs.push_back({begin, i});
    begin = i;
  }
  return runs;
}

}  // namespace

std::string review_dot(const HistoryRecording& rec_in, const std::vector<Event>& window,
                       const TimelineOptions& options) {
  HistoryRecording rec = rec_in;
  const int64_t epoch_ms = default_check_config().clock_epoch_ms;
  // A client's clock reading as time since the run began.
  auto local_us = [&](int64_t local_ms) { return ms_to_us(sat_sub(local_ms, epoch_ms)); };
  const int64_t t0_us = rec.first_us;
  // Bars still open at the end of the window run on a little past it (a
  // twenty-fifth of the span), so a hold that began with the last event (a
  // shrunk counterexample ends there) shows, and its overlap too.
  const int64_t horizon_us = rec.end_us;
  const bool any_open =
      std::any_of(rec.holds.begin(), rec.holds.end(), [](const RecordedHold& h) { return h.end == RecordedHold::End::Open; }) ||
      std::any_of(rec.waits.begin(), rec.waits.end(), [](const RecordedWait& w) { return w.outcome == RecordedWait::Outcome::Open; });
  if (any_open) {
    rec.end_us = sat_add(rec.end_us, std::max<int64_t>(sat_sub(rec.end_us, t0_us) / 25, 1000));
    for (RecordedHold& h : rec.holds)
      if (h.end == RecordedHold::End::Open) h.end_us = rec.end_us;
    for (RecordedWait& w : rec.waits)
      if (w.outcome == RecordedWait::Outcome::Open) w.end_us = rec.end_us;
    for (RecordedLease& l : rec.leases)
      if (l.end == RecordedLease::End::Open) l.end_us = rec.end_us;
    for (RecordedLineStay& s : rec.line_stays)
      if (s.left == RecordedLineStay::Left::Open) s.left_us = rec.end_us;
    for (RecordedOverlap& o : rec.overlaps)
      if (o.open) o.end_us = rec.end_us;
  }
  auto seen_us = [&](int64_t span_end_us) { return std::min(span_end_us, horizon_us); };

  // Who is who: owners' clients.
  std::map<std::string, int> client_of;
  for (const RecordedHold& h : rec.holds) client_of.emplace(h.owner, h.client);
  for (const RecordedWait& w : rec.waits) client_of.emplace(w.owner, w.client);
  for (const RecordedLineStay& s : rec.line_stays)
    if (s.client >= 0) client_of.emplace(s.owner, s.client);
  for (const Event& e : window)
    if (e.client >= 0 && !e.owner.empty()) client_of.emplace(e.owner, e.client);
  // An owner as drawn; a server's holder or line entry is read as one here.
  auto who = [&](std::string_view text) {
    const OwnerId owner(text);
    auto it = client_of.find(owner.str());
    return short_owner(owner, it == client_of.end() ? -1 : it->second);
  };

  // Evidence the focus violations name.
  struct Bound {
    int64_t at_us = 0;
    std::string note;
  };
  std::vector<Bound> bounds;           // vertical red lines
  struct FreeSpan {
    int server = 0;
    int64_t from_us = 0;
    int64_t to_us = 0;
    std::string label;
    uint64_t event = 0;
  };
  std::vector<FreeSpan> free_spans;
  struct Storm {
    uint64_t wait_start_event = 0;
    int64_t from_us = 0;
    int64_t to_us = 0;
    std::string label;
    std::string head;  // the owner at the head of the line it polls behind ("" if none named)
  };
  std::vector<Storm> storms;
  std::set<int> focus_clients;
  std::set<std::pair<std::string, uint64_t>> focus_stays;  // (owner, the event that removed it)
  std::map<uint64_t, const Event*> event_of;
  for (const Event& e : window) event_of.emplace(e.id, &e);
  for (const Violation& v : options.focus) {
    for (const std::string& owner : v.owners)
      if (auto it = client_of.find(owner); it != client_of.end()) focus_clients.insert(it->second);
    if (v.property == property::kLiveness && v.event_ids.size() >= 2 && v.true_us.size() >= 2 &&
        v.facts.free_since_event != 0) {
      // {invoke, free}: the waiter is judged from the later of the two.
      const uint64_t free_event = v.facts.free_since_event;
      const auto free_ev = event_of.find(free_event);
      const int server = free_ev != event_of.end() && free_ev->second->server >= 0 ? free_ev->second->server : 0;
      const int64_t since_us = std::max(v.true_us[0], v.true_us[1]);
      const auto detected = event_of.find(v.detected_at_event);
      const int64_t to_us = detected != event_of.end() ? detected->second->true_us : horizon_us;
      free_spans.push_back({server, v.true_us[1], to_us,
                            "lock " + v.lock.name() + " free on the server since #" + std::to_string(free_event) +
                                " (" + format_duration_us(to_us - v.true_us[1]) + ")",
                            free_event});
      if (const int64_t bound_ms = v.facts.bound_ms; bound_ms >= 0) {
        bounds.push_back({sat_add(since_us, ms_to_us(bound_ms)), "liveness bound " + format_ms(bound_ms) + " after #" +
                                                           std::to_string(v.true_us[0] >= v.true_us[1] ? v.event_ids[0]
                                                                                                       : free_event)});
      }
    } else if (v.property == property::kLiveness && !v.event_ids.empty() && !v.true_us.empty()) {
      if (const int64_t bound_ms = v.facts.bound_ms; bound_ms >= 0) {
        bounds.push_back({sat_add(v.true_us[0], ms_to_us(bound_ms)),
                          "liveness bound " + format_ms(bound_ms) + " after #" + std::to_string(v.event_ids[0])});
      }
    } else if (v.property == property::kBusyPoll && v.event_ids.size() >= 3 && v.true_us.size() >= 3) {
      const int64_t polls = v.facts.polls;
      const int64_t rate = v.facts.polls_per_s;
      storms.push_back({v.event_ids[0], v.true_us[1], v.true_us[2],
                        "busy_poll: " + (polls >= 0 ? grouped(polls) + " polls" : std::string("polls")) + " in " +
                            format_duration_us(v.true_us[2] - v.true_us[1]) +
                            (rate >= 0 ? ", " + grouped(rate) + "/s" : std::string()),
                        v.facts.line_head});
    } else if (v.property == property::kFifoFairness && v.event_ids.size() >= 2) {
      for (const std::string& owner : v.owners) focus_stays.insert({owner, v.event_ids.back()});
    }
  }

  // A purge before the slot's end shows the slot it lost: the axis reaches its end.
  int64_t t1_us = rec.end_us;
  for (const RecordedLineStay& s : rec.line_stays) {
    if (s.left == RecordedLineStay::Left::Purged && s.deadline_true_us != INT64_MAX && s.deadline_true_us > s.left_us &&
        s.left_us >= t0_us && s.deadline_true_us - s.left_us <= 60'000'000)
      t1_us = std::max(t1_us, s.deadline_true_us);
  }
  // A liveness bound past the window's last event: the axis reaches it
  // too, over a band that says the events between are not drawn.
  for (const Bound& b : bounds)
    if (b.at_us > t1_us && sat_sub(b.at_us, t1_us) <= 3'600'000'000) t1_us = sat_add(b.at_us, 1000);
  for (const FreeSpan& f : free_spans)
    if (f.to_us > t1_us && sat_sub(f.to_us, t1_us) <= 3'600'000'000) t1_us = f.to_us;
  auto clip = [&](int64_t us) { return std::clamp(us, t0_us, t1_us); };
  // The instants the axis must tell apart.
  std::vector<int64_t> instants;
  instants.reserve(window.size() + rec.leases.size() + rec.faults.size() + 8);
  for (const Event& e : window) instants.push_back(e.true_us);
  for (const RecordedLease& l : rec.leases) instants.push_back(clip(l.end_us));
  for (const RecordedFault& f : rec.faults) instants.push_back(clip(f.end_us));
  for (const RecordedLineStay& s : rec.line_stays)
    if (s.deadline_true_us >= t0_us && s.deadline_true_us <= t1_us) instants.push_back(s.deadline_true_us);
  for (const Bound& b : bounds) instants.push_back(clip(b.at_us));
  for (const FreeSpan& f : free_spans) instants.push_back(clip(f.to_us));
  instants.push_back(t0_us);
  instants.push_back(t1_us);
  TimeAxisOptions axis_options;
  axis_options.quiet_us = options.quiet_us;
  const TimeAxis axis(instants, axis_options);
  auto X = [&](int64_t true_us) { return kLeftPt + axis.x_pt(clip(true_us)); };
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
    item.open_left = start_us < t0_us;
    return item;
  };

  // Lanes: clients ascending, then each fair lock's line, then servers ascending.
  std::vector<Lane> lanes;
  std::map<std::string, size_t> lane_index;
  std::map<int, std::string> owner_of_client;
  for (const auto& [owner, c] : client_of) owner_of_client.emplace(c, owner);
  std::set<int> clients = rec.clients;
  clients.insert(focus_clients.begin(), focus_clients.end());
  for (int c : clients) {
    lane_index[client_lane(c)] = lanes.size();
    Lane l{client_lane(c), {}, {}, {}, 0, 0};
    if (auto owner = owner_of_client.find(c); owner != owner_of_client.end()) l.details.push_back(uuid_prefix(OwnerId(owner->second)));
    if (auto clock = rec.clocks.find(c); clock != rec.clocks.end()) {
      const ClientClock& k = clock->second;
      if (std::max(sat_abs(k.min_offset_ms), sat_abs(k.max_offset_ms)) >= kSkewShownMs) {
        const int64_t largest = sat_abs(k.min_offset_ms) >= sat_abs(k.max_offset_ms) ? k.min_offset_ms : k.max_offset_ms;
        l.details.push_back(sat_sub(k.max_offset_ms, k.min_offset_ms) < kSkewShownMs
                                ? "clock " + signed_duration_ms(largest)
                                : "clock " + signed_duration_ms(k.min_offset_ms) + " to " +
                                      signed_duration_ms(k.max_offset_ms));
      }
    }
    lanes.push_back(std::move(l));
  }
  for (const LockRef& lock : rec.fair_locks) {
    lane_index[line_lane(lock)] = lanes.size();
    lanes.push_back({line_lane(lock), {"waiting line,", "a row per place"}, {}, {}, 0, 0});
  }
  std::set<int> servers = rec.servers;
  for (const FreeSpan& f : free_spans) servers.insert(f.server);
  for (int s : servers) {
    lane_index[server_lane(s)] = lanes.size();
    lanes.push_back({server_lane(s), {"server"}, {}, {}, 0, 0});
  }
  auto lane = [&](const std::string& name) -> Lane& {
    auto [it, added] = lane_index.emplace(name, lanes.size());
    if (added) lanes.push_back({name, {}, {}, {}, 0, 0});
    return lanes[it->second];
  };
  auto cls_of = [](uint64_t id) { return "ev e" + std::to_string(id); };

  // Believed holds (red where they overlap another owner's), with the
  // watchdog's renewals and their replies.
  std::vector<std::vector<std::pair<double, double>>> red_of_hold(rec.holds.size());
  for (const RecordedOverlap& o : rec.overlaps) {
    red_of_hold[o.first].push_back({X(o.start_us), X(o.end_us)});
    red_of_hold[o.second].push_back({X(o.start_us), X(o.end_us)});
  }
  std::vector<const Event*> renewals;
  for (const Event& e : window)
    if (e.kind == EventKind::Script && e.script == "rlock_renew") renewals.push_back(&e);
  auto lock_matches = [](const LockRef& key, const LockRef& lock) { return key.is_or_member_of(lock.name()); };
  for (size_t i = 0; i < rec.holds.size(); ++i) {
    const RecordedHold& h = rec.holds[i];
    Item item = bar(Category::Activity, h.start_us, h.end_us, 14, kHoldFill, kHoldEdge);
    const bool open = h.end == RecordedHold::End::Open;
    std::string label = "holds " + h.lock.name() + (h.max_count > 1 ? " x" + std::to_string(h.max_count) : "") + " ";
    if (h.start_us < t0_us) label += "since #" + std::to_string(h.start_event) + " at " + run_s(h.start_us, 1);
    else label += "#" + std::to_string(h.start_event);
    label += " - " + hold_end_text(h);
    if (!(open && seen_us(h.end_us) == h.start_us))
      label += (open ? ", at least " : ", ") + format_duration_us(seen_us(h.end_us) - h.start_us);
    int renewed = 0, refused = 0;
    for (const Event* r : renewals) {
      if (r->owner != h.owner || !lock_matches(r->lock, h.lock) || r->true_us < h.start_us || r->true_us > h.end_us) continue;
      const bool ok = r->reply.is(1);
      (ok ? renewed : refused)++;
      item.marks.push_back({X(r->true_us), "box", ok ? "black" : kRed,
                            "#" + std::to_string(r->id) + " renew " + r->lock.name() + " -> " + r->reply.to_text(), 0, ok ? 2.0 : 3.0});
    }
    if (renewed > 0) label += ", " + std::to_string(renewed) + (renewed > 1 ? " renewals" : " renewal");
    if (refused > 0) label += ", renewal refused x" + std::to_string(refused);
    item.label = label;
    item.tooltip = h.owner.str() + " believes it holds " + h.lock.name() + (h.reentries > 0 ? " (reentered " + std::to_string(h.reentries) + " times)" : "");
    item.cls = cls_of(h.start_event);
    for (const auto& [r0, r1] : red_of_hold[i])
      item.bands.push_back({r0, std::max(r1, r0 + kMinRedPt), kRed, "#b71c1c", "overlap"});
    lane(client_lane(h.client)).items[Category::Activity].push_back(std::move(item));
  }

  // Renewals outside every hold of their owner (a watchdog not cancelled):
  // ticks on the owner's lane, with their replies.
  for (const Event* r : renewals) {
    if (r->client < 0) continue;
    const bool in_hold = std::any_of(rec.holds.begin(), rec.holds.end(), [&](const RecordedHold& h) {
      return h.owner == r->owner && lock_matches(r->lock, h.lock) && r->true_us >= h.start_us && r->true_us <= h.end_us;
    });
    if (in_hold) continue;
    Item item;
    item.category = Category::Activity;
    item.x0_pt = X(r->true_us) - 1;
    item.x1_pt = X(r->true_us) + 1;
    item.height_pt = 14;
    item.fill = item.edge = r->reply.is(1) ? "black" : kRed;
    item.label = options.highlight_ids.count(r->id) ? "" : "#" + std::to_string(r->id) + " renew -> " + r->reply.to_text() + " (no hold)";
    item.label_colour = kRed;
    item.tooltip = "#" + std::to_string(r->id) + " " + r->script + " " + r->lock.name() + " by " + who(r->owner.str()) + " -> " + r->reply.to_text() +
                   ", outside every hold of its owner";
    item.cls = cls_of(r->id);
    lane(client_lane(r->client)).items[Category::Activity].push_back(std::move(item));
  }

  // Waits, with their polls: sparse ones as ticks, a dense stretch as one
  // band that counts them.
  for (const RecordedWait& w : rec.waits) {
    Item item = bar(Category::Activity, w.start_us, w.end_us, 7, kWaitFill, "#9e9e9e");
    // An acquire granted at once is its hold's start: nothing to show.
    if (w.outcome == RecordedWait::Outcome::Acquired && w.polls <= 1 && w.wakeups.empty() &&
        X(w.end_us) - X(w.start_us) < 3 && !options.highlight_ids.count(w.start_event))
      continue;
    const int64_t span_us = w.end_us - std::max(w.start_us, t0_us);
    std::string outcome;
    switch (w.outcome) {
      case RecordedWait::Outcome::Acquired: break;
      case RecordedWait::Outcome::GaveUp: outcome = " (gave up)"; break;
      case RecordedWait::Outcome::Unknown: outcome = " (" + (w.detail.empty() ? std::string("unknown") : w.detail) + ")"; break;
      case RecordedWait::Outcome::Crashed: outcome = " (crashed)"; break;
      case RecordedWait::Outcome::Open: outcome = " (still waiting)"; break;
    }
    // Polls: a stretch of at least kStormPolls polls less than kStormGapUs
    // apart is one band that counts them; the others are ticks.
    std::vector<const RecordedTick*> polls;
    for (const RecordedTick& t : w.polls_seen)
      if (t.true_us >= t0_us && t.true_us <= t1_us) polls.push_back(&t);
    std::string band_label;
    for (size_t b = 0; b < polls.size();) {
      size_t end = b + 1;
      while (end < polls.size() && polls[end]->true_us - polls[end - 1]->true_us <= kStormGapUs) ++end;
      const size_t n = end - b;
      if (n < kStormPolls) {
        for (size_t k = b; k < end; ++k)
          item.marks.push_back({X(polls[k]->true_us), "box", kPollFill,
                                "#" + std::to_string(polls[k]->event_id) + " poll at " + run_s(polls[k]->true_us) +
                                    " -> " + polls[k]->label,
                                7, 1});
        b = end;
        continue;
      }
      const int64_t first_us = polls[b]->true_us, last_us = polls[end - 1]->true_us;
      const int64_t run_us = std::max<int64_t>(last_us - first_us, 1);
      std::string head;
      for (const auto& [at_us, owner] : w.heads) {
        if (at_us > last_us) break;
        head = owner;
      }
      const std::string text = grouped(static_cast<int64_t>(n)) + " polls, " +
                               grouped(static_cast<int64_t>(static_cast<double>(n) * 1e6 / static_cast<double>(run_us) + 0.5)) +
                               "/s" + (!head.empty() && head != w.owner ? " behind " + who(head) + " (head)" : "");
      item.bands.push_back({X(first_us), std::max(X(last_us), X(first_us) + 2), kPollFill, kPollFill,
                            text + " from " + run_s(first_us) + " to " + run_s(last_us), 7});
      if (band_label.empty()) band_label = text;
      b = end;
    }
    // A liveness violation's waiter: what its polls answered (how long it was told to sleep).
    const bool waiter_in_focus = std::any_of(options.focus.begin(), options.focus.end(), [&](const Violation& v) {
      return v.property == property::kLiveness && !v.event_ids.empty() && v.event_ids[0] == w.start_event;
    });
    std::string replies;
    if (waiter_in_focus) {
      // The last three: a number is how long the server told it to wait.
      const size_t from = polls.size() > 3 ? polls.size() - 3 : 0;
      for (size_t k = from; k < polls.size(); ++k) {
        const std::string& reply = polls[k]->label;
        const auto ms = number_after(reply, "");
        const bool integer = ms && !reply.empty() && std::all_of(reply.begin(), reply.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        });
        replies += (replies.empty() ? "" : ", ") + std::string("#") + std::to_string(polls[k]->event_id) + " " +
                   (integer ? "wait " + format_ms(*ms) : "-> " + reply);
      }
    }
    if (item.x1_pt - item.x0_pt >= kLabelledWaitPt || !band_label.empty() || waiter_in_focus) {
      item.label = "waits " + w.lock.name() + " " + format_duration_us(span_us) + outcome;
      if (!band_label.empty()) item.label += ": " + band_label;
      else if (w.polls > 1) item.label += ", " + grouped(w.polls) + " polls";
      if (!replies.empty()) item.label += " (polls answered " + replies + ")";
      if (waiter_in_focus && polls.empty() && w.polls > 0) item.label += " (its polls before the window)";
    }
    for (const Storm& s : storms) {
      if (s.wait_start_event != w.start_event) continue;
      item.bands.push_back({X(s.from_us), std::max(X(s.to_us), X(s.from_us) + 2), "none", kRed, s.label, 10, "dashed"});
      item.label += (item.label.empty() ? "" : "; ") + s.label;
      item.label_colour = kRed;
      item.bold = true;
    }
    item.tooltip = std::string(op_name(w.op)) + " " + w.lock.name() + " #" + std::to_string(w.start_event) + " -> #" + std::to_string(w.end_event) +
                   ", " + grouped(w.polls) + " polls";
    item.cls = cls_of(w.start_event);
    for (const RecordedTick& t : w.wakeups) {
      if (t.true_us >= t0_us) item.marks.push_back({X(t.true_us), "diamond", kWakeFill, "#" + std::to_string(t.event_id) + " " + t.label, 10, 8});
    }
    lane(client_lane(w.client)).items[Category::Activity].push_back(std::move(item));
  }

  bool any_early_purge = false, any_ghost = false, any_purge = false, any_grant = false;
  // Fair lines: a row per place in the line, the head on top. Each waiter's
  // stay runs on the row of its place, moving up as those ahead leave, with
  // a tick where its slot ends and its end marked by how it left (granted:
  // green, purged: red). What a violation names of a stay (a purge before
  // its slot's end, a ghost, the head a busy poller spins behind, the
  // waiter a fifo violation names) is written above the rows over the time
  // it concerns, in red, with the slot it lost dashed.
  for (const RecordedLineStay& s : rec.line_stays) {
    const std::string name = who(s.owner);
    std::string how;
    switch (s.left) {
      case RecordedLineStay::Left::Granted: how = "granted #" + std::to_string(s.left_event); break;
      case RecordedLineStay::Left::Purged:
        how = "purged #" + std::to_string(s.left_event) +
              (s.purged_by_client >= 0 ? " by client " + std::to_string(s.purged_by_client) : std::string());
        break;
      case RecordedLineStay::Left::GaveUp: how = "gave up #" + std::to_string(s.left_event); break;
      case RecordedLineStay::Left::Removed: how = "left #" + std::to_string(s.left_event); break;
      case RecordedLineStay::Left::ServerReset: how = "line lost #" + std::to_string(s.left_event); break;
      case RecordedLineStay::Left::Open: how = "in line"; break;
    }
    const bool deadline_known = s.deadline_true_us != INT64_MAX;
    std::string label = name + " joined " + (s.joined_at == 0 ? std::string("at the head") : ordinal(s.joined_at + 1)) +
                        " #" + std::to_string(s.join_event) + " - " + how;
    const bool slot_matters = s.left != RecordedLineStay::Left::Granted && s.left != RecordedLineStay::Left::GaveUp;
    if (deadline_known && slot_matters)
      label += ", slot to " + run_s(s.deadline_true_us, 2) + " (" + run_s(local_us(s.deadline_ms), 2) +
               " by its clock)";
    const bool early_purge = s.left == RecordedLineStay::Left::Purged && deadline_known &&
                             s.deadline_true_us > sat_add(s.left_us, ms_to_us(default_check_config().purge_tolerance_ms));
    const bool focused = s.left != RecordedLineStay::Left::Open && focus_stays.count({s.owner, s.left_event}) > 0;
    // The evidence above the rows: the stay in outline, what it lost or
    // held up in bands.
    Item note = bar(Category::Evidence, s.join_us, s.left_us, 12, "none", kRed);
    note.penwidth = 2;
    note.label_colour = kRed;
    if (early_purge) {
      any_early_purge = true;
      label += " (" + format_duration_us(s.deadline_true_us - s.left_us) + " of its slot left)";
      note.bands.push_back({note.x1_pt, std::max(X(s.deadline_true_us), note.x1_pt + 2), "none", kRed,
                            "the slot it still had by its own clock", 12, "dashed"});
    }
    // Still in the line after its client gave up (its own give-up script
    // did not take it out): it blocks those behind it until its slot ends.
    // A ghost when the ghost_waiter checker says so.
    bool ghost = false;
    for (const RecordedWait& w : rec.waits) {
      if (s.left == RecordedLineStay::Left::GaveUp || w.owner != s.owner ||
          w.outcome != RecordedWait::Outcome::GaveUp || w.end_us < s.join_us || w.end_us >= s.left_us ||
          w.start_us > s.join_us)
        continue;
      note.bands.push_back({X(w.end_us), std::max(note.x1_pt, X(w.end_us) + 2), "#ef9a9a", kRed,
                            "in the line after its client gave up at #" + std::to_string(w.end_event), 12, "filled"});
      const bool named = std::any_of(options.focus.begin(), options.focus.end(), [&](const Violation& v) {
        return v.property == property::kGhostWaiter &&
               std::find(v.owners.begin(), v.owners.end(), s.owner) != v.owners.end();
      });
      label += " - still in the line after its client gave up #" + std::to_string(w.end_event) +
               (named ? ": a ghost" : "");
      ghost = any_ghost = true;
      break;
    }
    bool spun_behind = false;
    for (const Storm& st : storms)
      spun_behind |= !st.head.empty() && st.head == s.owner && s.join_us <= st.to_us && s.left_us >= st.from_us;
    if (spun_behind) label += " - head that the busy poller spins behind";
    const bool notable = early_purge || ghost || spun_behind || focused;
    const std::string tooltip = label + "; " + s.owner.str() + " in the line of " + s.lock.name() + ", deadline " +
                                run_s(local_us(s.deadline_ms), 3) + " by its clock" +
                                (s.deadline_moves > 0 ? ", moved " + std::to_string(s.deadline_moves) + " times" : "");
    if (notable) {
      note.label = label;
      note.bold = focused || spun_behind;
      note.tooltip = tooltip;
      note.cls = cls_of(s.join_event);
      lane(line_lane(s.lock)).items[Category::Evidence].push_back(std::move(note));
    }
    // The stay, place by place.
    for (size_t k = 0; k < s.places.size(); ++k) {
      const int64_t from_us = s.places[k].first;
      const int64_t to_us = k + 1 < s.places.size() ? s.places[k + 1].first : s.left_us;
      if (to_us < t0_us) continue;
      Item item = bar(Category::Activity, from_us, to_us, 12, kLineFill, notable ? kRed : kLineEdge);
      item.fixed_track = static_cast<int>(std::min(s.places[k].second, kMaxLineRows - 1));
      if (notable) item.penwidth = 2;
      if (item.x1_pt - item.x0_pt >= text_pt(name, 9) + 8) item.label = name;
      item.tooltip = tooltip;
      item.cls = cls_of(s.join_event);
      if (deadline_known && s.deadline_true_us >= std::max(from_us, t0_us) && s.deadline_true_us <= std::min(to_us, t1_us))
        item.marks.push_back({X(s.deadline_true_us), "box", kLineEdge,
                              "slot of " + name + " ends at " + run_s(s.deadline_true_us, 2) + " (its clock: " +
                                  run_s(local_us(s.deadline_ms), 2) + ")",
                              16, 1.5});
      if (k + 1 == s.places.size() &&
          (s.left == RecordedLineStay::Left::Purged || s.left == RecordedLineStay::Left::Granted)) {
        const bool purged = s.left == RecordedLineStay::Left::Purged;
        (purged ? any_purge : any_grant) = true;
        item.marks.push_back({item.x1_pt - 1, "box", purged ? kRed : kHoldEdge, name + " " + how, 16, 3});
      }
      lane(line_lane(s.lock)).items[Category::Activity].push_back(std::move(item));
    }
  }

  // Leases, and the expiries that outlived their owner's belief.
  std::vector<std::pair<int64_t, std::string>> expiry_lines;  // true_us, note
  for (const RecordedLease& l : rec.leases) {
    Item item = bar(Category::Lease, l.start_us, l.end_us, 14, kLeaseFill, kLeaseEdge);
    auto c = client_of.find(l.owner);
    const std::string whose = c != client_of.end() ? client_lane(c->second) : who(l.owner);
    item.label = "lease " + l.lock.name() + " (" + whose + ", " + format_duration_us(ms_to_us(l.lease_ms)) + ")";
    if (!l.renewals.empty())
      item.label += ", " + std::to_string(l.renewals.size()) + " renewal" + (l.renewals.size() > 1 ? "s" : "");
    if (const std::string end = lease_end_text(l); !end.empty()) item.label += " - " + end;
    item.tooltip = l.owner + " on the server from #" + std::to_string(l.start_event);
    item.cls = cls_of(l.start_event);
    for (const RecordedTick& t : l.renewals)
      if (t.true_us >= t0_us) item.marks.push_back({X(t.true_us), "box", "black", "#" + std::to_string(t.event_id) + " " + t.label});
    if (l.end == RecordedLease::End::Expired) {
      item.marks.push_back({X(l.end_us), "box", kRed, "expired at " + run_s(l.end_us), 0, 3});
      if (l.believed_hold >= 0 && l.end_us >= t0_us && l.end_us <= t1_us) {
        const int64_t set_us = l.renewals.empty() ? l.start_us : l.renewals.back().true_us;
        item.edge = kRed;
        item.penwidth = 2;
        item.label += " while " + whose + " believed it held";
        item.label_colour = kRed;
        item.bold = true;
        expiry_lines.push_back({l.end_us, "lease of " + whose + " expired at " + run_s(l.end_us, 2) + " (" +
                                              format_duration_us(l.end_us - set_us) + " after its " +
                                              (l.renewals.empty() ? "grant" : "last renewal") +
                                              "), still believed held"});
      }
    }
    lane(server_lane(l.server)).items[Category::Lease].push_back(std::move(item));
  }
  for (const FreeSpan& f : free_spans) {
    Item item = bar(Category::Lease, f.from_us, f.to_us, 10, kFreeFill, kFreeEdge);
    item.label = f.label;
    item.bold = true;
    item.cls = cls_of(f.event);
    lane(server_lane(f.server)).items[Category::Lease].push_back(std::move(item));
  }

  // Faults.
  for (const RecordedFault& f : rec.faults) {
    Item item;
    item.category = Category::Fault;
    item.x0_pt = X(f.start_us);
    item.label = f.label;
    item.tooltip = "#" + std::to_string(f.start_event) + " " + f.label;
    item.cls = cls_of(f.start_event);
    item.open_left = f.start_us < t0_us;
    if (f.instant) {
      item.shape = "triangle";
      item.x1_pt = item.x0_pt + 5;
      item.x0_pt -= 5;
      item.height_pt = 10;
      item.fill = f.op == Op::Lost ? "#ffe0b2" : kFaultFill;
      item.edge = kFaultEdge;
    } else {
      item.x1_pt = std::max(X(f.end_us), item.x0_pt + 2);
      item.height_pt = 12;
      item.fill = f.op == Op::Crash ? kCrashFill : kFaultFill;
      item.edge = f.op == Op::Crash ? "black" : kFaultEdge;
      if (f.op == Op::Crash) item.label_colour = "white";
      if (item.open_left) item.label = f.label + " since " + run_s(f.start_us, 1);
    }
    lane(f.client >= 0 ? client_lane(f.client) : server_lane(f.server)).items[Category::Fault].push_back(std::move(item));
  }

  // Highlighted events as red marks named by their ids, on their owner's lane.
  // Scripts as dots on their server's lane, a dense stretch as one counted bar.
  std::map<int, std::vector<const Event*>> scripts_of_server;
  for (const Event& e : window) {
    if (options.highlight_ids.count(e.id) > 0) {
      Item item;
      item.category = Category::Evidence;
      item.shape = "diamond";
      item.x0_pt = X(e.true_us) - 6;
      item.x1_pt = X(e.true_us) + 6;
      item.height_pt = 12;
      item.fill = kRed;
      item.edge = kRed;
      item.label = event_label(e, epoch_ms);
      item.label_colour = kRed;
      item.bold = true;
      item.tooltip = item.label + " at " + run_s(e.true_us);
      item.cls = cls_of(e.id);
      lane(lane_of(e)).items[Category::Evidence].push_back(std::move(item));
    }
    if (e.kind == EventKind::Script) scripts_of_server[std::max(e.server, 0)].push_back(&e);
  }
  for (const auto& [server, scripts] : scripts_of_server) {
    std::vector<double> xs;
    for (const Event* e : scripts) xs.push_back(X(e->true_us));
    for (const auto& [b, end] : runs_of(xs)) {
      const size_t n = end - b;
      if (n < kDenseCount) {
        for (size_t k = b; k < end; ++k) {
          const Event& e = *scripts[k];
          Item item;
          item.category = Category::Script;
          item.shape = "circle";
          item.x0_pt = xs[k] - 2;
          item.x1_pt = xs[k] + 2;
          item.height_pt = 4;
          item.fill = "#757575";
          item.tooltip = "#" + std::to_string(e.id) + " " + e.script + " " + who(e.owner) + " -> " + e.reply.to_text();
          item.cls = cls_of(e.id);
          lane(server_lane(server)).items[Category::Script].push_back(std::move(item));
        }
        continue;
      }
      Item item;
      item.category = Category::Script;
      item.x0_pt = xs[b] - 2;
      item.x1_pt = std::max(xs[end - 1] + 2, xs[b] + 4);
      item.height_pt = 4;
      item.fill = "#757575";
      const int64_t run_us = std::max<int64_t>(scripts[end - 1]->true_us - scripts[b]->true_us, 1);
      item.label = grouped(static_cast<int64_t>(n)) + " scripts, " +
                   grouped(static_cast<int64_t>(static_cast<double>(n) * 1e6 / static_cast<double>(run_us) + 0.5)) + "/s";
      item.tooltip = "#" + std::to_string(scripts[b]->id) + " to #" + std::to_string(scripts[end - 1]->id) + ": " + item.label;
      item.cls = cls_of(scripts[b]->id);
      lane(server_lane(server)).items[Category::Script].push_back(std::move(item));
    }
    // One track: a count is written only where it does not run into the next script.
    auto& row = lane(server_lane(server)).items[Category::Script];
    std::stable_sort(row.begin(), row.end(), [](const Item& a, const Item& b) { return a.x0_pt < b.x0_pt; });
    for (size_t k = 0; k < row.size(); ++k) {
      if (row[k].label.empty()) continue;
      const double room = k + 1 < row.size() ? row[k + 1].x0_pt - row[k].x1_pt - 8 : 1e9;
      if (text_pt(row[k].label, 9) > room) row[k].label.clear();
    }
  }

  // --- header texts ---------------------------------------------------------------
  std::vector<std::string> notes;  // red lines under the title: overlaps
  size_t noted = 0, unlisted = 0;
  for (const RecordedOverlap& o : rec.overlaps) {
    if (!o.reported) {
      ++unlisted;
      continue;
    }
    if (noted++ >= kMaxOverlapNotes) continue;
    const RecordedHold& a = rec.holds[o.first];
    const RecordedHold& b = rec.holds[o.second];
    const std::string how_long =
        o.open ? (seen_us(o.end_us) > o.start_us ? "for at least " + format_duration_us(seen_us(o.end_us) - o.start_us)
                                                 : "at the end of the window")
               : "for " + format_duration_us(o.end_us - o.start_us);
    notes.push_back("Both believe they hold " + b.lock.name() + " " + how_long + ": " + client_lane(a.client) + " (" +
                    who(a.owner) + ", since #" + std::to_string(a.start_event) + ") and " + client_lane(b.client) +
                    " (" + who(b.owner) + ", acquired #" + std::to_string(b.start_event) + ")");
  }
  if (noted > kMaxOverlapNotes) notes.push_back("... and " + std::to_string(noted - kMaxOverlapNotes) + " more overlaps (drawn)");
  if (unlisted > 0)
    notes.push_back(std::to_string(unlisted) + " more overlap" + (unlisted > 1 ? "s" : "") +
                    " past the " + std::to_string(default_check_config().max_violations_per_checker) +
                    " the checker lists (drawn)");
  std::string info = "events #" + std::to_string(rec.first_event) + " to #" + std::to_string(rec.last_event) + ": " +
                     grouped(static_cast<int64_t>(window.size())) + " events";
  if (options.total_events > 0) info += " of " + grouped(static_cast<int64_t>(options.total_events));
  info += ", " + run_s(t0_us, 2) + " to " + run_s(horizon_us, 2) + " of the run";
  if (rec.first_event > 0) info += "; what began before #" + std::to_string(rec.first_event) + " is drawn from its start";

  // --- vertical layout -------------------------------------------------------------
  double content_x1_pt = kLeftPt + axis.width_pt();
  for (Lane& l : lanes) {
    for (Category c : kCategories) {
      auto it = l.items.find(c);
      const size_t tracks = it == l.items.end() ? 0 : pack(&it->second, c == Category::Script);
      l.tracks[c] = tracks;
      if (it != l.items.end())
        for (const Item& item : it->second) content_x1_pt = std::max(content_x1_pt, item.extent_x1_pt);
    }
  }
  for (const auto& [at_us, note] : expiry_lines) content_x1_pt = std::max(content_x1_pt, X(at_us) + 4 + text_pt(note, 8, true));
  for (const Bound& b : bounds) content_x1_pt = std::max(content_x1_pt, X(b.at_us) + 4 + text_pt(b.note, 8, true));
  double width_pt = std::max(content_x1_pt + kMarginPt, 720.0);
  const size_t wrap_chars = static_cast<size_t>((width_pt - 16) / (9 * kBoldRatio));
  std::vector<std::string> title_lines = wrap(options.title, static_cast<size_t>((width_pt - 16) / (12 * kBoldRatio)));
  std::vector<std::string> caption_lines = wrap(options.caption, wrap_chars);
  std::vector<std::string> note_lines;
  for (const std::string& n : notes)
    for (std::string& line : wrap(n, wrap_chars)) note_lines.push_back(std::move(line));
  std::vector<std::string> info_lines = wrap(info, static_cast<size_t>((width_pt - 16) / (8 * kCharRatio)));

  double y_pt = 4;
  const double title_y_pt = y_pt + 8;
  y_pt += 16 * static_cast<double>(title_lines.size()) + 6;
  const double caption_y_pt = y_pt;
  y_pt += 13 * static_cast<double>(caption_lines.size() + note_lines.size() + info_lines.size()) + 8;
  const double axis_label_y_pt = y_pt + 6;
  const double axis_y_pt = y_pt + 18;
  y_pt = axis_y_pt + 10 + 12 * static_cast<double>(expiry_lines.size() + bounds.size());
  const double lanes_top_pt = y_pt;
  for (Lane& l : lanes) {
    l.y0_pt = y_pt;
    double h = kLanePadPt;
    for (Category c : kCategories) h += static_cast<double>(l.tracks[c]) * (c == Category::Script ? kScriptTrackPt : kTrackPt);
    const double names_pt = 16 + 11 * static_cast<double>(l.details.size());
    l.height_pt = std::max(h + kLanePadPt, std::max(34.0, names_pt + 8));
    y_pt += l.height_pt;
  }
  const double lanes_bottom_pt = y_pt;

  // The legend, in rows that fit the width.
  struct LegendEntry {
    std::string shape, fill, edge;
    double w_pt, h_pt;
    std::string text;
    std::string style = "filled";
  };
  std::vector<LegendEntry> legend;
  auto drawn = [&](const char* fill) {  // whether some client lane holds an item of that colour
    return std::any_of(lanes.begin(), lanes.end(), [&](const Lane& l) {
      auto it = l.items.find(Category::Activity);
      return it != l.items.end() &&
             std::any_of(it->second.begin(), it->second.end(), [&](const Item& item) { return item.fill == fill; });
    });
  };
  if (!rec.holds.empty())
    legend.push_back({"box", kHoldFill, kHoldEdge, 22, 12, "believed hold (acquire ok to unlock, loss or crash; xN: reentered)"});
  if (drawn(kWaitFill)) legend.push_back({"box", kWaitFill, "#9e9e9e", 22, 7, "wait (acquire invoked to its end), ticks: polls"});
  const bool dense_polls = std::any_of(lanes.begin(), lanes.end(), [](const Lane& l) {
    auto it = l.items.find(Category::Activity);
    return it != l.items.end() && std::any_of(it->second.begin(), it->second.end(), [](const Item& item) {
             return std::any_of(item.bands.begin(), item.bands.end(), [](const Band& b) { return b.fill == kPollFill; });
           });
  });
  if (dense_polls) legend.push_back({"box", kPollFill, kPollFill, 22, 7, "polls, a dense stretch counted"});
  if (std::any_of(rec.waits.begin(), rec.waits.end(), [](const RecordedWait& w) { return !w.wakeups.empty(); }))
    legend.push_back({"diamond", kWakeFill, kWakeFill, 8, 10, "wake-up message"});
  if (!rec.line_stays.empty()) {
    legend.push_back({"box", kLineFill, kLineEdge, 22, 12, "waiter in a fair lock's line, on the row of its place (tick: its slot's end)"});
    if (any_grant) legend.push_back({"box", kHoldEdge, kHoldEdge, 3, 14, "granted the lock"});
    if (any_purge) legend.push_back({"box", kRed, kRed, 3, 14, "purged from the line"});
    if (any_early_purge) legend.push_back({"box", "none", kRed, 22, 12, "slot lost to an early purge", "dashed"});
    if (any_ghost) legend.push_back({"box", "#ef9a9a", kRed, 22, 12, "still in the line after its client gave up"});
  }
  if (!rec.leases.empty()) legend.push_back({"box", kLeaseFill, kLeaseEdge, 22, 12, "lease on the server"});
  if (!renewals.empty() ||
      std::any_of(rec.leases.begin(), rec.leases.end(), [](const RecordedLease& l) { return !l.renewals.empty(); }))
    legend.push_back({"box", "black", "black", 2, 14, "renewal (red: refused)"});
  if (!free_spans.empty()) legend.push_back({"box", kFreeFill, kFreeEdge, 22, 10, "lock free on the server"});
  if (std::any_of(rec.faults.begin(), rec.faults.end(), [](const RecordedFault& f) { return !f.instant; }))
    legend.push_back({"box", kFaultFill, kFaultEdge, 22, 12, "fault (pause, partition, crash...)"});
  if (std::any_of(rec.faults.begin(), rec.faults.end(), [](const RecordedFault& f) { return f.instant; }))
    legend.push_back({"triangle", kFaultFill, kFaultEdge, 10, 10, "instant fault"});
  if (!rec.overlaps.empty()) legend.push_back({"box", kRed, "#b71c1c", 22, 12, "overlap (the checker's)"});
  if (!options.highlight_ids.empty()) legend.push_back({"diamond", kRed, kRed, 12, 12, "named event"});
  if (!axis.bands().empty()) legend.push_back({"box", "#eceff1", "#90a4ae", 22, 12, "quiet, collapsed"});
  std::vector<double> legend_x(legend.size());
  std::vector<size_t> legend_row(legend.size());
  {
    double lx = 8;
    size_t row = 0;
    for (size_t i = 0; i < legend.size(); ++i) {
      const double w = legend[i].w_pt + 10 + text_pt(legend[i].text, 8) + 14;
      if (lx > 8 && lx + w > width_pt - 8) {
        ++row;
        lx = 8;
      }
      legend_x[i] = lx;
      legend_row[i] = row;
      lx += w;
    }
  }
  const double legend_y_pt = lanes_bottom_pt + 18;

  // --- drawing ---------------------------------------------------------------------
  DotWriter w;
  // Backgrounds first: lane stripes, quiet bands, overlap columns.
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    const bool line = l.name.rfind("line ", 0) == 0;
    w.rect(0, l.y0_pt, width_pt, l.y0_pt + l.height_pt, line ? "#f3effa" : (i % 2 == 0 ? "#f5f5f5" : "#ffffff"), "", 1,
           "filled", l.name, "lane");
  }
  for (const TimeAxis::QuietBand& b : axis.bands()) {
    const double x0 = kLeftPt + b.x0_pt + 6, x1 = kLeftPt + b.x1_pt - 6;
    w.rect(x0, axis_y_pt - 4, x1, lanes_bottom_pt, "#eceff1", "", 1, "filled",
           format_duration_us(b.end_us - b.start_us) +
               (b.start_us >= horizon_us ? " after the window's last event, not drawn" : " without events, collapsed"));
  }
  for (const TimeAxis::Tick& t : axis.ticks()) {  // grid lines
    w.rect(kLeftPt + t.x_pt - 0.3, axis_y_pt + 4, kLeftPt + t.x_pt + 0.3, lanes_bottom_pt, "#dddddd");
  }
  for (const RecordedOverlap& o : rec.overlaps) {
    w.rect(X(o.start_us), lanes_top_pt, std::max(X(o.end_us), X(o.start_us) + 2), lanes_bottom_pt, kOverlapBack, "", 1,
           "filled", "overlap of #" + std::to_string(rec.holds[o.first].start_event) + " and #" +
                         std::to_string(o.start_event),
           "overlap " + cls_of(o.start_event));
  }
  // Lane names.
  for (const Lane& l : lanes) {
    const double block = 12 + 11 * static_cast<double>(l.details.size());
    double y = l.y0_pt + l.height_pt / 2 - block / 2 + 6;
    w.text(l.name.size() > 20 ? l.name.substr(0, 19) + "…" : l.name, 8, y, 10, "black", true);
    for (const std::string& d : l.details) {
      y += 11;
      const bool clock = d.rfind("clock ", 0) == 0;
      w.text(d, 8, y, 8, clock ? "#b71c1c" : "#555555", clock);
    }
  }
  // Title, caption, notes, info.
  double line_y = title_y_pt;
  for (const std::string& t : title_lines) {
    w.text(t, 8, line_y, 12, "black", true);
    line_y += 16;
  }
  line_y = caption_y_pt;
  for (const std::string& c : caption_lines) {
    w.text(c, 8, line_y, 9, "#333333");
    line_y += 13;
  }
  for (const std::string& n : note_lines) {
    w.text(n, 8, line_y, 9, kRed, true);
    line_y += 13;
  }
  for (const std::string& i : info_lines) {
    w.text(i, 8, line_y, 8, "#555555");
    line_y += 13;
  }
  // Items, lane by lane, category by category, track by track.
  for (const Lane& l : lanes) {
    double track_y = l.y0_pt + kLanePadPt;
    for (Category c : kCategories) {
      auto it = l.items.find(c);
      const double track_h = c == Category::Script ? kScriptTrackPt : kTrackPt;
      const size_t tracks = l.tracks.at(c);
      if (it != l.items.end()) {
        for (const Item& item : it->second) {
          const double cy = track_y + (static_cast<double>(item.track) + 0.5) * track_h;
          const double bar_w = std::max(item.x1_pt - item.x0_pt, 1.5);
          w.shape(item.shape, item.x0_pt + bar_w / 2, cy, bar_w, item.height_pt, item.fill, item.edge, item.penwidth,
                  item.style, item.tooltip, item.cls);
          if (item.open_left) {  // began before the window: a chevron
            w.polyline({{item.x0_pt + 5, cy - item.height_pt / 2}, {item.x0_pt + 1, cy}, {item.x0_pt + 5, cy + item.height_pt / 2}},
                       "#212121");
          }
          for (const Band& b : item.bands) {
            const double h = b.height_pt > 0 ? b.height_pt : item.height_pt;
            w.rect(b.x0_pt, cy - h / 2, std::max(b.x1_pt, b.x0_pt + 1), cy + h / 2, b.fill, b.edge, b.style == "dashed" ? 1.4 : 1,
                   b.style, b.tooltip);
          }
          for (const Mark& m : item.marks) {
            const double h = m.height_pt > 0 ? m.height_pt : item.height_pt + 6;
            w.shape(m.shape, m.x_pt, cy, m.width_pt, h, m.fill, m.fill, 1, "filled", m.tooltip);
          }
          if (!item.label.empty() && label_above(item)) {
            w.text(item.label, item.label_x_pt, cy - 10, 8, item.label_colour == "white" ? "black" : item.label_colour,
                   item.bold);
          } else if (!item.label.empty()) {
            const bool inside = item.label_x_pt < item.x1_pt;
            bool on_red = false;
            for (const Band& b : item.bands)
              on_red |= inside && b.fill == kRed && item.label_x_pt + 20 > b.x0_pt && item.label_x_pt < b.x1_pt;
            const std::string colour =
                on_red ? "white" : (inside ? (item.label_colour == "white" || item.label_colour == kRed ? item.label_colour : "black")
                                           : (item.label_colour == "white" ? "black" : item.label_colour));
            w.text(item.label, item.label_x_pt, cy, 9, colour, item.bold || on_red);
          }
        }
      }
      if (c == Category::Activity && l.name.rfind("line ", 0) == 0) {
        // A fair line's rows: its places, the head on top.
        for (size_t r = 0; r < tracks; ++r) {
          const std::string place = ordinal(r + 1) + (r + 1 == kMaxLineRows ? "+" : "");
          w.text(place, kLeftPt - 10, track_y + (static_cast<double>(r) + 0.5) * track_h, 7, "#5e35b1", false, true);
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
    w.text(b.start_us >= horizon_us ? "not drawn" : "quiet", (x0 + x1) / 2, axis_label_y_pt + 6, 8, "#37474f", false, true);
  }
  w.text("time since the run began", 8, axis_y_pt - 12, 8, "#424242");
  // Expiries that outlived their owner's belief, and liveness bounds:
  // dashed lines across every lane, each with its note.
  double note_y = axis_y_pt + 12;
  for (const auto& [at_us, note] : expiry_lines) {
    w.line(X(at_us), axis_y_pt + 2, X(at_us), lanes_bottom_pt, kRed, "dashed", 1.4);
    w.text(note, X(at_us) + 4, note_y, 8, kRed, true);
    note_y += 12;
  }
  for (const Bound& b : bounds) {
    w.line(X(b.at_us), axis_y_pt + 2, X(b.at_us), lanes_bottom_pt, kRed, "dashed", 1.4);
    w.text(b.note, X(b.at_us) + 4, note_y, 8, kRed, true);
    note_y += 12;
  }
  // Legend.
  for (size_t i = 0; i < legend.size(); ++i) {
    const LegendEntry& e = legend[i];
    const double y = legend_y_pt + 18 * static_cast<double>(legend_row[i]);
    w.shape(e.shape, legend_x[i] + e.w_pt / 2, y, e.w_pt, e.h_pt, e.fill, e.edge, 1, e.style, "");
    w.text(e.text, legend_x[i] + e.w_pt + 4, y, 8, "#333333");
  }
  const double height_pt = legend_y_pt + 18 * static_cast<double>(legend_row.empty() ? 0 : legend_row.back()) + 12;

  std::ostringstream dot;
  dot << "digraph timeline {\n"
      << "  graph [splines=line, outputorder=nodesfirst, fontname=\"Helvetica\", bgcolor=white, pad=0.1, bb=\"0,"
      << num(-height_pt) << "," << num(width_pt) << ",0\"];\n"
      << "  node [fontname=\"Helvetica\"];\n"
      << "  edge [arrowhead=none];\n"
      // Two invisible corners: the drawing spans the whole canvas, so no label lies outside it.
      << "  corner0 [shape=point, style=invis, width=0.01, height=0.01, label=\"\", pos=\"0.0,0.0!\"];\n"
      << "  corner1 [shape=point, style=invis, width=0.01, height=0.01, label=\"\", pos=\"" << num(width_pt) << ","
      << num(-height_pt) << "!\"];\n"
      << w.str() << "}\n";
  return dot.str();
}

}  // namespace locksim
