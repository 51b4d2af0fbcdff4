// Focus: what a focused run aims at (`campaign --focus`). A random seed
// spreads its faults over the run by a clock; a focused run puts one kind
// of fault at the instants where a lock is fragile, chosen from what the run
// is doing (FoundationDB's BUGGIFY, Jepsen's targeted nemeses): the holder
// of a lock someone is waiting for crashes or pauses, a client crashes just
// after its renewal went through or while its release is in flight, the
// head of a fair line crashes, a waiter is paused or its clock steps just
// after a poll, a holder is paused across its next renewal, or a hold ends
// right at a watchdog renewal. Each run of a
// focused campaign draws one trigger (swarm testing's one-feature-per-run),
// how eagerly it fires and how often, from its seed; a quarter of the runs
// stay plain seeds.
//
// Contract:
//  - A trigger fires at most max_faults times in a run, each opportunity
//    with probability chance_pct / 100, drawn from the run's own stream.
//  - Every fault it injects is of a kind and size the scenario's profile
//    draws (draw_profile_fault, sim/profiles.h), on an existing client,
//    before the run's operations end: a focused run stays within its
//    profile, so `safe` stays safe. HoldToRenewal injects no fault: it
//    moves watchdog holds' ends to a renewal instant (the workload's
//    contract allows any watchdog hold).
//  - A focus is part of the scenario (the trace header's "focus"), so a
//    focused run replays from its seed; the faults it injected are in its
//    history and plan_from_history() turns them into plan actions.
//  - focus_reason() says in words why a run was drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/scenario_lock_kind.h"
#include "sim/fault_plan.h"
#include "sim/profiles.h"

namespace locksim {

enum class FocusTrigger : uint8_t {
  CrashContendedHolder,  // a waiter is refused: its lock's holder crashes
  PauseContendedHolder,  // a waiter is refused: its lock's holder is paused
  CrashAfterRenewal,     // a watchdog renewal went through: its client crashes
  PauseAcrossRenewal,    // a watchdog renewal went through: its client is paused across the next one
  CrashReleasing,        // a client starts a release: it crashes right after sending it
  CrashLineHead,         // a fair poll left its caller at the head of the line: it crashes
  PauseWaiter,           // a waiter is refused: it is paused (its wake-up may come meanwhile)
  JumpWaiterClock,       // a fair waiter is refused: its clock steps (its next now_ms moves)
  HoldToRenewal,         // a watchdog hold ends right at one of its renewals
};
inline constexpr int kFocusTriggerCount = 9;

// The workload of a focused run (swarm testing: each run concentrates on
// one kind of operation and, often, one lock). Any: the workload's own mix;
// WaitOnly: lock() and lock(lease) only (waiters that never give up);
// TryOnly: tryLock with a wait, and tryLock() (waiters that give up; a
// nested acquire is a tryLock() too);
// Nested: the workload's mix, re-entering four holds in five.
enum class OpMix : uint8_t { Any, WaitOnly, TryOnly, Nested };
inline constexpr int kOpMixCount = 4;

struct Focus {
  FocusTrigger trigger = FocusTrigger::CrashContendedHolder;
  int chance_pct = 100;  // 1..100: each opportunity fires with this probability
  int max_faults = 1;    // 1..kMaxFocusFaults: fires at most this often in a run
  OpMix mix = OpMix::Any;
  int only_lock = -1;    // >= 0: every operation on this lock (an index of the scenario's); -1: any lock
  bool operator==(const Focus&) const = default;
};
inline constexpr int kMaxFocusFaults = 8;

struct FocusError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

std::string_view focus_trigger_name(FocusTrigger t);  // "crash_contended_holder", ...
std::optional<FocusTrigger> focus_trigger_from_name(std::string_view name);
std::string_view op_mix_name(OpMix m);  // "any", "wait_only", "try_only", "nested"
std::optional<OpMix> op_mix_from_name(std::string_view name);
// The fault kind a trigger injects; nothing for HoldToRenewal.
std::optional<FaultKind> focus_fault_kind(FocusTrigger t);
// Whether a trigger can fire in a scenario of this profile and lock kind:
// the profile draws its fault kind, and a fair-line trigger needs fair locks.
bool focus_applies(FocusTrigger t, const Profile& profile, ScenarioLockKind lock_kind);

// The focus of a focused campaign's run `seed`: one applicable trigger,
// its chance and its count, an operation mix, and half the time one lock
// of the scenario's `locks` to put every operation on; or nothing (a plain
// run: a quarter of the runs, and every run of a profile no trigger
// applies to). Deterministic in (seed, profile, lock kind, locks).
std::optional<Focus> draw_focus(uint64_t seed, const Profile& profile, ScenarioLockKind lock_kind, int locks);

// Why the run was drawn, in words: "focus: when a waiter is refused, its
// lock's holder crashes (each time with probability 25%, at most 2 times)".
std::string focus_reason(const Focus& f);

// {"trigger": "crash_contended_holder", "chance_pct": 25, "max_faults": 2,
//  "mix": "wait_only", "only_lock": 1}; focus_from_json throws FocusError
// naming the field (only_lock is checked against the scenario's locks by
// validate_scenario).
nlohmann::json focus_to_json(const Focus& f);
Focus focus_from_json(const nlohmann::json& j);

}  // namespace locksim
