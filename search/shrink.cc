#include "search/shrink.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/variant.h"
#include "properties/cause_search.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "sim/model_backend_source.h"
#include "sim/rng.h"
#include "traces/event_detail.h"

namespace locksim {

std::string violation_signature(const Violation& v) {
  const std::string& b = v.blamed_fault;
  std::string kind = "none";
  if (b.find("paused") != std::string::npos) kind = "pause";
  else if (b.find("partitioned") != std::string::npos) kind = "partition";
  else if (b.find("restarted") != std::string::npos) kind = "redis_restart";
  else if (b.find("clock") != std::string::npos) kind = "clock";
  else if (b.find("failed over") != std::string::npos) kind = "failover";
  else if (b.find("force-unlocked") != std::string::npos) kind = "force_unlock";
  else if (b.find("lost") != std::string::npos) kind = "lost_reply";
  else if (b.find("explicit") != std::string::npos) kind = "explicit_lease";
  else if (b.find("crashed") != std::string::npos) kind = "crash";
  return v.property + "/" + kind;
}

namespace {

// Whether counterexample `a` is better than `b`: fewer violations of other
// properties, then fewer events.
bool better_than(const Counterexample& a, const Counterexample& b) {
  if (a.other_violations != b.other_violations) return a.other_violations < b.other_violations;
  return a.events.size() < b.events.size();
}

// A hold's name in Counterexample::overrun_holds: "owner|lock".
std::string hold_name(const std::string& owner, const std::string& lock) { return owner + "|" + lock; }

// Holds with an explicit lease that a run keeps past what the workload
// does (sim/workload.cc), as "owner|lock", sorted: after an acquire with a
// lease succeeds, the owner's operations are on that lock (re-entries,
// releases) until it holds it no more, within half the lease of its latest
// leased grant. Named: a leased hold whose owner invokes an operation on
// another lock while it still holds it, or one on this lock later than
// that, or that is never fully released. A release that leaves a
// re-entered hold held is no release. Excused: a hold whose client crashed,
// paused, or lost a message on its lock while its owner had an operation on
// it in flight, before its deadline (the request timeout, a pause, defer
// the workload's release; they do not excuse a hold never released), and a hold granted at or after event `detected`
// (the violation's detection: it cannot have made the violation).
std::vector<std::string> leased_holds_overrun(const std::vector<Event>& history, uint64_t detected) {
  struct Hold {
    int depth = 0;
    int64_t until_us = -1;  // half the lease after its latest leased grant; -1: no deadline
    bool leased = false;    // its latest grant (before `detected`) had an explicit lease
  };
  std::map<std::tuple<int, std::string, std::string>, Hold> holds;  // (client, owner, lock)
  std::map<uint64_t, std::tuple<int, std::string, std::string>> in_flight;  // op_id -> its (client, owner, lock)
  std::set<std::string> overrun;
  auto name = [](const std::tuple<int, std::string, std::string>& key) {
    return hold_name(std::get<1>(key), std::get<2>(key));
  };
  for (const Event& e : history) {
    if (e.client < 0) continue;
    if (e.kind == EventKind::Fault && (e.op == Op::Crash || e.op == Op::Pause || e.op == Op::Lost)) {
      // A crash or pause of the client, or a message on the hold's lock
      // lost while its owner had an operation on it in flight (it waits out
      // the request timeout), before the deadline passed.
      auto waiting = [&](const std::tuple<int, std::string, std::string>& key) {
        return std::any_of(in_flight.begin(), in_flight.end(), [&](const auto& f) { return f.second == key; });
      };
      for (auto it = holds.begin(); it != holds.end();) {
        Hold& h = it->second;
        if (std::get<0>(it->first) != e.client ||
            (e.op == Op::Lost && (std::get<2>(it->first) != e.lock || !waiting(it->first)))) {
          ++it;
          continue;
        }
        if (h.until_us >= 0 && e.true_us > h.until_us) overrun.insert(name(it->first));
        h.until_us = -1;
        if (e.op == Op::Crash) it = holds.erase(it);
        else ++it;
      }
    } else if (e.kind == EventKind::Invoke) {
      if (e.op_id != 0) in_flight[e.op_id] = {e.client, e.owner, e.lock};
      for (auto& [key, h] : holds) {
        if (std::get<0>(key) != e.client || std::get<1>(key) != e.owner || h.until_us < 0) continue;
        if (e.lock != std::get<2>(key) || e.true_us > h.until_us) {
          overrun.insert(name(key));
          h.until_us = -1;
        }
      }
      if (e.op == Op::Unlock) {
        auto it = holds.find({e.client, e.owner, e.lock});
        if (it != holds.end() && --it->second.depth <= 0) holds.erase(it);
      }
    }
    if ((e.kind == EventKind::Ok || e.kind == EventKind::Fail || e.kind == EventKind::Info) && e.op_id != 0)
      in_flight.erase(e.op_id);
    if (e.kind == EventKind::Ok && (e.op == Op::Lock || e.op == Op::TryLock) && e.value == 1) {
      Hold& h = holds[{e.client, e.owner, e.lock}];
      h.depth++;
      h.leased = e.lease_ms > 0 && e.id < detected;
      if (h.leased) h.until_us = e.true_us + e.lease_ms * 500;
    }
  }
  // Never released: the workload releases a hold after any pause or timeout.
  for (const auto& [key, h] : holds)
    if (h.until_us >= 0 || h.leased) overrun.insert(name(key));
  return {overrun.begin(), overrun.end()};
}

// Whether one of the violation's own holds (on its lock, of its owners) is
// among `overrun` (sorted). Such a violation is of the plan's own making (its
// workload kept that hold past half its lease, no fault to excuse it): a
// plan rebuilt from a history, or a shrink step, can do that where the
// original run did not, and no fault explains what it then shows.
bool own_hold_overruns(const std::vector<std::string>& overrun, const Violation& v) {
  return std::any_of(v.owners.begin(), v.owners.end(), [&](const std::string& owner) {
    return std::binary_search(overrun.begin(), overrun.end(), hold_name(owner, v.lock));
  });
}

}  // namespace

std::optional<Counterexample> first_violation(const ExplicitPlan& plan, const CheckConfig& config,
                                              const std::function<bool(const Violation&)>& accept,
                                              BackendSource* source) {
  SourceOrModel backends(source);  // the model: the scenario's model_variant
  Backend& backend = backends.fresh(plan.scenario);
  CheckerSuite suite(config_for_scenario(config, plan.scenario));
  VectorSink history;
  FanoutSink fanout;
  fanout.add(&suite);
  fanout.add(&history);
  const RunSummary summary = run_explicit(plan, backend, fanout);
  suite.finish(summary.end_true_us);
  const std::vector<Violation>& found = suite.violations();
  for (const Violation& v : found) {
    if (!accept(v)) continue;
    std::vector<std::string> overrun = leased_holds_overrun(history.events, v.detected_at_event);
    if (own_hold_overruns(overrun, v)) continue;  // of the plan's own making
    Counterexample cx;
    cx.trace_events = history.events.size();
    cx.overrun_holds = std::move(overrun);
    cx.leased_holds_overrun = cx.overrun_holds.size();
    std::set<std::string> others;
    for (const Violation& o : found) {
      if (o.property == v.property || is_advisory_property(o.property)) continue;
      ++cx.other_violations;
      others.insert(o.property);
    }
    cx.other_properties.assign(others.begin(), others.end());
    const size_t end = std::min<size_t>(history.events.size(), v.detected_at_event + 1);
    cx.events.assign(history.events.begin(), history.events.begin() + static_cast<std::ptrdiff_t>(end));
    cx.violation = v;
    cx.plan = plan;  // the plan whose run shows it: a replayable trace (sim/explicit_plan_json.h)
    return cx;
  }
  return std::nullopt;
}

std::optional<Counterexample> check_plan(const ExplicitPlan& plan, const CheckConfig& config,
                                         const std::string& signature, BackendSource* source) {
  return first_violation(
      plan, config,
      [&signature](const Violation& v) { return signature.empty() || violation_signature(v) == signature; },
      source);
}

namespace {

// When each task's operations started and completed, and each client
// incarnation, in a history (the shrinker's best counterexample): keyed
// like plan tasks; the n-th invoke of a task is its plan's n-th operation.
struct OpTimes {
  using TaskKey = std::tuple<int, int, int>;  // client, incarnation, task
  std::map<TaskKey, std::vector<int64_t>> invoke_us;
  std::map<TaskKey, std::vector<int64_t>> complete_us;  // -1: not completed in the history
  std::map<std::pair<int, int>, int64_t> incarnation_start_us;  // (client, incarnation) -> start

