#include "reports/time_axis.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>

#include "properties/saturating_time.h"

namespace locksim {

namespace {

constexpr int64_t kMinQuietUs = 1'000'000;     // never collapse a gap under a second
constexpr double kMinContentPt = 700;
constexpr double kMaxContentPt = 1500;
constexpr double kPtPerInstant = 12;
constexpr double kMaxPtPerUs = 0.1;            // 1 ms is at most 100 pt wide
constexpr int64_t kQuietPerP90Gap = 20;

}  // namespace

std::string format_axis_seconds(int64_t true_us, int64_t step_us) {
  int decimals = 0;
  for (int64_t unit = 1'000'000; unit > step_us && decimals < 6; unit /= 10) ++decimals;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f s", decimals, static_cast<double>(true_us) / 1e6);
  return buf;
}

TimeAxis::TimeAxis(std::vector<int64_t> instants_us, const TimeAxisOptions& options) {
  std::sort(instants_us.begin(), instants_us.end());
  instants_us.erase(std::unique(instants_us.begin(), instants_us.end()), instants_us.end());
  if (instants_us.empty()) instants_us.push_back(0);
  // Automatic: a gap is quiet when it is far longer than the gaps that carry
  // the action (20 times the 90th percentile), and at least a second. A short
  // counterexample (a few events seconds apart) stays one linear stretch.
  if (options.quiet_us > 0) {
    quiet_us_ = options.quiet_us;
  } else {
    std::vector<int64_t> gaps_us;
    for (size_t i = 1; i < instants_us.size(); ++i) gaps_us.push_back(instants_us[i] - instants_us[i - 1]);
    int64_t p90_us = 0;
    if (!gaps_us.empty()) {
      const size_t at = gaps_us.size() * 9 / 10;
      std::nth_element(gaps_us.begin(), gaps_us.begin() + static_cast<std::ptrdiff_t>(at), gaps_us.end());
      p90_us = gaps_us[at];
    }
    quiet_us_ = std::max(kMinQuietUs, sat_mul(kQuietPerP90Gap, p90_us));
  }
  // The proportional time: every gap that is not collapsed.
  int64_t kept_us = 0;
  for (size_t i = 1; i < instants_us.size(); ++i) {
    const int64_t gap_us = instants_us[i] - instants_us[i - 1];
    if (gap_us <= quiet_us_) kept_us += gap_us;
  }
  const double content_pt =
      options.content_width_pt > 0
          ? options.content_width_pt
          : std::clamp(static_cast<double>(instants_us.size()) * kPtPerInstant, kMinContentPt, kMaxContentPt);
  pt_per_us_ = kept_us > 0 ? std::min(kMaxPtPerUs, content_pt / static_cast<double>(kept_us)) : kMaxPtPerUs;
  Stretch current{instants_us.front(), instants_us.front(), 0, 0};
  for (size_t i = 1; i < instants_us.size(); ++i) {
    const int64_t gap_us = instants_us[i] - instants_us[i - 1];
    if (gap_us <= quiet_us_) {
      current.end_us = instants_us[i];
      current.x1_pt = current.x0_pt + static_cast<double>(current.end_us - current.start_us) * pt_per_us_;
      continue;
    }
    stretches_.push_back(current);
    bands_.push_back({instants_us[i - 1], instants_us[i], current.x1_pt, current.x1_pt + kBandWidthPt});
    current = {instants_us[i], instants_us[i], current.x1_pt + kBandWidthPt, current.x1_pt + kBandWidthPt};
  }
  stretches_.push_back(current);
  width_pt_ = current.x1_pt;
  assert(bands_.size() + 1 == stretches_.size());
}

double TimeAxis::x_pt(int64_t true_us) const {
  // The last stretch that starts at or before true_us (the first one if none).
  auto it = std::upper_bound(stretches_.begin(), stretches_.end(), true_us,
                             [](int64_t t, const Stretch& s) { return t < s.start_us; });
  if (it == stretches_.begin()) return stretches_.front().x0_pt - static_cast<double>(stretches_.front().start_us - true_us) * pt_per_us_;
  const size_t i = static_cast<size_t>(it - stretches_.begin()) - 1;
  const Stretch& s = stretches_[i];
  if (true_us <= s.end_us) return s.x0_pt + static_cast<double>(true_us - s.start_us) * pt_per_us_;
  if (i < bands_.size()) {  // inside the band after stretch i
    const QuietBand& b = bands_[i];
    const double fraction = static_cast<double>(true_us - b.start_us) / static_cast<double>(b.end_us - b.start_us);
    return b.x0_pt + fraction * (b.x1_pt - b.x0_pt);
  }
  return s.x1_pt + static_cast<double>(true_us - s.end_us) * pt_per_us_;  // after the last instant
}

std::vector<TimeAxis::Tick> TimeAxis::ticks() const {
  // One step for the whole axis: the smallest 1-2-5 step at least kTickGapPt wide.
  int64_t step_us = 1;
  for (int guard = 0; guard < 40 && static_cast<double>(step_us) * pt_per_us_ < kTickGapPt; ++guard) {
    const int64_t mantissa = step_us;
    int64_t power = 1;
    while (power * 10 <= mantissa) power *= 10;
    const int64_t lead = mantissa / power;
    step_us = lead == 1 ? 2 * power : (lead == 2 ? 5 * power : 10 * power);
  }
  std::vector<Tick> out;
  double last_x_pt = -1e18;
  for (size_t i = 0; i < stretches_.size(); ++i) {
    const Stretch& s = stretches_[i];
    // A band's own label (its length) sits over it: keep tick labels clear of it.
    if (i > 0) last_x_pt = std::max(last_x_pt, bands_[i - 1].x1_pt - kTickGapPt / 2);
    int64_t t = (s.start_us / step_us) * step_us;
    if (t < s.start_us) t = sat_add(t, step_us);
    bool any = false;
    // A step past the end of time ends the loop.
    bool past_end = false;
    for (int guard = 0; !past_end && t <= s.end_us && guard < 1000;
         past_end = __builtin_add_overflow(t, step_us, &t), ++guard) {
      const double x = x_pt(t);
      if (x - last_x_pt < kTickGapPt) continue;
      if (i < bands_.size() && x > bands_[i].x0_pt - kTickGapPt / 2) break;
      out.push_back({t, x, format_axis_seconds(t, step_us)});
      last_x_pt = x;
      any = true;
    }
    if (!any && s.x0_pt - last_x_pt >= kTickGapPt && (i >= bands_.size() || bands_[i].x0_pt - s.x0_pt >= kTickGapPt / 2)) {
      // Too short for a round tick: label its start, with ms precision.
      out.push_back({s.start_us, s.x0_pt, format_axis_seconds(s.start_us, 1000)});
      last_x_pt = s.x0_pt;
    }
  }
  return out;
}

}  // namespace locksim
