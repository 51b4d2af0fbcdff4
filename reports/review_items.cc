// The review layout's builders for the client and server lanes: believed
// holds with their renewals, renewals outside every hold, waits with their
// polls, leases and free spans, faults, named events and scripts
// (reports/review_scene.h).
#include <algorithm>
#include <cctype>

#include "properties/saturating_time.h"
#include "properties/scenario_check.h"
#include "reports/review_findings.h"
#include "reports/review_scene.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

constexpr double kLabelledWaitPt = 40;
constexpr double kMinRedPt = 4;
constexpr double kDenseGapPt = 3;     // ticks closer than this are counted, not drawn
constexpr size_t kDenseCount = 8;     // a run of this many such ticks is one band
constexpr size_t kStormPolls = 10;    // polls this close together are counted as one stretch
constexpr int64_t kStormGapUs = 250'000;

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

// "holds L x2 #5 - unlock #9, 1.2 s": a hold's label before its renewals.
std::string hold_label(const ReviewScene& s, const RecordedHold& h) {
  const bool open = h.end == RecordedHold::End::Open;
  std::string label = "holds " + h.lock.name() + (h.max_count > 1 ? " x" + std::to_string(h.max_count) : "") + " ";
  if (h.start_us < s.t0_us) label += "since #" + std::to_string(h.start_event) + " at " + run_s(h.start_us, 1);
  else label += "#" + std::to_string(h.start_event);
  label += " - " + hold_end_text(h);
  if (!(open && s.seen_us(h.end_us) == h.start_us))
    label += (open ? ", at least " : ", ") + format_duration_us(s.seen_us(h.end_us) - h.start_us);
  return label;
}

// The renewals of the hold's owner during it, as ticks on its bar (red:
// refused); the label counts them.
void add_hold_renewals(const ReviewScene& s, const RecordedHold& h, Item* item) {
  int renewed = 0, refused = 0;
  for (const Event* r : s.renewals) {
    if (r->owner != h.owner || !lock_matches(r->lock, h.lock) || r->true_us < h.start_us || r->true_us > h.end_us) continue;
    const bool ok = renewal_succeeded(*r);
    const bool offending = s.offending(r->id);
    (ok ? renewed : refused)++;
    // An offending renewal (of someone else's lock) is red and stands out
    // of the bar; its words are in the lane's evidence row.
    item->marks.push_back({s.X(r->true_us), "box", offending ? kOffenceInk : (ok ? "black" : kRed),
                           "#" + std::to_string(r->id) + " renew " + r->lock.name() + " -> " + r->reply.to_text() +
                               (offending ? ": renews a lock its owner does not hold" : ""),
                           offending ? item->height_pt + 12 : 0, ok && !offending ? 2.0 : 3.0});
  }
  if (renewed > 0) item->label += ", " + std::to_string(renewed) + (renewed > 1 ? " renewals" : " renewal");
  if (refused > 0) item->label += ", renewal refused x" + std::to_string(refused);
}

