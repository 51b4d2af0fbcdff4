// The review layout's builders for what it says in red with words
// (reports/review_scene.h): offending renewals and retried releases
// (reports/review_findings.h) in the evidence row of their client's lane,
// and a note on each server lane the window shows nothing of.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "properties/saturating_time.h"
#include "reports/review_scene.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

std::string ids_text(const std::vector<const Event*>& events) {
  return events.size() == 1 ? "#" + std::to_string(events.front()->id)
                            : "#" + std::to_string(events.front()->id) + " to #" + std::to_string(events.back()->id);
}

// "answered 1" / "each answered 1" when the run's replies agree, else "".
std::string replies_text(const std::vector<const Event*>& run) {
  const bool same = std::all_of(run.begin(), run.end(), [&](const Event* r) { return r->reply == run.front()->reply; });
  if (!same) return "";
  return std::string(run.size() == 1 ? ", answered " : ", each answered ") + run.front()->reply.to_text();
}

// What a run of offending renewals of one kind did, in words.
std::string offence_text(const ReviewScene& s, const OffendingRenewal& o, const std::vector<const Event*>& run) {
  const bool one = run.size() == 1;
  const std::string what = one ? ids_text(run) + ": a renewal" : std::to_string(run.size()) + " renewals (" + ids_text(run) + ")";
  switch (o.kind) {
    case OffendingRenewal::Kind::OthersLock:
      return what + " of " + s.client_name(o.holder) + "'s lock" + replies_text(run);
    case OffendingRenewal::Kind::AfterRelease:
      return what + " " + format_duration_us(run.front()->true_us - o.release_us) +
             " after the final release (#" + std::to_string(o.release_event) + ")" + replies_text(run);
    case OffendingRenewal::Kind::OutsideHolds:
      return what + " outside every hold of " + s.who(o.renewal->owner) + replies_text(run);
  }
  return "";
}

// A run of offending renewals as one red item: a small red box for one, a
// dashed red line with a tick per renewal for several, and what they did.
Item offence_item(const ReviewScene& s, const OffendingRenewal& o, const std::vector<const Event*>& run) {
  Item item;
  item.category = Category::Evidence;
  item.x0_pt = s.X(run.front()->true_us) - 3;
  item.x1_pt = std::max(s.X(run.back()->true_us) + 3, item.x0_pt + 6);
  item.fill = run.size() == 1 ? kRed : "none";
  item.edge = kRed;
  item.height_pt = run.size() == 1 ? 8 : 6;
  item.style = run.size() == 1 ? "filled" : "dashed";
  item.label = offence_text(s, o, run);
  item.label_colour = kRed;
  item.bold = true;
  for (const Event* r : run) {
    item.marks.push_back({s.X(r->true_us), "box", kOffenceInk, "#" + std::to_string(r->id) + " " + r->script + " " + r->lock.name() +
                                                            " by " + s.who(r->owner) + " -> " + r->reply.to_text() + " at " +
                                                            run_s(r->true_us),
                          12, 3});
  }
  item.tooltip = item.label;
  item.cls = cls_of(run.front()->id);
  return item;
}

void add_offending_renewals(ReviewScene& s) {
  // Runs of one client, one kind, one holder (or one release), in order.
  using Key = std::tuple<int, int, std::string, uint64_t>;
  std::map<Key, std::vector<const Event*>> runs;
  std::map<Key, const OffendingRenewal*> first_of;
  std::vector<Key> order;
  for (const OffendingRenewal& o : s.offending_renewals) {
    const Key key{o.renewal->client, static_cast<int>(o.kind), o.holder, o.release_event};
    if (runs.find(key) == runs.end()) {
      order.push_back(key);
      first_of[key] = &o;
    }
    runs[key].push_back(o.renewal);
  }
  for (const Key& key : order)
    s.lane(client_lane(std::get<0>(key))).items[Category::Evidence].push_back(offence_item(s, *first_of[key], runs[key]));
}