  int64_t incarnation_start(int client, int incarnation) const {
    auto it = incarnation_start_us.find({client, incarnation});
    return it == incarnation_start_us.end() ? 0 : it->second;
  }
};

OpTimes op_times(const std::vector<Event>& history) {
  OpTimes out;
  std::map<int, int> incarnation;
  // (client, op_id) -> where its completion goes
  std::map<std::pair<int, uint64_t>, std::pair<OpTimes::TaskKey, size_t>> open;
  for (const Event& e : history) {
    if (e.kind == EventKind::Fault && e.op == Op::Restart && e.client >= 0) {
      out.incarnation_start_us[{e.client, ++incarnation[e.client]}] = e.true_us;
      continue;
    }
    if ((e.kind == EventKind::Ok || e.kind == EventKind::Fail || e.kind == EventKind::Info) && e.client >= 0) {
      auto it = open.find({e.client, e.op_id});
      if (it == open.end()) continue;
      out.complete_us[it->second.first][it->second.second] = e.true_us;
      open.erase(it);
      continue;
    }
    if (e.kind != EventKind::Invoke || e.client < 0) continue;
    const std::optional<int> task = e.owner.task();
    if (!task) continue;
    const OpTimes::TaskKey key{e.client, incarnation[e.client], *task};
    out.invoke_us[key].push_back(e.true_us);
    out.complete_us[key].push_back(-1);
    if (e.op_id != 0) open[{e.client, e.op_id}] = {key, out.invoke_us[key].size() - 1};
  }
  return out;
}

// `t` with only the operations `keep` marks, each kept one starting when it
// started in the history `times` describes where that is known: its delay
// then counts from the completion of the kept operation before it (or its
// incarnation's start). Where it is not known (the operation, or the one
// before it, is past the history's end), the removed operations' delays
// are folded into it. False when nothing is removed.
bool keep_ops(ExplicitTask* t, const std::vector<bool>& keep, const OpTimes& times) {
  assert(keep.size() == t->ops.size());
  if (std::all_of(keep.begin(), keep.end(), [](bool k) { return k; })) return false;
  const OpTimes::TaskKey key{t->client, t->incarnation, t->task};
  auto times_of = [&key](const std::map<OpTimes::TaskKey, std::vector<int64_t>>& m) {
    auto it = m.find(key);
    return it == m.end() ? std::vector<int64_t>() : it->second;
  };
  const std::vector<int64_t> invoke_us = times_of(times.invoke_us);
  const std::vector<int64_t> complete_us = times_of(times.complete_us);
  auto known = [](const std::vector<int64_t>& at_us, size_t k) { return k < at_us.size() && at_us[k] >= 0; };
  std::vector<ExplicitOp> kept;
  int64_t removed_delay_us = 0;
  bool removed_before = false;
  std::optional<size_t> prev;  // the last kept operation
  for (size_t k = 0; k < t->ops.size(); ++k) {
    if (!keep[k]) {
      removed_delay_us += t->ops[k].delay_us;
      removed_before = true;
      continue;
    }
    ExplicitOp op = t->ops[k];
    if (removed_before) {
      if (known(invoke_us, k) && (!prev || known(complete_us, *prev))) {
        const int64_t from_us = prev ? complete_us[*prev] : times.incarnation_start(t->client, t->incarnation);
        op.delay_us = std::max<int64_t>(0, invoke_us[k] - from_us);
      } else {
        op.delay_us += removed_delay_us;
      }
    }
    removed_delay_us = 0;
    removed_before = false;
    kept.push_back(op);
    prev = k;
  }
  t->ops = std::move(kept);
  return true;
}

class Shrinker {
 public:
  Shrinker(ExplicitPlan* plan, PlanProbe probe, Counterexample best, ShrinkObserver observer)
      : plan_(plan),
        probe_(std::move(probe)),
        best_(std::move(best)),
        observer_(std::move(observer)),
        overrun_holds_(best_.overrun_holds) {}

