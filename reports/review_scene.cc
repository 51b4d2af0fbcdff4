#include "reports/review_scene.h"

#include <algorithm>
#include <climits>

#include "properties/saturating_time.h"
#include "properties/scenario_check.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

constexpr int64_t kSkewShownMs = 50;  // a clock offset this large is written under the lane name

// Bars still open at the end of the window run on a little past it (a
// twenty-fifth of the span), so a hold that began with the last event (a
// shrunk counterexample ends there) shows, and its overlap too.
void extend_open_bars(HistoryRecording* rec) {
  const bool any_open =
      std::any_of(rec->holds.begin(), rec->holds.end(), [](const RecordedHold& h) { return h.end == RecordedHold::End::Open; }) ||
      std::any_of(rec->waits.begin(), rec->waits.end(), [](const RecordedWait& w) { return w.outcome == RecordedWait::Outcome::Open; });
  if (!any_open) return;
  rec->end_us = sat_add(rec->end_us, std::max<int64_t>(sat_sub(rec->end_us, rec->first_us) / 25, 1000));
  for (RecordedHold& h : rec->holds)
    if (h.end == RecordedHold::End::Open) h.end_us = rec->end_us;
  for (RecordedWait& w : rec->waits)
    if (w.outcome == RecordedWait::Outcome::Open) w.end_us = rec->end_us;
  for (RecordedLease& l : rec->leases)
    if (l.end == RecordedLease::End::Open) l.end_us = rec->end_us;
  for (RecordedLineStay& s : rec->line_stays)
    if (s.left == RecordedLineStay::Left::Open) s.left_us = rec->end_us;
  for (RecordedOverlap& o : rec->overlaps)
    if (o.open) o.end_us = rec->end_us;
}

std::map<std::string, int> clients_of_owners(const HistoryRecording& rec, const std::vector<Event>& window) {
  std::map<std::string, int> client_of;
  for (const RecordedHold& h : rec.holds) client_of.emplace(h.owner, h.client);
  for (const RecordedWait& w : rec.waits) client_of.emplace(w.owner, w.client);
  for (const RecordedLineStay& s : rec.line_stays)
    if (s.client >= 0) client_of.emplace(s.owner, s.client);
  for (const Event& e : window)
    if (e.client >= 0 && !e.owner.empty()) client_of.emplace(e.owner, e.client);
  return client_of;
}

// A liveness violation: on a lock the server shows free, that free span and
// the bound (from the later of the waiter's invoke and the lock's freeing);
// otherwise its bound from the waiter's invoke.
void liveness_evidence(const ReviewScene& s, const Violation& v, Evidence* out) {
  if (v.event_ids.size() >= 2 && v.true_us.size() >= 2 && v.facts.free_since_event != 0) {
    // {invoke, free}: the waiter is judged from the later of the two.
    const uint64_t free_event = v.facts.free_since_event;
    const auto free_ev = s.event_of.find(free_event);
    const int server = free_ev != s.event_of.end() && free_ev->second->server >= 0 ? free_ev->second->server : 0;
    const int64_t since_us = std::max(v.true_us[0], v.true_us[1]);
    const auto detected = s.event_of.find(v.detected_at_event);
    const int64_t to_us = detected != s.event_of.end() ? detected->second->true_us : s.horizon_us;
    out->free_spans.push_back({server, v.true_us[1], to_us,
                               "lock " + v.lock.name() + " free on the server since #" + std::to_string(free_event) +
                                   " (" + format_duration_us(to_us - v.true_us[1]) + ")",
                               free_event});
    if (const int64_t bound_ms = v.facts.bound_ms; bound_ms >= 0) {
      out->bounds.push_back({sat_add(since_us, ms_to_us(bound_ms)),
                             "liveness bound " + format_ms(bound_ms) + " after #" +
                                 std::to_string(v.true_us[0] >= v.true_us[1] ? v.event_ids[0] : free_event)});
    }
  } else if (!v.event_ids.empty() && !v.true_us.empty()) {
    if (const int64_t bound_ms = v.facts.bound_ms; bound_ms >= 0) {
      out->bounds.push_back({sat_add(v.true_us[0], ms_to_us(bound_ms)),
                             "liveness bound " + format_ms(bound_ms) + " after #" + std::to_string(v.event_ids[0])});
    }
  }
}