// A stretch of at least kStormPolls polls less than kStormGapUs apart is one
// band that counts them ("1 843 polls, 322/s behind c0:1 (head)"); the
// others are ticks. Returns the first band's text ("" if none).
std::string add_poll_marks(const ReviewScene& s, const RecordedWait& w, const std::vector<const RecordedTick*>& polls,
                           Item* item) {
  std::string band_label;
  for (size_t b = 0; b < polls.size();) {
    size_t end = b + 1;
    while (end < polls.size() && polls[end]->true_us - polls[end - 1]->true_us <= kStormGapUs) ++end;
    const size_t n = end - b;
    if (n < kStormPolls) {
      for (size_t k = b; k < end; ++k)
        item->marks.push_back({s.X(polls[k]->true_us), "box", kPollFill,
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
                             "/s" + (!head.empty() && head != w.owner ? " behind " + s.who(head) + " (head)" : "");
    item->bands.push_back({s.X(first_us), std::max(s.X(last_us), s.X(first_us) + 2), kPollFill, kPollFill,
                           text + " from " + run_s(first_us) + " to " + run_s(last_us), 7});
    if (band_label.empty()) band_label = text;
    b = end;
  }
  return band_label;
}

// A liveness violation's waiter: what its last three polls answered (a
// number is how long the server told it to wait).
std::string poll_replies(const std::vector<const RecordedTick*>& polls) {
  std::string replies;
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
  return replies;
}

// A spin lock's waiter (its checkers read the back-off): how far apart its
// polls were, which is its back-off's sleeps plus each poll's round trip:
// "polls 1, 3, 5, 9 ... 129 ms apart" (the first six gaps and the last).
std::string backoff_gaps(const std::vector<RecordedTick>& polls) {
  if (polls.size() < 2) return "";
  constexpr size_t kShown = 6;
  std::string out;
  auto gap_text = [&polls](size_t k) {
    const int64_t gap_us = polls[k].true_us - polls[k - 1].true_us;
    return grouped((gap_us + 500) / 1000);
  };
  for (size_t k = 1; k < polls.size() && k <= kShown; ++k) out += (k == 1 ? "" : ", ") + gap_text(k);
  if (polls.size() > kShown + 1) out += (polls.size() > kShown + 2 ? " ... " : ", ") + gap_text(polls.size() - 1);
  return "polls " + out + " ms apart (back-off)";
}

std::string wait_outcome(const RecordedWait& w) {
  switch (w.outcome) {
    case RecordedWait::Outcome::Acquired: return "";
    case RecordedWait::Outcome::GaveUp: return " (gave up)";
    case RecordedWait::Outcome::Unknown: return " (" + (w.detail.empty() ? std::string("unknown") : w.detail) + ")";
    case RecordedWait::Outcome::Crashed: return " (crashed)";
    case RecordedWait::Outcome::Open: return " (still waiting)";
  }
  return "";
}

// One wait as a thin grey bar: its polls, its label, a busy poller's storm
// in a dashed red box, its wake-up messages.
void add_wait(ReviewScene& s, const RecordedWait& w) {
  Item item = s.bar(Category::Activity, w.start_us, w.end_us, 7, kWaitFill, "#9e9e9e");
  const int64_t span_us = w.end_us - std::max(w.start_us, s.t0_us);
  std::vector<const RecordedTick*> polls;
  for (const RecordedTick& t : w.polls_seen)
    if (t.true_us >= s.t0_us && t.true_us <= s.t1_us) polls.push_back(&t);
  const std::string band_label = add_poll_marks(s, w, polls, &item);
  const bool waiter_in_focus = std::any_of(s.options.focus.begin(), s.options.focus.end(), [&](const Violation& v) {
    return v.property == property::kLiveness && !v.event_ids.empty() && v.event_ids[0] == w.start_event;
  });
  const std::string replies = waiter_in_focus ? poll_replies(polls) : "";
  if (item.x1_pt - item.x0_pt >= kLabelledWaitPt || !band_label.empty() || waiter_in_focus) {
    item.label = "waits " + w.lock.name() + " " + format_duration_us(span_us) + wait_outcome(w);
    if (!band_label.empty()) item.label += ": " + band_label;
    else if (w.polls > 1) item.label += ", " + grouped(w.polls) + " polls";
    if (!replies.empty()) item.label += " (polls answered " + replies + ")";
    if (waiter_in_focus && polls.empty() && w.polls > 0) item.label += " (its polls before the window)";
    if (s.options.check && s.options.check->wake.mode == WakeMode::Backoff) {
      const std::string gaps = backoff_gaps(w.polls_seen);
      if (!gaps.empty()) item.label += "; " + gaps;
    }
  }
  for (const Storm& st : s.evidence.storms) {
    if (st.wait_start_event != w.start_event) continue;
    item.bands.push_back({s.X(st.from_us), std::max(s.X(st.to_us), s.X(st.from_us) + 2), "none", kRed, st.label, 10, "dashed"});
    item.label += (item.label.empty() ? "" : "; ") + st.label;
    item.label_colour = kRed;
    item.bold = true;
  }
  item.tooltip = std::string(op_name(w.op)) + " " + w.lock.name() + " #" + std::to_string(w.start_event) + " -> #" + std::to_string(w.end_event) +
                 ", " + grouped(w.polls) + " polls";
  item.cls = cls_of(w.start_event);
  for (const RecordedTick& t : w.wakeups) {
    if (t.true_us >= s.t0_us)
      item.marks.push_back({s.X(t.true_us), "diamond", kWakeFill, "#" + std::to_string(t.event_id) + " " + t.label, 10, 8});
  }
  s.lane(client_lane(w.client)).items[Category::Activity].push_back(std::move(item));
}

// A lease that expired while its owner believed it held the lock: outlined
// red, and a red line across every lane at the expiry.
void mark_outlived_expiry(ReviewScene& s, const RecordedLease& l, const std::string& whose, Item* item) {
  item->marks.push_back({s.X(l.end_us), "box", kRed, "expired at " + run_s(l.end_us), 0, 3});
  if (l.believed_hold < 0 || l.end_us < s.t0_us || l.end_us > s.t1_us) return;
  const int64_t set_us = l.renewals.empty() ? l.start_us : l.renewals.back().true_us;
  item->edge = kRed;
  item->penwidth = 2;
  item->label += " while " + whose + " believed it held";
  item->label_colour = kRed;
  item->bold = true;
  s.expiry_lines.push_back({l.end_us, "lease of " + whose + " expired at " + run_s(l.end_us, 2) + " (" +
                                          format_duration_us(l.end_us - set_us) + " after its " +
                                          (l.renewals.empty() ? "grant" : "last renewal") + "), still believed held"});
}

// Scripts of one server: dots, a dense run as one bar that counts them
// (its count written only where it does not run into the next script).
void add_server_scripts(ReviewScene& s, int server, const std::vector<const Event*>& scripts) {
  std::vector<double> xs;
  for (const Event* e : scripts) xs.push_back(s.X(e->true_us));
  auto& row = s.lane(server_lane(server)).items[Category::Script];
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
        item.tooltip = "#" + std::to_string(e.id) + " " + e.script + " " + s.who(e.owner) + " -> " + e.reply.to_text();
        item.cls = cls_of(e.id);
        row.push_back(std::move(item));
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
    row.push_back(std::move(item));
  }
  std::stable_sort(row.begin(), row.end(), [](const Item& a, const Item& b) { return a.x0_pt < b.x0_pt; });
  for (size_t k = 0; k < row.size(); ++k) {
    if (row[k].label.empty()) continue;
    const double room = k + 1 < row.size() ? row[k + 1].x0_pt - row[k].x1_pt - 8 : 1e9;
    if (text_pt(row[k].label, 9) > room) row[k].label.clear();
  }
}

// An event the options name, as a red diamond labelled with its id.
Item named_event_item(const ReviewScene& s, const Event& e) {
  Item item;
  item.category = Category::Evidence;
  item.shape = "diamond";
  item.x0_pt = s.X(e.true_us) - 6;
  item.x1_pt = s.X(e.true_us) + 6;
  item.height_pt = 12;
  item.fill = kRed;
  item.edge = kRed;
  item.label = event_label(e, s.epoch_ms);
  item.label_colour = kRed;
  item.bold = true;
  item.tooltip = item.label + " at " + run_s(e.true_us);
  item.cls = cls_of(e.id);
  return item;
}

}  // namespace

// Believed holds (red where they overlap another owner's), with the
// watchdog's renewals and their replies.
void add_holds(ReviewScene& s) {
  const HistoryRecording& rec = s.rec;
  std::vector<std::vector<std::pair<double, double>>> red_of_hold(rec.holds.size());
  for (const RecordedOverlap& o : rec.overlaps) {
    red_of_hold[o.first].push_back({s.X(o.start_us), s.X(o.end_us)});
    red_of_hold[o.second].push_back({s.X(o.start_us), s.X(o.end_us)});
  }
  for (const Event& e : s.window)
    if (is_renewal(e)) s.renewals.push_back(&e);
  for (size_t i = 0; i < rec.holds.size(); ++i) {
    const RecordedHold& h = rec.holds[i];
    Item item = s.bar(Category::Activity, h.start_us, h.end_us, 14, kHoldFill, kHoldEdge);
    item.label = hold_label(s, h);
    add_hold_renewals(s, h, &item);
    item.tooltip = h.owner.str() + " believes it holds " + h.lock.name() +
                   (h.reentries > 0 ? " (reentered " + std::to_string(h.reentries) + " times)" : "");
    item.cls = cls_of(h.start_event);
    for (const auto& [r0, r1] : red_of_hold[i])
      item.bands.push_back({r0, std::max(r1, r0 + kMinRedPt), kRed, kDarkRed, "overlap"});
    s.lane(client_lane(h.client)).items[Category::Activity].push_back(std::move(item));
  }
}

// Renewals outside every hold of their owner (a watchdog not cancelled):
// ticks on the owner's lane, with their replies.
void add_stray_renewals(ReviewScene& s) {
  for (const Event* r : s.renewals) {
    if (r->client < 0) continue;
    const bool in_hold = std::any_of(s.rec.holds.begin(), s.rec.holds.end(), [&](const RecordedHold& h) {
      return h.owner == r->owner && lock_matches(r->lock, h.lock) && r->true_us >= h.start_us && r->true_us <= h.end_us;
    });
    if (in_hold) continue;
    Item item;
    item.category = Category::Activity;
    item.x0_pt = s.X(r->true_us) - 1;
    item.x1_pt = s.X(r->true_us) + 1;
    item.height_pt = 14;
    // Answered 1, it renews a lock its owner no longer holds: red, its
    // words in the evidence row; refused, red with its reply.
    const bool offending = s.offending(r->id);
    item.fill = item.edge = offending ? kOffenceInk : kRed;
    item.label = s.options.highlight_ids.count(r->id) || offending
                     ? ""
                     : "#" + std::to_string(r->id) + " renew -> " + r->reply.to_text() + " (no hold)";
    item.label_colour = kRed;
    item.tooltip = "#" + std::to_string(r->id) + " " + r->script + " " + r->lock.name() + " by " + s.who(r->owner) + " -> " +
                   r->reply.to_text() + ", outside every hold of its owner";
    item.cls = cls_of(r->id);
    s.lane(client_lane(r->client)).items[Category::Activity].push_back(std::move(item));
  }
}

// Waits, with their polls: sparse ones as ticks, a dense stretch as one
// band that counts them. An acquire granted at once is its hold's start:
// nothing to show.
void add_waits(ReviewScene& s) {
  for (const RecordedWait& w : s.rec.waits) {
    if (w.outcome == RecordedWait::Outcome::Acquired && w.polls <= 1 && w.wakeups.empty() &&
        s.X(w.end_us) - s.X(w.start_us) < 3 && !s.options.highlight_ids.count(w.start_event))
      continue;
    add_wait(s, w);
  }
}

// Leases, and the expiries that outlived their owner's belief; a liveness
// violation's free span on its server.
void add_leases(ReviewScene& s) {
  for (const RecordedLease& l : s.rec.leases) {
    Item item = s.bar(Category::Lease, l.start_us, l.end_us, 14, kLeaseFill, kLeaseEdge);
    auto c = s.client_of.find(l.owner);
    const std::string whose = c != s.client_of.end() ? client_lane(c->second) : s.who(l.owner);
    item.label = "lease " + l.lock.name() + " (" + whose + ", " + format_duration_us(ms_to_us(l.lease_ms)) + ")";
    if (!l.renewals.empty())
      item.label += ", " + std::to_string(l.renewals.size()) + " renewal" + (l.renewals.size() > 1 ? "s" : "");
    if (const std::string end = lease_end_text(l); !end.empty()) item.label += " - " + end;
    item.tooltip = l.owner + " on the server from #" + std::to_string(l.start_event);
    item.cls = cls_of(l.start_event);
    for (const RecordedTick& t : l.renewals)
      if (t.true_us >= s.t0_us)
        item.marks.push_back({s.X(t.true_us), "box", "black", "#" + std::to_string(t.event_id) + " " + t.label});
    if (l.end == RecordedLease::End::Expired) mark_outlived_expiry(s, l, whose, &item);
    s.lane(server_lane(l.server)).items[Category::Lease].push_back(std::move(item));
  }
  for (const FreeSpan& f : s.evidence.free_spans) {
    Item item = s.bar(Category::Lease, f.from_us, f.to_us, 10, kFreeFill, kFreeEdge);
    item.label = f.label;
    item.bold = true;
    item.cls = cls_of(f.event);
    s.lane(server_lane(f.server)).items[Category::Lease].push_back(std::move(item));
  }
}

// Faults where and when they hit: spans (crash: dark) and instants (triangles).
void add_faults(ReviewScene& s) {
  for (const RecordedFault& f : s.rec.faults) {
    Item item;
    item.category = Category::Fault;
    item.x0_pt = s.X(f.start_us);
    item.label = f.label;
    item.tooltip = "#" + std::to_string(f.start_event) + " " + f.label;
    item.cls = cls_of(f.start_event);
    item.open_left = f.start_us < s.t0_us;
    if (f.instant) {
      item.shape = "triangle";
      item.x1_pt = item.x0_pt + 5;
      item.x0_pt -= 5;
      item.height_pt = 10;
      item.fill = f.op == Op::Lost ? "#ffe0b2" : kFaultFill;
      item.edge = kFaultEdge;
    } else {
      item.x1_pt = std::max(s.X(f.end_us), item.x0_pt + 2);
      item.height_pt = 12;
      item.fill = f.op == Op::Crash ? kCrashFill : kFaultFill;
      item.edge = f.op == Op::Crash ? "black" : kFaultEdge;
      if (f.op == Op::Crash) item.label_colour = "white";
      if (item.open_left) item.label = f.label + " since " + run_s(f.start_us, 1);
    }
    s.lane(f.client >= 0 ? client_lane(f.client) : server_lane(f.server)).items[Category::Fault].push_back(std::move(item));
  }
}

// Highlighted events as red marks named by their ids, on their owner's
// lane; scripts as dots on their server's lane.
void add_named_events_and_scripts(ReviewScene& s) {
  std::map<int, std::vector<const Event*>> scripts_of_server;
  for (const Event& e : s.window) {
    if (s.options.highlight_ids.count(e.id) > 0) s.lane(lane_of(e)).items[Category::Evidence].push_back(named_event_item(s, e));
    if (e.kind == EventKind::Script) scripts_of_server[std::max(e.server, 0)].push_back(&e);
  }
  for (const auto& [server, scripts] : scripts_of_server) add_server_scripts(s, server, scripts);
}

}  // namespace locksim::review
