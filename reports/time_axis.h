// TimeAxis: maps true time (µs) to a horizontal position (points) for the
// review timeline. Time is proportional within a stretch (one scale for the
// whole picture); a gap between two consecutive instants longer than the
// quiet threshold is collapsed into a fixed-width band that says how long it
// was, so a 41 s pause and the millisecond round trips around it fit on one
// page. The instants given are the only times the picture needs to tell
// apart (event times, computed expiries); x_pt() accepts any time and is
// monotone (linear inside a band too). Construction is O(n log n) in the
// instants; x_pt() is O(log n). Pure: same instants, same axis.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace locksim {

struct TimeAxisOptions {
  int64_t quiet_us = 0;          // gaps longer than this collapse; 0: automatic (20 times
                                 // the 90th-percentile gap, at least 1 s)
  double content_width_pt = 0;   // width of the proportional part; 0: automatic
};

class TimeAxis {
 public:
  struct Stretch {  // a proportional part
    int64_t start_us = 0;
    int64_t end_us = 0;
    double x0_pt = 0;
    double x1_pt = 0;
  };
  struct QuietBand {  // a collapsed gap between two stretches
    int64_t start_us = 0;
    int64_t end_us = 0;
    double x0_pt = 0;
    double x1_pt = 0;
  };
  struct Tick {
    int64_t true_us = 0;
    double x_pt = 0;
    std::string label;  // "12.35 s"
  };

  static constexpr double kBandWidthPt = 64;

  TimeAxis(std::vector<int64_t> instants_us, const TimeAxisOptions& options);

  double x_pt(int64_t true_us) const;
  double width_pt() const { return width_pt_; }
  double pt_per_us() const { return pt_per_us_; }
  int64_t quiet_us() const { return quiet_us_; }
  const std::vector<Stretch>& stretches() const { return stretches_; }
  const std::vector<QuietBand>& bands() const { return bands_; }
  // Round-valued ticks inside each stretch, at least kTickGapPt apart; a
  // stretch too short for a round tick gets one at its start.
  std::vector<Tick> ticks() const;
  static constexpr double kTickGapPt = 70;

 private:
  std::vector<Stretch> stretches_;
  std::vector<QuietBand> bands_;
  double width_pt_ = 0;
  double pt_per_us_ = 0;
  int64_t quiet_us_ = 0;
};

// "12.350 s" with as many decimals as a step of `step_us` needs.
std::string format_axis_seconds(int64_t true_us, int64_t step_us);

}  // namespace locksim