// A busy_poll report: the storm (its polls, span and rate) and the head of
// the line it polls behind.
void busy_poll_evidence(const Violation& v, Evidence* out) {
  if (v.event_ids.size() < 3 || v.true_us.size() < 3) return;
  const int64_t polls = v.facts.polls;
  const int64_t rate = v.facts.polls_per_s;
  const std::string what = (polls >= 0 ? grouped(polls) + " polls" : std::string("polls")) + " in " +
                           format_duration_us(v.true_us[2] - v.true_us[1]) +
                           (rate >= 0 ? ", " + grouped(rate) + "/s" : std::string());
  out->storms.push_back({v.event_ids[0], v.true_us[1], v.true_us[2], what, "busy_poll: " + what, v.facts.line_head});
}

Evidence focus_evidence(const ReviewScene& s) {
  Evidence out;
  for (const Violation& v : s.options.focus) {
    for (const std::string& owner : v.owners)
      if (auto it = s.client_of.find(owner); it != s.client_of.end()) out.focus_clients.insert(it->second);
    if (v.property == property::kLiveness) {
      liveness_evidence(s, v, &out);
    } else if (v.property == property::kBusyPoll) {
      busy_poll_evidence(v, &out);
    } else if (v.property == property::kFifoFairness && v.event_ids.size() >= 2) {
      for (const std::string& owner : v.owners) out.focus_stays.insert({owner, v.event_ids.back()});
    }
  }
  return out;
}

// A client lane's name lines: its uuid's first characters, and its clock
// offset where it is kSkewShownMs or more off.
Lane client_lane_of(const ReviewScene& s, int c, const std::map<int, std::string>& owner_of_client) {
  Lane l{client_lane(c), {}, {}, {}, 0, 0};
  if (auto owner = owner_of_client.find(c); owner != owner_of_client.end()) l.details.push_back(uuid_prefix(OwnerId(owner->second)));
  if (auto clock = s.rec.clocks.find(c); clock != s.rec.clocks.end()) {
    const ClientClock& k = clock->second;
    if (std::max(sat_abs(k.min_offset_ms), sat_abs(k.max_offset_ms)) >= kSkewShownMs) {
      const int64_t largest = sat_abs(k.min_offset_ms) >= sat_abs(k.max_offset_ms) ? k.min_offset_ms : k.max_offset_ms;
      l.details.push_back(sat_sub(k.max_offset_ms, k.min_offset_ms) < kSkewShownMs
                              ? "clock " + signed_duration_ms(largest)
                              : "clock " + signed_duration_ms(k.min_offset_ms) + " to " +
                                    signed_duration_ms(k.max_offset_ms));
    }
  }
  return l;
}

}  // namespace

std::string cls_of(uint64_t event_id) { return "ev e" + std::to_string(event_id); }

ReviewScene::ReviewScene(const HistoryRecording& recording, const std::vector<Event>& window_events,
                         const TimelineOptions& opts)
    : rec(recording), window(window_events), options(opts) {
  epoch_ms = default_check_config().clock_epoch_ms;
  t0_us = rec.first_us;
  horizon_us = rec.end_us;
  extend_open_bars(&rec);
  client_of = clients_of_owners(rec, window);
  for (const Event& e : window) event_of.emplace(e.id, &e);
  evidence = focus_evidence(*this);
  const CheckConfig config = options.check.value_or(default_check_config());
  offending_renewals = review::offending_renewals(rec, window, config);
  for (const OffendingRenewal& o : offending_renewals) offending_ids_.insert(o.renewal->id);
  retried_releases = review::retried_releases(rec, window, config);
  make_axis();
  make_lanes();
}