  // Keeps `candidate` if it still fails the same way (the probe says so)
  // without growing. With `strictly`, only a shorter counterexample is kept.
  // A candidate whose full run violates fewer other properties is kept
  // even when longer: the counterexample should show one thing.
  bool attempt(const ExplicitPlan& candidate, bool strictly = false) {
    if (runs_ >= cap_) return false;
    runs_++;
    auto cx = probe_(candidate);
    const bool kept = cx &&
                      std::includes(overrun_holds_.begin(), overrun_holds_.end(), cx->overrun_holds.begin(),
                                    cx->overrun_holds.end()) &&
                      better(*cx, strictly);
    if (kept) {
      *plan_ = candidate;
      best_ = std::move(*cx);
    }
    if (observer_) observer_(ShrinkProgress{0, best_.violation.property, best_.events.size(), runs_, kMaxShrinkRuns});
    return kept;
  }

  // Passes until one removes nothing and shortens nothing (halving delays
  // alone, which keeps succeeding, does not count as progress), within
  // kPassRuns runs. Then, for a counterexample of at most kWalkMaxEvents
  // events, the walk (kWalkRuns), and if it found a shorter one the passes
  // again (kAfterWalkRuns). A long counterexample (thousands of polls) is
  // not walked: each of its runs is costly, and the passes are what
  // shorten it.
  void run() {
    cap_ = kPassRuns;
    passes();
    if (best_.events.size() > kWalkMaxEvents) return;
    cap_ = runs_ + kWalkRuns;
    if (!walk()) return;
    cap_ = runs_ + kAfterWalkRuns;
    passes();
  }

