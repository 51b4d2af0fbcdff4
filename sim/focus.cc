#include "sim/focus.h"

#include <array>
#include <cassert>

#include "sim/rng.h"

namespace locksim {

namespace {

struct TriggerInfo {
  FocusTrigger trigger;
  const char* name;
  const char* words;  // "when ..., ..."
};

constexpr std::array<TriggerInfo, kFocusTriggerCount> kTriggers = {{
    {FocusTrigger::CrashContendedHolder, "crash_contended_holder",
     "when a waiter is refused, its lock's holder crashes"},
    {FocusTrigger::PauseContendedHolder, "pause_contended_holder",
     "when a waiter is refused, its lock's holder is paused"},
    {FocusTrigger::CrashAfterRenewal, "crash_after_renewal", "when a watchdog renewal goes through, its client crashes"},
    {FocusTrigger::PauseAcrossRenewal, "pause_across_renewal",
     "when a watchdog renewal goes through, its client is paused across the next one"},
    {FocusTrigger::CrashReleasing, "crash_releasing", "when a client sends a release, it crashes before the reply"},
    {FocusTrigger::CrashLineHead, "crash_line_head", "when a fair poll leaves its caller at the head of the line, it crashes"},
    {FocusTrigger::PauseWaiter, "pause_waiter", "when a waiter is refused, it is paused"},
    {FocusTrigger::JumpWaiterClock, "jump_waiter_clock", "when a fair waiter is refused, its clock steps"},
    {FocusTrigger::HoldToRenewal, "hold_to_renewal", "watchdog holds end right at one of their renewals"},
}};

const TriggerInfo& info(FocusTrigger t) {
  const auto& i = kTriggers[static_cast<size_t>(t)];
  assert(i.trigger == t);
  return i;
}

constexpr std::array<const char*, kOpMixCount> kMixNames = {"any", "wait_only", "try_only", "nested"};
constexpr std::array<const char*, kOpMixCount> kMixWords = {
    "the workload's own mix of operations", "waiters that never give up (lock() only)",
    "waiters that give up (tryLock only)", "holds re-entered four times in five"};

constexpr std::array<int, 3> kChancesPct = {25, 50, 100};
constexpr std::array<int, 3> kMaxFaults = {1, 2, 4};
constexpr double kPlainShare = 0.25;

}  // namespace

std::string_view focus_trigger_name(FocusTrigger t) { return info(t).name; }

std::optional<FocusTrigger> focus_trigger_from_name(std::string_view name) {
  for (const TriggerInfo& i : kTriggers)
    if (name == i.name) return i.trigger;
  return std::nullopt;
}

std::string_view op_mix_name(OpMix m) { return kMixNames[static_cast<size_t>(m)]; }

std::optional<OpMix> op_mix_from_name(std::string_view name) {
  for (size_t i = 0; i < kMixNames.size(); ++i)
    if (name == kMixNames[i]) return static_cast<OpMix>(i);
  return std::nullopt;
}

std::optional<FaultKind> focus_fault_kind(FocusTrigger t) {
  switch (t) {
    case FocusTrigger::CrashContendedHolder:
    case FocusTrigger::CrashAfterRenewal:
    case FocusTrigger::CrashReleasing:
    case FocusTrigger::CrashLineHead:
      return FaultKind::Crash;
    case FocusTrigger::PauseContendedHolder:
    case FocusTrigger::PauseAcrossRenewal:
    case FocusTrigger::PauseWaiter:
      return FaultKind::Pause;
    case FocusTrigger::JumpWaiterClock:
      return FaultKind::ClientClockJump;
    case FocusTrigger::HoldToRenewal:
      return std::nullopt;
  }
  return std::nullopt;
}

bool focus_applies(FocusTrigger t, const Profile& profile, ScenarioLockKind lock_kind) {
  const bool fair_only = t == FocusTrigger::CrashLineHead || t == FocusTrigger::JumpWaiterClock;
  if (fair_only && !has_fair_locks(lock_kind)) return false;
  const std::optional<FaultKind> kind = focus_fault_kind(t);
  if (!kind) return true;
  Rng probe(0);
  return draw_profile_fault(profile, *kind, probe).has_value();
}

std::optional<Focus> draw_focus(uint64_t seed, const Profile& profile, ScenarioLockKind lock_kind, int locks) {
  assert(locks >= 1);
  Rng r = Rng(seed).split("focus");
  if (r.chance(kPlainShare)) return std::nullopt;
  std::vector<FocusTrigger> usable;
  for (const TriggerInfo& i : kTriggers)
    if (focus_applies(i.trigger, profile, lock_kind)) usable.push_back(i.trigger);
  if (usable.empty()) return std::nullopt;
  Focus f;
  f.trigger = usable[r.below(usable.size())];
  f.chance_pct = kChancesPct[r.below(kChancesPct.size())];
  f.max_faults = kMaxFaults[r.below(kMaxFaults.size())];
  f.mix = static_cast<OpMix>(r.below(kOpMixCount));
  if (locks > 1 && r.chance(0.5)) f.only_lock = static_cast<int>(r.below(static_cast<uint64_t>(locks)));
  return f;
}

std::string focus_reason(const Focus& f) {
  std::string out = "focus: ";
  out += info(f.trigger).words;
  out += " (each time with probability " + std::to_string(f.chance_pct) + "%, at most " +
         std::to_string(f.max_faults) + (f.max_faults == 1 ? " time)" : " times)");
  out += "; ";
  out += kMixWords[static_cast<size_t>(f.mix)];
  if (f.only_lock >= 0) out += ", every operation on lock " + std::to_string(f.only_lock);
  return out;
}

nlohmann::json focus_to_json(const Focus& f) {
  return nlohmann::json{{"trigger", focus_trigger_name(f.trigger)},
                        {"chance_pct", f.chance_pct},
                        {"max_faults", f.max_faults},
                        {"mix", op_mix_name(f.mix)},
                        {"only_lock", f.only_lock}};
}

Focus focus_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw FocusError("\"focus\" must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "trigger" && it.key() != "chance_pct" && it.key() != "max_faults" && it.key() != "mix" &&
        it.key() != "only_lock")
      throw FocusError("\"focus\": unknown field \"" + it.key() + "\"");
  }
  Focus f;
  const auto t = j.find("trigger");
  if (t == j.end() || !t->is_string()) throw FocusError("\"focus\": \"trigger\" must be a trigger's name");
  const auto trigger = focus_trigger_from_name(t->get<std::string>());
  if (!trigger) throw FocusError("\"focus\": unknown trigger \"" + t->get<std::string>() + "\"");
  f.trigger = *trigger;
  auto whole = [&j](const char* field, int lo, int hi) {
    const auto v = j.find(field);
    if (v == j.end() || !v->is_number_integer())
      throw FocusError(std::string("\"focus\": \"") + field + "\" must be a whole number");
    const int64_t n = v->get<int64_t>();
    if (n < lo || n > hi)
      throw FocusError(std::string("\"focus\": \"") + field + "\" must be in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
    return static_cast<int>(n);
  };
  f.chance_pct = whole("chance_pct", 1, 100);
  f.max_faults = whole("max_faults", 1, kMaxFocusFaults);
  const auto m = j.find("mix");
  if (m == j.end() || !m->is_string()) throw FocusError("\"focus\": \"mix\" must be an operation mix's name");
  const auto mix = op_mix_from_name(m->get<std::string>());
  if (!mix) throw FocusError("\"focus\": unknown mix \"" + m->get<std::string>() + "\" (any, wait_only, try_only, nested)");
  f.mix = *mix;
  f.only_lock = whole("only_lock", -1, 1 << 20);
  return f;
}

}  // namespace locksim