// The axis reaches past the window's last event for a purge's lost slot
// and for a liveness bound or free span (over a band that says the events
// between are not drawn); it tells apart every instant the picture needs.
void ReviewScene::make_axis() {
  t1_us = rec.end_us;
  for (const RecordedLineStay& s : rec.line_stays) {
    if (s.left == RecordedLineStay::Left::Purged && s.deadline_true_us != INT64_MAX && s.deadline_true_us > s.left_us &&
        s.left_us >= t0_us && s.deadline_true_us - s.left_us <= 60'000'000)
      t1_us = std::max(t1_us, s.deadline_true_us);
  }
  for (const Bound& b : evidence.bounds)
    if (b.at_us > t1_us && sat_sub(b.at_us, t1_us) <= 3'600'000'000) t1_us = sat_add(b.at_us, 1000);
  for (const FreeSpan& f : evidence.free_spans)
    if (f.to_us > t1_us && sat_sub(f.to_us, t1_us) <= 3'600'000'000) t1_us = f.to_us;
  std::vector<int64_t> instants;
  instants.reserve(window.size() + rec.leases.size() + rec.faults.size() + 8);
  for (const Event& e : window) instants.push_back(e.true_us);
  for (const RecordedLease& l : rec.leases) instants.push_back(clip(l.end_us));
  for (const RecordedFault& f : rec.faults) instants.push_back(clip(f.end_us));
  for (const RecordedLineStay& s : rec.line_stays)
    if (s.deadline_true_us >= t0_us && s.deadline_true_us <= t1_us) instants.push_back(s.deadline_true_us);
  for (const Bound& b : evidence.bounds) instants.push_back(clip(b.at_us));
  for (const FreeSpan& f : evidence.free_spans) instants.push_back(clip(f.to_us));
  instants.push_back(t0_us);
  instants.push_back(t1_us);
  TimeAxisOptions axis_options;
  axis_options.quiet_us = options.quiet_us;
  axis_.emplace(instants, axis_options);
}

// Clients ascending (those the focus violations name too), then each fair
// lock's line, then servers ascending.
void ReviewScene::make_lanes() {
  std::map<int, std::string> owner_of_client;
  for (const auto& [owner, c] : client_of) owner_of_client.emplace(c, owner);
  std::set<int> clients = rec.clients;
  clients.insert(evidence.focus_clients.begin(), evidence.focus_clients.end());
  for (int c : clients) {
    lane_index_[client_lane(c)] = lanes.size();
    lanes.push_back(client_lane_of(*this, c, owner_of_client));
  }
  for (const LockRef& lock : rec.fair_locks) {
    lane_index_[line_lane(lock)] = lanes.size();
    lanes.push_back({line_lane(lock), {"waiting line,", "a row per place"}, {}, {}, 0, 0});
  }
  std::set<int> servers = rec.servers;
  for (const FreeSpan& f : evidence.free_spans) servers.insert(f.server);
  for (int s = 0; s < options.servers; ++s) servers.insert(s);  // every server of the run
  for (int s : servers) {
    lane_index_[server_lane(s)] = lanes.size();
    lanes.push_back({server_lane(s), {"server"}, {}, {}, 0, 0});
  }
}

int64_t ReviewScene::clip(int64_t us) const { return std::clamp(us, t0_us, t1_us); }

double ReviewScene::X(int64_t true_us) const { return kLeftPt + axis_->x_pt(clip(true_us)); }

int64_t ReviewScene::seen_us(int64_t span_end_us) const { return std::min(span_end_us, horizon_us); }

int64_t ReviewScene::local_us(int64_t local_ms) const { return ms_to_us(sat_sub(local_ms, epoch_ms)); }

// An owner as drawn; a server's holder or line entry is read as one here.
std::string ReviewScene::who(std::string_view text) const {
  const OwnerId owner(text);
  auto it = client_of.find(owner.str());
  return short_owner(owner, it == client_of.end() ? -1 : it->second);
}

std::string ReviewScene::client_name(const std::string& owner) const {
  auto it = client_of.find(owner);
  return it == client_of.end() ? who(owner) : client_lane(it->second);
}

Item ReviewScene::bar(Category category, int64_t start_us, int64_t end_us, double height_pt, std::string fill,
                      std::string edge) const {
  Item item;
  item.category = category;
  item.x0_pt = X(start_us);
  item.x1_pt = std::max(X(end_us), item.x0_pt + 2);
  item.height_pt = height_pt;
  item.fill = std::move(fill);
  item.edge = std::move(edge);
  item.open_left = start_us < t0_us;
  return item;
}

Lane& ReviewScene::lane(const std::string& name) {
  auto [it, added] = lane_index_.emplace(name, lanes.size());
  if (added) lanes.push_back({name, {}, {}, {}, 0, 0});
  return lanes[it->second];
}

}  // namespace locksim::review