  void passes() {
    bool progress = true;
    while (progress && runs_ < cap_) {
      const size_t events_before = best_.events.size();
      const size_t others_before = best_.other_violations;
      const size_t size_before = plan_size();
      drop_tasks();
      drop_other_locks();
      drop_faults();
      drop_losses();
      drop_before();
      drop_ops();
      shorten_delays();
      stretch_delays();
      advance_faults();
      progress = best_.events.size() < events_before || best_.other_violations < others_before ||
                 plan_size() < size_before;
    }
  }

  Counterexample best() const { return best_; }

 private:
  bool drop_tasks() {
    bool any = false;
    for (size_t i = plan_->tasks.size(); i-- > 0;) {
      ExplicitPlan c = *plan_;
      c.tasks.erase(c.tasks.begin() + static_cast<std::ptrdiff_t>(i));
      any |= attempt(c);
    }
    return any;
  }

  // Better than the best (better_than), or with `strictly` unset as good.
  bool better(const Counterexample& cx, bool strictly) const {
    return strictly ? better_than(cx, best_) : !better_than(best_, cx);
  }

  // Every operation on a lock other than the violation's, in all tasks at
  // once and then task by task, the kept operations starting when they
  // started (keep_ops): a counterexample on one lock.
  bool drop_other_locks() {
    const std::vector<LockSpec> locks = scenario_locks(plan_->scenario);
    const LockRef& lock = best_.violation.lock;
    std::optional<int> own;
    for (size_t i = 0; i < locks.size(); ++i)
      if (lock.is_or_member_of(locks[i].name)) own = static_cast<int>(i);
    if (!own || locks.size() < 2) return false;
    const OpTimes times = op_times(best_.events);
    auto without_others = [&](ExplicitTask* t) {
      std::vector<bool> keep;
      for (const ExplicitOp& op : t->ops) keep.push_back(op.lock == *own);
      return keep_ops(t, keep, times);
    };
    ExplicitPlan all = *plan_;
    bool dropped = false;
    for (ExplicitTask& t : all.tasks) dropped |= without_others(&t);
    if (!dropped) return false;
    std::erase_if(all.tasks, [](const ExplicitTask& t) { return t.ops.empty(); });
    if (attempt(all)) return true;
    bool any = false;
    for (size_t i = plan_->tasks.size(); i-- > 0;) {
      ExplicitPlan c = *plan_;
      if (!without_others(&c.tasks[i])) continue;
      if (c.tasks[i].ops.empty()) c.tasks.erase(c.tasks.begin() + static_cast<std::ptrdiff_t>(i));
      any |= attempt(c);
    }
    return any;
  }

  // The link losses a plan pins to their messages (sim/fault_plan.h
  // LossScript), halves first, then one by one: a dropped loss's message
  // gets through.
  bool drop_losses() {
    if (!plan_->faults.losses.lost) return false;
    bool any = false;
    for (size_t chunk = std::max<size_t>(plan_->faults.losses.lost->size() / 2, 1); chunk >= 1; chunk /= 2) {
      for (size_t start = 0; start < plan_->faults.losses.lost->size();) {
        ExplicitPlan c = *plan_;
        auto& lost = *c.faults.losses.lost;
        auto from = std::next(lost.begin(), static_cast<std::ptrdiff_t>(start));
        auto to = std::next(from, static_cast<std::ptrdiff_t>(std::min(chunk, lost.size() - start)));
        lost.erase(from, to);
        if (attempt(c)) any = true;
        else start += chunk;
      }
      if (chunk == 1) break;
    }
    return any;
  }