// A retried release: a dashed red line from its unlock's invoke to the
// retry, a tick at each attempt, and why it was sent again.
void add_retried_release(ReviewScene& s, const RetriedRelease& r) {
  Item item = s.bar(Category::Evidence, r.invoke_us, r.retry->true_us, 6, "none", kRed);
  item.style = "dashed";
  item.penwidth = 1.4;
  item.label = "#" + std::to_string(r.retry->id) + " retried release -> " + r.retry->reply.to_text() +
               (r.first != nullptr ? " (the first, #" + std::to_string(r.first->id) + ", answered " + r.first->reply.to_text() + ")"
                                   : std::string()) +
               ": " + r.reason;
  item.label_colour = kRed;
  item.bold = true;
  if (r.first != nullptr)
    item.marks.push_back({s.X(r.first->true_us), "box", kRed, "#" + std::to_string(r.first->id) + " release -> " + r.first->reply.to_text(), 12, 3});
  item.marks.push_back({s.X(r.retry->true_us), "box", kRed, "#" + std::to_string(r.retry->id) + " retried release -> " + r.retry->reply.to_text(), 12, 3});
  item.tooltip = item.label + " (unlock #" + std::to_string(r.invoke_event) + " at " + run_s(r.invoke_us) + ")";
  item.cls = cls_of(r.retry->id);
  s.lane(client_lane(r.retry->client)).items[Category::Evidence].push_back(std::move(item));
}

bool lane_empty(const Lane& l) {
  return std::all_of(l.items.begin(), l.items.end(), [](const auto& category) { return category.second.empty(); });
}

// Why a RedLock member's server saw no script: an acquire that held a
// majority from the others stopped there ("" if none did).
std::string majority_reason(const ReviewScene& s, int server) {
  const int servers = std::max(s.options.servers, 1);
  std::map<uint64_t, std::set<int>> servers_of_op;
  for (const Event& e : s.window)
    if (e.kind == EventKind::Script && e.op_id != 0 && e.server >= 0) servers_of_op[e.op_id].insert(e.server);
  for (const Event& e : s.window) {
    if (e.kind != EventKind::Ok || e.value != 1 || e.client < 0) continue;
    const auto touched = servers_of_op.find(e.op_id);
    if (touched == servers_of_op.end() || touched->second.count(server) > 0 ||
        static_cast<int>(touched->second.size()) <= servers / 2)
      continue;
    std::string which;
    size_t k = 0;
    for (int t : touched->second)
      which += (k++ == 0 ? "" : (k == touched->second.size() ? " and " : ", ")) + std::to_string(t);
    return "not asked: a RedLock acquire stops at a majority (client " + std::to_string(e.client) + "'s, #" +
           std::to_string(e.id) + ", held redis " + which + ": " + std::to_string(touched->second.size()) + " of " +
           std::to_string(servers) + ")";
  }
  return "";
}

}  // namespace

void add_findings(ReviewScene& s) {
  add_offending_renewals(s);
  for (const RetriedRelease& r : s.retried_releases) add_retried_release(s, r);
}

// A server lane with nothing on it says so, and why when it can.
void add_empty_server_notes(ReviewScene& s) {
  for (int server = 0; server < s.options.servers; ++server) {
    Lane& l = s.lane(server_lane(server));
    if (!lane_empty(l)) continue;
    Item note;
    note.category = Category::Lease;
    note.x0_pt = note.x1_pt = kLeftPt + 4;
    note.height_pt = 12;
    note.style = "invis";
    note.fill = note.edge = "none";
    const std::string why = s.options.redlock ? majority_reason(s, server) : "";
    note.label = why.empty() ? "no script ran on redis " + std::to_string(server) + " in this window" : why;
    note.label_colour = "#555555";
    note.tooltip = note.label;
    l.items[Category::Lease].push_back(std::move(note));
  }
}

}  // namespace locksim::review
