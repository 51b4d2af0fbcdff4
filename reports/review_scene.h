// ReviewScene: what the builders of a ReviewLayout (reports/review_layout.h)
// share while they fill its lanes, one builder per kind of thing drawn
// (reports/review_items.cc, reports/review_line_items.cc). Built once from
// the recording, the window and the options, it holds:
//  - the recording, its bars still open at the window's end run on a little
//    past it (a twenty-fifth of the span, so a hold that began with the last
//    event shows), and the horizon (the window's own end);
//  - who is who (each owner's client), the window's events by id;
//  - the evidence the focus violations name (liveness bounds and free
//    spans, poll storms, the fifo stays, their owners' clients);
//  - the time axis (reports/time_axis.h) and X(), true time to points;
//  - the lanes (clients ascending, each fair lock's line, servers
//    ascending; lane() adds one a builder needs that is not there yet);
//  - the findings drawn in red with words (reports/review_findings.h);
//  - what the builders found that the header and the legend need.
// The builders run in a fixed order (lay_out_review), which fixes the
// order of lanes and items, and so the drawing's text.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/history_recording.h"
#include "reports/review_findings.h"
#include "reports/review_layout.h"
#include "reports/time_axis.h"
#include "reports/timeline.h"
#include "traces/event.h"

namespace locksim::review {

struct Bound {  // a red line: a liveness bound
  int64_t at_us = 0;
  std::string note;
};

struct FreeSpan {  // a liveness violation's lock free on the server
  int server = 0;
  int64_t from_us = 0;
  int64_t to_us = 0;
  std::string label;
  uint64_t event = 0;
};

struct Storm {  // a busy_poll report's storm of polls
  uint64_t wait_start_event = 0;
  int64_t from_us = 0;
  int64_t to_us = 0;
  std::string what;   // "39 polls in 1.0 s, 38/s"
  std::string label;  // "busy_poll: " + what
  std::string head;  // the owner at the head of the line it polls behind ("" if none named)
};

struct Evidence {
  std::vector<Bound> bounds;
  std::vector<FreeSpan> free_spans;
  std::vector<Storm> storms;
  std::set<int> focus_clients;
  std::set<std::pair<std::string, uint64_t>> focus_stays;  // (owner, the event that removed it)
};

struct ExpiryLine {  // a lease that expired while its owner believed it held the lock
  int64_t at_us = 0;
  std::string note;
};

class ReviewScene {
 public:
  ReviewScene(const HistoryRecording& recording, const std::vector<Event>& window, const TimelineOptions& options);
  ReviewScene(const ReviewScene&) = delete;
  ReviewScene& operator=(const ReviewScene&) = delete;

  HistoryRecording rec;
  const std::vector<Event>& window;
  const TimelineOptions& options;
  int64_t epoch_ms = 0;
  int64_t t0_us = 0;       // the window's first event
  int64_t horizon_us = 0;  // its end (before open bars were extended)
  int64_t t1_us = 0;       // the axis's end (a lost slot or a bound may lie past the window)
  std::map<std::string, int> client_of;
  std::map<uint64_t, const Event*> event_of;
  Evidence evidence;
  std::vector<OffendingRenewal> offending_renewals;  // reports/review_findings.h
  std::vector<RetriedRelease> retried_releases;
  std::vector<Lane> lanes;

  // Found by the builders.
  std::vector<const Event*> renewals;  // the window's watchdog renewals
  std::vector<ExpiryLine> expiry_lines;
  bool any_early_purge = false, any_ghost = false, any_purge = false, any_grant = false;

  const TimeAxis& axis() const { return *axis_; }
  int64_t clip(int64_t us) const;
  double X(int64_t true_us) const;                  // kLeftPt + the axis's position
  int64_t seen_us(int64_t span_end_us) const;       // an end clipped to the horizon
  int64_t local_us(int64_t local_ms) const;         // a client's clock reading, as time since the run began
  std::string who(std::string_view owner) const;    // "c3:1" (a server's holder text is read as an OwnerId)
  // A bar from start to end, at least 2 pt wide (an instant still shows).
  Item bar(Category category, int64_t start_us, int64_t end_us, double height_pt, std::string fill,
           std::string edge) const;
  Lane& lane(const std::string& name);
  bool offending(uint64_t renewal_event) const { return offending_ids_.count(renewal_event) > 0; }
  // "client 2" for an owner of a known client, else its short name.
  std::string client_name(const std::string& owner) const;

 private:
  void make_axis();
  void make_lanes();
  std::optional<TimeAxis> axis_;
  std::map<std::string, size_t> lane_index_;
  std::set<uint64_t> offending_ids_;
};

std::string cls_of(uint64_t event_id);  // "ev e<id>"

// Builders, in the order lay_out_review runs them.
void add_holds(ReviewScene& scene);
void add_stray_renewals(ReviewScene& scene);
void add_waits(ReviewScene& scene);
void add_line_stays(ReviewScene& scene);
void add_leases(ReviewScene& scene);
void add_faults(ReviewScene& scene);
void add_named_events_and_scripts(ReviewScene& scene);
void add_findings(ReviewScene& scene);           // reports/review_finding_items.cc
void add_empty_server_notes(ReviewScene& scene);
// The picture's title in words (reports/review_headline.cc): what went
// wrong, from the focus violation (or the window's first overlap); "" when
// it names nothing the review can say in words.
std::string review_headline(const ReviewScene& scene);

}  // namespace locksim::review