  bool drop_faults() {
    bool any = false;
    auto& actions = plan_->faults.actions;
    // Halves first, then single actions.
    for (size_t chunk = std::max<size_t>(actions.size() / 2, 1); chunk >= 1; chunk /= 2) {
      for (size_t start = 0; start < plan_->faults.actions.size();) {
        ExplicitPlan c = *plan_;
        auto& a = c.faults.actions;
        const size_t end = std::min(a.size(), start + chunk);
        a.erase(a.begin() + static_cast<std::ptrdiff_t>(start), a.begin() + static_cast<std::ptrdiff_t>(end));
        if (attempt(c)) any = true;
        else start += chunk;
      }
      if (chunk == 1) break;
    }
    return any;
  }

  // Every task's operations that started before a time T, all at once,
  // each task's first remaining operation keeping its start time. Dropping
  // one task's early operations alone moves its later ones earlier (their
  // delays count from completions, and a removed wait took time), so two
  // tasks that met at some time no longer meet; cutting every task at one
  // time keeps the meeting. T runs over the start times in the best
  // counterexample, latest first (the biggest cut).
  bool drop_before() {
    const OpTimes times = op_times(best_.events);
    std::set<int64_t> cuts;
    for (const auto& [key, starts] : times.invoke_us) cuts.insert(starts.begin(), starts.end());
    bool any = false;
    for (auto cut = cuts.rbegin(); cut != cuts.rend(); ++cut) {
      ExplicitPlan c = *plan_;
      bool dropped = false;
      for (ExplicitTask& t : c.tasks) {
        auto it = times.invoke_us.find({t.client, t.incarnation, t.task});
        if (it == times.invoke_us.end()) continue;
        const std::vector<int64_t>& starts = it->second;
        size_t n = 0;
        while (n < starts.size() && n < t.ops.size() && starts[n] < *cut) ++n;
        if (n == 0) continue;
        dropped = true;
        t.ops.erase(t.ops.begin(), t.ops.begin() + static_cast<std::ptrdiff_t>(n));
        if (!t.ops.empty() && n < starts.size()) {
          auto inc = times.incarnation_start_us.find({t.client, t.incarnation});
          const int64_t from_us = inc == times.incarnation_start_us.end() ? 0 : inc->second;
          t.ops.front().delay_us = std::max<int64_t>(0, starts[n] - from_us);
        }
      }
      if (!dropped) continue;
      std::erase_if(c.tasks, [](const ExplicitTask& t) { return t.ops.empty(); });
      if (attempt(c)) {
        any = true;
        break;  // the times changed with the plan
      }
    }
    return any;
  }

  // Chunks of a task's operations, halves first: each removal tried with
  // the kept operations starting when they started (keep_ops), then with
  // the removed delays folded into the next one (and the removed tryLock
  // waits: a plan that moved on no longer has those times).
  bool drop_ops() {
    bool any = false;
    OpTimes times = op_times(best_.events);  // of the best history: again only when it changes
    for (size_t t = 0; t < plan_->tasks.size(); ++t) {
      for (size_t chunk = std::max<size_t>(plan_->tasks[t].ops.size() / 2, 1); chunk >= 1; chunk /= 2) {
        for (size_t start = 0; start < plan_->tasks[t].ops.size();) {
          {
            ExplicitPlan timed = *plan_;
            std::vector<bool> keep(timed.tasks[t].ops.size(), true);
            for (size_t k = start; k < std::min(keep.size(), start + chunk); ++k) keep[k] = false;
            keep_ops(&timed.tasks[t], keep, times);
            if (attempt(timed)) {
              any = true;
              times = op_times(best_.events);
              continue;
            }
          }
          ExplicitPlan c = *plan_;
          auto& ops = c.tasks[t].ops;
          const size_t end = std::min(ops.size(), start + chunk);
          // Keep the first surviving op's start time: fold the removed delays into it.
          int64_t removed_delay_us = 0;
          for (size_t k = start; k < end; ++k) removed_delay_us += ops[k].delay_us;
          ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(start), ops.begin() + static_cast<std::ptrdiff_t>(end));
          // A removed tryLock that gave up took about its wait: a second try
          // folds that in too, so that later operations keep their timing.
          int64_t removed_wait_us = 0;
          for (size_t k = start; k < end; ++k)
            if (plan_->tasks[t].ops[k].kind == ExplicitOp::Kind::TryLock)
              removed_wait_us += std::max<int64_t>(plan_->tasks[t].ops[k].wait_ms, 0) * 1000;
          if (start < ops.size()) ops[start].delay_us += removed_delay_us;
          bool kept = attempt(c);
          if (!kept && removed_wait_us > 0 && start < ops.size()) {
            c.tasks[t].ops[start].delay_us += removed_wait_us;
            kept = attempt(c);
          }
          if (kept) {
            any = true;
            times = op_times(best_.events);
          } else {
            start += chunk;
          }
        }
        if (chunk == 1) break;
      }
    }
    return any;
  }

