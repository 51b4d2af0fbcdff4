#include "sim/schedule_replay.h"

#include <string>

#include "sim/scenario.h"

namespace locksim {

ScheduleReplay::ScheduleReplay(const Schedule& schedule, bool loose) : loose_(loose) {
  for (const ScheduledFate& f : schedule.fates) fates_[{f.client, f.message}] = f;
  for (const ScheduledPick& p : schedule.picks) picks_[p.tie] = p.pick;
}

MessageFate ScheduleReplay::message_fate(const World& /*world*/, const MessageInfo& m) {
  auto it = fates_.find({m.client, m.index});
  if (it == fates_.end()) return MessageFate::on_time();
  const ScheduledFate& f = it->second;
  if (f.lost) return MessageFate::lost();
  if (f.arrive_us <= m.on_time_us) {
    if (loose_) return MessageFate::on_time();
    throw ScenarioError("plan: schedule: message " + std::to_string(m.index) + " of client " +
                        std::to_string(m.client) + " is to arrive late at " + std::to_string(f.arrive_us) +
                        " us, not after its on-time arrival at " + std::to_string(m.on_time_us) + " us");
  }
  return MessageFate::late(f.arrive_us);
}

size_t ScheduleReplay::pick(const World& /*world*/, size_t candidates) {
  const uint64_t tie = ties_++;
  auto it = picks_.find(tie);
  if (it == picks_.end()) return 0;
  if (it->second >= candidates) {
    if (loose_) return candidates - 1;
    throw ScenarioError("plan: schedule: pick " + std::to_string(tie) + " takes candidate " +
                        std::to_string(it->second) + " of " + std::to_string(candidates));
  }
  return it->second;
}

}  // namespace locksim
