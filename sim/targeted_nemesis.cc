#include "sim/targeted_nemesis.h"

#include <algorithm>
#include <cassert>

#include "model/script_call.h"
#include "sim/world.h"
#include "sim/world_setup.h"

namespace locksim {

namespace {

bool holds(const Event& e, const std::string& owner) {
  return std::find(e.holders_after.begin(), e.holders_after.end(), owner) != e.holders_after.end();
}

bool is_acquire_script(std::optional<ScriptKind> k) {
  return k == ScriptKind::RlockAcquire || k == ScriptKind::FairAcquire;
}

}  // namespace

TargetedNemesis::TargetedNemesis(Focus focus, Profile profile, int64_t duration_us, int64_t renew_period_us, Rng rng,
                                 EventSink& next)
    : focus_(focus),
      profile_(std::move(profile)),
      duration_us_(duration_us),
      renew_period_us_(renew_period_us),
      rng_(rng),
      next_(next) {
  assert(renew_period_us_ > 0);
  assert(focus_.chance_pct >= 1 && focus_.chance_pct <= 100);
  assert(focus_.max_faults >= 1 && focus_.max_faults <= kMaxFocusFaults);
}

bool TargetedNemesis::refused_acquire(const Event& e) {
  return e.kind == EventKind::Script && is_acquire_script(script_from_name(e.script)) && !e.owner.empty() &&
         !holds(e, e.owner);
}

void TargetedNemesis::on_event(const Event& e) {
  next_.on_event(e);
  if (world_ == nullptr || fired_ >= focus_.max_faults) return;
  if (e.kind == EventKind::Invoke && e.client >= 0 && !e.owner.empty()) client_of_owner_[e.owner] = e.client;

  switch (focus_.trigger) {
    case FocusTrigger::CrashContendedHolder:
    case FocusTrigger::PauseContendedHolder: {
      if (!refused_acquire(e)) return;
      for (const std::string& holder : e.holders_after) {
        const auto c = client_of_owner_.find(holder);
        if (c == client_of_owner_.end() || c->second == e.client) continue;
        maybe_fire(c->second, e.true_us, 1'000, 2'000'000);
        return;
      }
      return;
    }
    case FocusTrigger::CrashAfterRenewal:
      if (e.kind == EventKind::Script && e.op == Op::Renew && e.client >= 0 && holds(e, e.owner))
        maybe_fire(e.client, e.true_us, 100, 500'000);
      return;
    case FocusTrigger::PauseAcrossRenewal:
      // The next renewal is due about a period after this one: the pause
      // starts up to 30 ms before it.
      if (e.kind == EventKind::Script && e.op == Op::Renew && e.client >= 0 && holds(e, e.owner))
        maybe_fire(e.client, e.true_us, renew_period_us_ - 30'000, renew_period_us_);
      return;
    case FocusTrigger::CrashReleasing:
      if (e.kind == EventKind::Invoke && e.op == Op::Unlock && e.client >= 0) maybe_fire(e.client, e.true_us, 1, 2'000);
      return;
    case FocusTrigger::CrashLineHead:
      if (refused_acquire(e) && script_from_name(e.script) == ScriptKind::FairAcquire && e.line_known &&
          !e.line_after.empty() && e.line_after.front().owner == e.owner && e.client >= 0)
        maybe_fire(e.client, e.true_us, 100, 1'000'000);
      return;
    case FocusTrigger::PauseWaiter:
      if (refused_acquire(e) && e.client >= 0) maybe_fire(e.client, e.true_us, 100, 5'000);
      return;
    case FocusTrigger::JumpWaiterClock:
      if (refused_acquire(e) && script_from_name(e.script) == ScriptKind::FairAcquire && e.client >= 0)
        maybe_fire(e.client, e.true_us, 100, 5'000);
      return;
    case FocusTrigger::HoldToRenewal:
      return;  // the workload's (sim/workload.h)
  }
}

void TargetedNemesis::maybe_fire(int client, int64_t now_us, int64_t delay_lo_us, int64_t delay_hi_us) {
  // The draws of an opportunity come from its instant and client: the same
  // history gives the same faults.
  Rng draw = rng_.split(static_cast<uint64_t>(now_us)).split(static_cast<uint64_t>(client));
  if (draw.uniform(1, 100) > focus_.chance_pct) return;
  const std::optional<FaultKind> kind = focus_fault_kind(focus_.trigger);
  assert(kind.has_value());
  std::optional<FaultAction> f = draw_profile_fault(profile_, *kind, draw);
  if (!f) return;
  f->target = client;
  f->at_us = now_us + draw.uniform(delay_lo_us, delay_hi_us);
  if (f->at_us >= duration_us_) return;
  ++fired_;
  world_->inject_fault(*f);
}

}  // namespace locksim