  bool shorten_delays() {
    bool any = false;
    for (size_t t = 0; t < plan_->tasks.size(); ++t) {
      for (size_t k = 0; k < plan_->tasks[t].ops.size(); ++k) {
        if (plan_->tasks[t].ops[k].delay_us < 2000) continue;
        ExplicitPlan c = *plan_;
        c.tasks[t].ops[k].delay_us /= 2;
        any |= attempt(c);
      }
    }
    return any;
  }

  // Waiting longer can shorten the history: a waiter that busy-polls until
  // some slot ends, or a violation detected only after a timeout, shows up
  // sooner (in events) when its operation starts later. Kept only when the
  // counterexample gets strictly shorter; delays stay below kMaxStretchUs.
  bool stretch_delays() {
    constexpr int64_t kMaxStretchUs = 60'000'000;
    bool any = false;
    for (size_t t = 0; t < plan_->tasks.size(); ++t) {
      for (size_t k = 0; k < plan_->tasks[t].ops.size(); ++k) {
        const int64_t d_us = plan_->tasks[t].ops[k].delay_us;
        const int64_t longer_us = std::max<int64_t>(2 * d_us, d_us + 1'000'000);
        if (longer_us > kMaxStretchUs) continue;
        ExplicitPlan c = *plan_;
        c.tasks[t].ops[k].delay_us = longer_us;
        any |= attempt(c, /*strictly=*/true);
      }
    }
    return any;
  }

  // A walk across plans no longer than the best. The passes keep only
  // changes that do not lengthen the counterexample, one at a time, and a
  // shorter plan may lie behind several changes of which none alone
  // shortens it (a waiter that re-polls behind a line needs another wait,
  // another start and another lease before its polls go). Each step makes
  // one random change to the best plan: an operation dropped, a delay
  // scaled, an acquire made a tryLock with another wait or a lock(), its
  // lease changed (keeping its kind, watchdog or explicit, when the blamed
  // fault is measured against a lease), a task's start moved by up to half a second, a pinned
  // loss dropped; and keeps it when attempt() does (as short counts, so
  // the walk crosses plateaus; within the workload's envelope). The
  // generator is seeded from the scenario's seed: the same plan walks the
  // same way. At most kWalkSteps steps, and the stage's run cap. Returns whether
  // the counterexample got shorter (or shows fewer other violations).
  bool walk() {
    static constexpr int kWalkSteps = 2 * kWalkRuns;  // steps that change nothing run nothing
    static constexpr double kScales[] = {0.25, 0.5, 0.8, 1.25, 2, 4};
    static constexpr int64_t kWaitsMs[] = {0, 50, 200, 500, 1'000, 2'000, 3'000, 5'000};
    static constexpr int64_t kLeasesMs[] = {-1, 1'000, 2'000, 5'000, 10'000};
    constexpr int64_t kMaxDelayUs = 60'000'000;
    const size_t events_before = best_.events.size();
    const size_t others_before = best_.other_violations;
    const bool keep_lease_kind = best_.violation.blamed_fault.find("lease") != std::string::npos;
    Rng rng(plan_->scenario.seed ^ 0x5348524b57414c4bULL);  // "SHRKWALK"
    for (int step = 0; step < kWalkSteps && runs_ < cap_ && !plan_->tasks.empty(); ++step) {
      ExplicitPlan c = *plan_;
      auto& lost = c.faults.losses.lost;
      if (lost && !lost->empty() && rng.below(100) < 8) {
        lost->erase(std::next(lost->begin(), static_cast<std::ptrdiff_t>(rng.below(lost->size()))));
        attempt(c);
        continue;
      }
      const size_t t = rng.below(c.tasks.size());
      std::vector<ExplicitOp>& ops = c.tasks[t].ops;
      if (ops.empty()) continue;
      const size_t k = rng.below(ops.size());
      ExplicitOp& op = ops[k];
      const bool acquire = op.kind == ExplicitOp::Kind::Lock || op.kind == ExplicitOp::Kind::TryLock;
      const uint64_t what = rng.below(100);
      if (what < 25) {
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(k));
        if (ops.empty()) c.tasks.erase(c.tasks.begin() + static_cast<std::ptrdiff_t>(t));
      } else if (what < 50) {
        const double scaled = static_cast<double>(op.delay_us) * kScales[rng.below(std::size(kScales))];
        op.delay_us = std::min<int64_t>(static_cast<int64_t>(scaled), kMaxDelayUs);
      } else if (what < 70) {
        if (!acquire) continue;
        op.kind = ExplicitOp::Kind::TryLock;
        op.wait_ms = kWaitsMs[rng.below(std::size(kWaitsMs))];
      } else if (what < 80) {
        if (!acquire) continue;
        op.kind = ExplicitOp::Kind::Lock;
        op.wait_ms = -1;
      } else if (what < 90) {
        // Another lease. When the blamed fault is measured against a lease
        // ("paused 34 s > lease 30 000 ms"), a hold keeps its kind of lease:
        // a pause longer than the watchdog's lease is the finding, not one
        // longer than some short lease.
        if (!acquire) continue;
        const int64_t lease_ms = kLeasesMs[rng.below(std::size(kLeasesMs))];
        if (keep_lease_kind && (lease_ms < 0) != (op.lease_ms < 0)) continue;
        op.lease_ms = lease_ms;
      } else {
        const int64_t shift_us = static_cast<int64_t>(rng.below(1'000'001)) - 500'000;
        ops.front().delay_us = std::clamp<int64_t>(ops.front().delay_us + shift_us, 0, kMaxDelayUs);
      }
      attempt(c);
    }
    return best_.events.size() < events_before || best_.other_violations < others_before;
  }

