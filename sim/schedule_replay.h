// ScheduleReplay: the ScheduleHook (sim/schedule_hook.h) that replays a
// plan's recorded Schedule (sim/explicit_plan.h): every message on time but
// the listed ones (lost, or late to their recorded arrival), every pick the
// first candidate but the listed ones. A recorded choice the run cannot
// take (a pick beyond the candidates there are, a late arrival not after
// the on-time one) throws ScenarioError naming it: the plan does not fit
// this run; or, when `loose` (ExplicitPlan::loose_schedule: a cause
// search's re-run without some faults), becomes the nearest choice there is
// (the last candidate; the on-time arrival).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

#include "sim/explicit_plan.h"
#include "sim/schedule_hook.h"

namespace locksim {

class ScheduleReplay final : public ScheduleHook {
 public:
  explicit ScheduleReplay(const Schedule& schedule, bool loose = false);
  MessageFate message_fate(const World& world, const MessageInfo& message) override;
  size_t pick(const World& world, size_t candidates) override;

 private:
  std::map<std::pair<int, uint64_t>, ScheduledFate> fates_;
  std::map<uint64_t, uint32_t> picks_;
  uint64_t ties_ = 0;
  bool loose_ = false;
};

}  // namespace locksim