  // A fault that strikes earlier can shorten the history (fewer events
  // before the loss it causes): each fault is tried at 1/2, 1/4, ... of its
  // time, the first kept only when the counterexample gets strictly shorter.
  bool advance_faults() {
    bool any = false;
    for (size_t i = 0; i < plan_->faults.actions.size(); ++i) {
      const FaultAction f = plan_->faults.actions[i];
      // At 1/2, 1/4, 1/8 ... of its time, the first that helps.
      for (int64_t at_us = f.at_us / 2; at_us >= 1000; at_us /= 2) {
        ExplicitPlan c = *plan_;
        c.faults.actions[i].at_us = at_us;
        std::stable_sort(c.faults.actions.begin(), c.faults.actions.end(),
                         [](const FaultAction& a, const FaultAction& b) { return a.at_us < b.at_us; });
        if (attempt(c, /*strictly=*/true)) {
          any = true;
          break;
        }
      }
    }
    return any;
  }

  size_t plan_size() const {
    size_t n = plan_->tasks.size() + plan_->faults.actions.size();
    for (const ExplicitTask& t : plan_->tasks) n += t.ops.size();
    return n;
  }

  int cap_ = 0;  // the current stage's bound on runs_ (run(); in all at most kMaxShrinkRuns)
  ExplicitPlan* plan_;
  PlanProbe probe_;
  Counterexample best_;
  ShrinkObserver observer_;
  std::vector<std::string> overrun_holds_;  // the first counterexample's holds overrun: none may add one
  int runs_ = 0;
};

}  // namespace

void explain_counterexample(Counterexample* cx, const CheckConfig& config, BackendSource* source, int max_reruns) {
  if (!cx->plan) return;
  SourceOrModel backends(source);  // the model: the scenario's model_variant
  Backend& backend = backends.fresh(cx->plan->scenario);
  CheckerSuite suite(config_for_scenario(config, cx->plan->scenario));
  VectorSink history;
  FanoutSink fanout;
  fanout.add(&suite);
  fanout.add(&history);
  const RunSummary summary = run_explicit(*cx->plan, backend, fanout);
  suite.finish(summary.end_true_us);
  std::vector<Violation> found = suite.violations();
  const Violation& want = cx->violation;
  auto same = [&want](const Violation& v) {
    return v.property == want.property && v.lock == want.lock && v.event_ids == want.event_ids &&
           v.detected_at_event == want.detected_at_event;
  };
  explain_violations(&found, *cx->plan, history.events, config, source, max_reruns, same);
  for (const Violation& v : found)
    if (same(v)) cx->violation.cause = v.cause;
}

ExplicitPlan baseline_plan(const ExplicitPlan& plan) {
  ExplicitPlan b = plan;
  b.scenario.mutant = ClientMutant::None;
  b.scenario.model_variant = ModelVariant::Correct;
  return b;
}

Counterexample shrink_with(ExplicitPlan* plan, const PlanProbe& probe, const ShrinkObserver& observer) {
  auto first = probe(*plan);
  if (!first) return Counterexample{};
  Shrinker shrinker(plan, probe, std::move(*first), observer);
  shrinker.run();
  return shrinker.best();
}

Counterexample shrink_plan(ExplicitPlan* plan, const CheckConfig& config, const std::string& signature,
                           bool blame_mutant, BackendSource* source, const ShrinkObserver& observer) {
  const PlanProbe probe = [&](const ExplicitPlan& candidate) -> std::optional<Counterexample> {
    auto cx = check_plan(candidate, config, signature, source);
    // With blame_mutant the correct implementation must not fail that way.
    if (cx && blame_mutant && check_plan(baseline_plan(candidate), config, signature)) return std::nullopt;
    return cx;
  };
  // A link that loses messages at random: the plan shrinks twice, its
  // losses drawn by the link (a dropped operation moves the later losses of
  // its client onto other messages) and pinned to their messages
  // (pin_losses), and the better counterexample wins (fewer other
  // violations, then fewer events; the drawn one on a tie). Neither way is
  // better for every failure.
  const bool both = !plan->schedule && !plan->faults.losses.lost && plan->faults.link.loss_prob > 0;
  ExplicitPlan pinned = *plan;
  const int max_tries = both ? 2 * kMaxShrinkRuns : kMaxShrinkRuns;
  size_t best_events = SIZE_MAX;
  int tries_before = 0;  // the first way's tries, when the second runs
  int tries = 0;
  const ShrinkObserver phase = [&](const ShrinkProgress& p) {
    best_events = std::min(best_events, p.best_events);
    tries = tries_before + p.tries;
    if (observer) observer(ShrinkProgress{p.seed, p.property, best_events, tries, max_tries});
  };
  Counterexample drawn = shrink_with(plan, probe, phase);
  if (!both) return drawn;
  tries_before = tries;
  pin_losses(&pinned, source);
  Counterexample by_message = shrink_with(&pinned, probe, phase);
  const bool pinned_better =
      !by_message.events.empty() && (drawn.events.empty() || better_than(by_message, drawn));
  if (!pinned_better) return drawn;
  *plan = std::move(pinned);
  return by_message;
}

void pin_losses(ExplicitPlan* plan, BackendSource* source) {
  if (plan->schedule || plan->faults.losses.lost) return;
  ExplicitPlan recording = *plan;
  recording.faults.losses.record = true;
  SourceOrModel backends(source);  // the model: the scenario's model_variant
  VectorSink history;
  run_explicit(recording, backends.fresh(plan->scenario), history);
  std::set<std::string> keys;
  for (const Event& e : history.events)
    if (e.kind == EventKind::Fault && e.op == Op::Lost && e.client >= 0)
      keys.insert(loss_key(e.client, detail_text(e), static_cast<uint64_t>(e.value)));  // the message as a loss key names it
  plan->faults.losses.lost = std::move(keys);
}

Counterexample shrink_scenario(const Scenario& scenario, const Violation& violation, const CheckConfig& config,
                               bool blame_mutant, BackendSource* source, const ShrinkObserver& observer) {
  VectorSink history;
  if (source != nullptr) {
    check_scenario_on(*source, scenario, config, &history);
  } else {
    check_scenario(scenario, config, &history);
  }
  const std::string signature = violation_signature(violation);
  ExplicitPlan plan = plan_from_history(scenario, history.events);
  if (check_plan(plan, config, signature, source) &&
      !(blame_mutant && check_plan(baseline_plan(plan), config, signature)))
    return shrink_plan(&plan, config, signature, blame_mutant, source, observer);
  // Not reproducible as an explicit plan: the original history up to the violation.
  Counterexample cx;
  const size_t end = std::min<size_t>(history.events.size(), violation.detected_at_event + 1);
  cx.events.assign(history.events.begin(), history.events.begin() + static_cast<std::ptrdiff_t>(end));
  cx.trace_events = history.events.size();
  cx.violation = violation;
  return cx;
}

}  // namespace locksim
