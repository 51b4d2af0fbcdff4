#include "properties/cause_search.h"

#include <algorithm>
#include <cassert>
#include <exception>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "redis/lua_scripting.h"
#include "model/variant.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "properties/event_facts.h"
#include "sim/model_backend_source.h"
#include "sim/simulator.h"
#include "traces/event_detail.h"
#include "traces/event_sink.h"

namespace locksim {

namespace {

using TaskKey = std::tuple<int, int, int>;  // client, incarnation, task

// Renames the tasks of a re-run plan back to the original plan's: a removed
// crash merges its restart's tasks into the process it no longer kills.
using TaskRename = std::map<TaskKey, TaskKey>;

// An operation: its task and its place among the task's operations.
struct OpRef {
  TaskKey task;
  int index = 0;
  auto operator<=>(const OpRef&) const = default;
};

// What an operation's Invoke asked for: two runs' tasks did the same when
// these are equal.
struct InvokedOp {
  Op op = Op::None;
  LockRef lock;
  int64_t wait_ms = -1;
  int64_t lease_ms = -1;
  bool once = false;
  std::string note;
  bool operator==(const InvokedOp&) const = default;
};

// What a history says about its operations, as it streams: each owner's
// task (client, incarnation, task; an explicit plan's re-run names them as
// the original plan does), what each task's operations invoked, in order,
// and the operation each event belongs to.
class RunOps final : public EventSink {
 public:
  explicit RunOps(const TaskRename* rename = nullptr) : rename_(rename) {}
  void on_event(const Event& e) override {
    event_op_.push_back(e.op_id);
    if (e.kind == EventKind::Fault && e.op == Op::Restart && e.client >= 0) {
      incarnation_[e.client]++;
      return;
    }
    if (e.kind != EventKind::Invoke || e.client < 0 || e.owner.empty()) return;
    auto known = keys_.find(e.owner);
    if (known == keys_.end()) {
      const std::optional<int> task = e.owner.task();
      if (!task) return;
      TaskKey key{e.client, incarnation_[e.client], *task};
      if (rename_ != nullptr) {
        auto it = rename_->find(key);
        if (it != rename_->end()) key = it->second;
      }
      known = keys_.emplace(e.owner, key).first;
    }
    std::vector<InvokedOp>& ops = ops_[known->second];
    if (e.op_id != 0) op_ids_[e.op_id] = OpRef{known->second, static_cast<int>(ops.size())};
    ops.push_back(InvokedOp{e.op, e.lock, e.wait_ms, e.lease_ms, e.once, e.detail});
  }
  std::optional<TaskKey> key_of(const std::string& owner) const {
    auto it = keys_.find(owner);
    if (it == keys_.end()) return std::nullopt;
    return it->second;
  }
  // The operations of v's owners its evidence events belong to, sorted.
  std::vector<OpRef> evidence_ops(const Violation& v) const {
    std::set<TaskKey> owners;
    for (const std::string& o : v.owners)
      if (auto k = key_of(o)) owners.insert(*k);
    std::set<OpRef> out;
    for (uint64_t id : v.event_ids) {
      if (id >= event_op_.size() || event_op_[id] == 0) continue;
      auto it = op_ids_.find(event_op_[id]);
      if (it != op_ids_.end() && owners.count(it->second.task)) out.insert(it->second);
    }
    return {out.begin(), out.end()};
  }
  const std::map<TaskKey, std::vector<InvokedOp>>& ops() const { return ops_; }
  std::map<TaskKey, std::vector<InvokedOp>> take_ops() { return std::move(ops_); }

 private:
  const TaskRename* rename_;
  std::map<int, int> incarnation_;
  std::map<std::string, TaskKey> keys_;
  std::map<TaskKey, std::vector<InvokedOp>> ops_;  // per task: what each operation invoked
  std::map<uint64_t, OpRef> op_ids_;                 // op_id -> operation
  std::vector<uint64_t> event_op_;                   // event id -> op_id (0: none)
};

// A violation as the cause search compares them across runs.
struct Seen {
  std::string head;            // property and lock
  std::vector<TaskKey> owners; // in the violation's order (roles: the holder, then the acquirer); unseen: none
  std::vector<OpRef> ops;      // the owners' operations its evidence cites
  int64_t from_us = 0;         // its evidence's time span
  int64_t to_us = 0;
};

Seen seen_of(const Violation& v, const RunOps& ops) {
  Seen s;
  s.head = v.property + "|" + v.lock.name();
  for (const std::string& o : v.owners)
    if (auto k = ops.key_of(o)) s.owners.push_back(*k);
  s.ops = ops.evidence_ops(v);
  s.from_us = v.true_us.empty() ? INT64_MIN : *std::min_element(v.true_us.begin(), v.true_us.end());
  s.to_us = v.true_us.empty() ? INT64_MAX : *std::max_element(v.true_us.begin(), v.true_us.end());
  return s;
}

// A cause that needs no re-run: none permitted, or re-runs off.
std::optional<Cause> cause_without_reruns(const Violation& v, int max_reruns) {
  if (!v.scope.excusable()) return Cause{CauseStatus::NoScope, {}, 0, ""};
  if (max_reruns == 0) return Cause{CauseStatus::NotSearched, {}, 0, "re-runs are off"};
  return std::nullopt;
}

bool is_acquire(ExplicitOp::Kind k) {
  return k == ExplicitOp::Kind::Lock || k == ExplicitOp::Kind::TryLock || k == ExplicitOp::Kind::TryOnce;
}

}  // namespace

struct CauseSearch::Impl {
  // One removable fault of the plan.
  struct PlanFault {
    enum class How { Action, Loss, ClientClock, ServerClock, SlowLink };
    CauseFault fault;
    How how = How::Action;
    size_t action = 0;       // Action: index in plan.faults.actions
    std::string loss_key;    // Loss: its message (sim/fault_plan.h loss_key)
    int64_t ends_us = 0;     // when its effect ends (pause/partition end, restart's down time)
    // Crash: the client's incarnation it ended, its Fault event, and the
    // restart that followed (-1: none).
    int incarnation = 0;
    int64_t restart_us = -1;
    int64_t steady_from_us = 0;  // SlowLink: its link takes its least latency from here
  };
  // One operation of a task in the history.
  struct OpRecord {
    uint64_t invoke_event = 0;
    int64_t invoke_us = 0;
    uint64_t done_event = UINT64_MAX;  // UINT64_MAX: not completed
    int64_t done_us = -1;
    bool acquired = false;
  };

  // The plan re-run: an explicit plan, or (generated) the scenario's own
  // workload under plan.faults (plan.tasks unused).
  ExplicitPlan plan;
  const bool generated;
  std::vector<PlanFault> inventory;
  std::map<TaskKey, std::vector<OpRecord>> ops;         // by original task
  std::map<std::pair<int, int>, int64_t> started_us;    // (client, incarnation) -> start
  std::vector<int64_t> event_us;                        // history event id -> true time
  RunOps owners;                                        // of the history
  SourceOrModel backends;  // the given source, else the model of the plan's variant

  const CheckConfig config;
  const int max_reruns;
  int runs = 0;
  // Removal (sorted inventory indexes) -> the violations its run shows, or
  // the error that stopped it.
  struct RunResult {
    std::vector<Seen> seen;                                // its violations
    std::map<TaskKey, std::vector<InvokedOp>> task_ops;  // what each task invoked
    std::string error;
  };
  std::map<std::vector<size_t>, RunResult> cache;

  std::set<std::string> lost_keys;  // every message the run lost (its losses pinned to messages)
  // The losses after the violation being explained was found: no re-run for
  // it loses those messages (a re-run that goes otherwise may send them
  // earlier, and a loss the violation did not need would then strike
  // before it).
  std::vector<size_t> late_losses;
  std::string not_reproduced;       // why the recorded run is not `history` ("" : it is)

  // Runs the plan once more recording its losses by message, which the
  // re-runs replay (LossScript); the faults are read from that run, which
  // must be `history` again (but for the ordinals the losses carry). A plan
  // with an explored schedule decides every message by the schedule: its
  // losses are the schedule's and stay (only its fault actions and clock
  // setups are removable).
  Impl(ExplicitPlan p, bool gen, const std::vector<Event>& history, const CheckConfig& c, BackendSource* s, int max)
      : plan(std::move(p)),
        generated(gen),
        backends(s, plan.scenario.model_variant),
        config(c),
        max_reruns(max) {
    assert(max_reruns >= 0);
    if (max_reruns == 0) return;
    if (plan.schedule) {
      read_history(history);
      return;
    }
    VectorSink recorded;
    RunResult& baseline = cache[{}];
    baseline = run_plan(plan, {}, /*record=*/true, &recorded);
    runs++;
    if (!baseline.error.empty()) {
      not_reproduced = "the run could not be recorded again: " + baseline.error;
      return;
    }
    if (!same_history(history, recorded.events)) {
      not_reproduced = "the run does not give the same history again";
      return;
    }
    read_history(recorded.events);
  }

  // Whether `b` is `a` but for the message ordinals the losses of `b` carry.
  static bool same_history(const std::vector<Event>& a, const std::vector<Event>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] == b[i]) continue;
      Event e = b[i];
      if (e.kind == EventKind::Fault && e.op == Op::Lost) e.value = a[i].value;
      if (!(e == a[i])) return false;
    }
    return true;
  }

  // Thrown inside a search when its re-runs reach the cap or one fails.
  struct Stop {
    std::string why;
  };

  // Runs (or finds in the cache) the plan without `removed`, losing exactly
  // the messages the run lost, but those removed.
  const RunResult& run(const std::vector<size_t>& removed) {
    auto it = cache.find(removed);
    if (it != cache.end()) return it->second;
    TaskRename rename;
    ExplicitPlan p = without(removed, &rename);
    RunResult result = run_plan(p, rename, /*record=*/false, nullptr);
    runs++;
    return cache.emplace(removed, std::move(result)).first->second;
  }

  // Runs `p` (its losses by message: recorded, or as without() set them).
  RunResult run_plan(ExplicitPlan p, const TaskRename& rename, bool record, EventSink* also,
                     std::vector<Violation>* violations = nullptr) {
    RunResult result;
    if (record) p.faults.losses.record = true;
    try {
      Backend& backend = backends.fresh(p.scenario);
      CheckerSuite suite(config_for_scenario(config, p.scenario));  // as check_scenario_on does
      RunOps keys(&rename);
      FanoutSink fanout;
      fanout.add(&suite);
      fanout.add(&keys);
      if (also != nullptr) fanout.add(also);
      RunSummary summary;
      if (generated) {
        Simulator sim(p.scenario, backend, fanout, p.faults);
        summary = sim.run();
      } else {
        summary = run_explicit(p, backend, fanout);
      }
      suite.finish(summary.end_true_us);
      for (const Violation& v : suite.violations()) result.seen.push_back(seen_of(v, keys));
      if (violations != nullptr) *violations = suite.violations();
      result.task_ops = keys.take_ops();
    } catch (const LuaScriptAbort&) {
      throw;  // the pack's Lua stopped the re-run (redis/lua_scripting.h): the caller's run stops too
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    return result;
  }

  // Whether the plan without `removed` still shows the violation `v`: a
  // violation of its property, on its lock, whose first owner is v's (named
  // by task, through expected_key), whatever operations it cites and whoever
  // else it names (the removal put the violation off, or had it take
  // another form; it did not remove it),
  //  - found from v's first evidence on (one wholly before v is another:
  //    until the first fault removed a re-run is the original run);
  //  - and before the first fault the property permits that struck after v
  //    was found (that fault, not removed, may make the same owner violate
  //    again: that is another violation).
  bool shows(std::vector<size_t> removed, const Violation& v, int* reruns) {
    if (*reruns >= max_reruns) throw Stop{"re-run cap of " + std::to_string(max_reruns) + " reached"};
    ++*reruns;
    removed.insert(removed.end(), late_losses.begin(), late_losses.end());
    std::sort(removed.begin(), removed.end());
    removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
    const RunResult& r = run(removed);
    if (!r.error.empty()) throw Stop{"a re-run could not complete: " + r.error};
    const Seen want = seen_of(v, owners);
    std::vector<TaskKey> owners_there;
    for (const TaskKey& k : want.owners) owners_there.push_back(expected_key(k, removed));
    bool same_ops = !want.ops.empty();
    std::vector<OpRef> ops_there;
    for (const OpRef& op : want.ops) {
      const TaskKey there = expected_key(op.task, removed);
      auto orig = owners.ops().find(op.task);
      auto rerun = r.task_ops.find(there);
      same_ops = same_ops && there == op.task && orig != owners.ops().end() && rerun != r.task_ops.end() &&
                 rerun->second.size() > static_cast<size_t>(op.index) &&
                 std::equal(orig->second.begin(), orig->second.begin() + op.index + 1, rerun->second.begin());
      ops_there.push_back(OpRef{there, op.index});
    }
    std::sort(ops_there.begin(), ops_there.end());
    // A fault the property permits that struck after v was found (and is
    // not removed) may make the same owners violate again: what is found
    // after it is another violation.
    int64_t horizon_us = INT64_MAX;
    for (size_t i = 0; i < inventory.size(); ++i) {
      const PlanFault& f = inventory[i];
      if (f.fault.event_id == 0 || f.fault.true_us <= want.to_us || f.fault.true_us >= horizon_us) continue;
      if (in_scope(f, v.scope, INT64_MAX) && !std::binary_search(removed.begin(), removed.end(), i))
        horizon_us = f.fault.true_us;
    }
    return std::any_of(r.seen.begin(), r.seen.end(), [&](const Seen& s) {
      if (s.head != want.head || s.to_us > horizon_us) return false;
      if (s.owners == owners_there && same_ops && s.ops == ops_there) return true;  // itself
      // Another violation of the property on the lock by the same first
      // owner (the one whose hold, wait or release is judged), whatever
      // operations it cites, found from v's start on: the removal put the
      // violation off or had it take another form, and did not remove it.
      const bool same_first = owners_there.empty() || (!s.owners.empty() && s.owners[0] == owners_there[0]);
      return same_first && s.to_us >= want.from_us;
    });
  }

  // How the re-run without `removed` names the original task `key`. An
  // explicit plan's re-run names its tasks as the original does. A generated
  // run without a crash has no restart: the incarnations after it count one
  // less, and the restart's tasks are the same tasks of the process that
  // was not killed (they run its workload on).
  TaskKey expected_key(const TaskKey& key, const std::vector<size_t>& removed) const {
    if (!generated) return key;
    const auto [c, inc, task] = key;
    int fewer = 0;
    for (size_t i : removed) {
      const PlanFault& f = inventory[i];
      if (f.fault.kind == FaultKind::Crash && f.fault.client == c && f.restart_us >= 0 && f.incarnation < inc) ++fewer;
    }
    return {c, inc - fewer, task};
  }

  // The order in which candidates are tried alone: the faults the checker's
  // sentence names (by event), then those of the violation's own clients,
  // then the rest; within each, the latest first.
  std::vector<size_t> ranked(const std::vector<size_t>& cands, const Violation& v) const {
    std::set<int> clients;
    for (const std::string& o : v.owners)
      if (auto k = owners.key_of(o)) clients.insert(std::get<0>(*k));
    auto rank = [&](size_t i) {
      const CauseFault& f = inventory[i].fault;
      const std::vector<uint64_t>& blamed = v.facts.blamed_fault_ids;
      if (f.event_id != 0 && std::find(blamed.begin(), blamed.end(), f.event_id) != blamed.end()) return 0;
      if (f.client >= 0 && clients.count(f.client)) return 1;
      return 2;
    };
    std::vector<size_t> out = cands;
    std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
      const int ra = rank(a), rb = rank(b);
      if (ra != rb) return ra < rb;
      return inventory[a].fault.true_us > inventory[b].fault.true_us;
    });
    return out;
  }

  int64_t found_us(const Violation& v) const {
    return v.detected_at_event < event_us.size() ? event_us[v.detected_at_event] : INT64_MAX;
  }

  void set_late_losses(int64_t at_us) {
    late_losses.clear();
    for (size_t i = 0; i < inventory.size(); ++i)
      if (inventory[i].how == PlanFault::How::Loss && inventory[i].fault.true_us > at_us) late_losses.push_back(i);
  }

  std::vector<Violation> violations_without(const Violation& v, const std::vector<CauseFault>& faults) {
    if (!not_reproduced.empty()) throw std::runtime_error(not_reproduced);
    set_late_losses(found_us(v));
    std::vector<size_t> removed = late_losses;
    for (const CauseFault& f : faults) {
      auto it = std::find_if(inventory.begin(), inventory.end(), [&](const PlanFault& p) { return p.fault == f; });
      if (it == inventory.end()) throw std::invalid_argument("violations_without: not a fault of this run: " + f.text());
      removed.push_back(static_cast<size_t>(it - inventory.begin()));
    }
    std::sort(removed.begin(), removed.end());
    removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
    TaskRename rename;
    std::vector<Violation> out;
    const RunResult r = run_plan(without(removed, &rename), rename, /*record=*/false, nullptr, &out);
    if (!r.error.empty()) throw std::runtime_error("the re-run could not complete: " + r.error);
    return out;
  }

  Cause explain(const Violation& v) {
    if (auto trivial = cause_without_reruns(v, max_reruns)) return *trivial;
    Cause cause;
    if (!not_reproduced.empty()) {
      cause.status = CauseStatus::Unconfirmed;
      cause.reruns = 1;
      cause.note = not_reproduced;
      return cause;
    }
    const int64_t at_us = found_us(v);
    set_late_losses(at_us);
    std::vector<size_t> cands;
    for (size_t i = 0; i < inventory.size(); ++i)
      if (in_scope(inventory[i], v.scope, at_us) && cites(v, inventory[i])) cands.push_back(i);
    std::vector<size_t> best;  // a removal that removes the violation
    try {
      if (!shows({}, v, &cause.reruns)) {
        cause.status = CauseStatus::Unconfirmed;
        cause.note = "the plan does not show the violation again";
        return cause;
      }
      // Alone first, the likeliest first: a smallest set is one fault when
      // one will do. (A re-run without many faults goes otherwise in many
      // ways: the same owners may violate again for another reason, or a
      // fault far from the violation may seem needed because without it
      // everything after it went otherwise.) A clock setup is tried alone
      // only when no fault that struck will do: without it the whole run
      // goes otherwise from its start.
      const std::vector<size_t> order = ranked(cands, v);
      for (bool setups : {false, true}) {
        int tried = 0;
        for (size_t i : order) {
          if (!best.empty()) break;
          if (is_setup(inventory[i]) != setups || tried++ >= kSingles) continue;
          if (!shows({i}, v, &cause.reruns)) best.push_back(i);
        }
      }
      if (best.empty()) {
        if (cands.size() <= 1 || shows(cands, v, &cause.reruns)) {
          cause.status = CauseStatus::Persists;
          return cause;
        }
        best = cands;  // the best so far, should the cap stop the search
        best = minimize(cands, v, &cause.reruns);
      }
      cause.status = CauseStatus::Confirmed;
    } catch (const Stop& stop) {
      cause.status = CauseStatus::Unconfirmed;
      cause.note = stop.why;
    }
    for (size_t i : best) cause.faults.push_back(inventory[i].fault);
    std::sort(cause.faults.begin(), cause.faults.end(),
              [](const CauseFault& a, const CauseFault& b) { return a.true_us < b.true_us; });
    return cause;
  }

  // Delta debugging: from a removal `set` that removes the violation, a
  // subset that still does, from which no single fault can be left out.
  std::vector<size_t> minimize(std::vector<size_t> set, const Violation& v, int* reruns) {
    size_t parts = 2;
    while (set.size() >= 2) {
      const size_t chunk = (set.size() + parts - 1) / parts;
      std::vector<std::vector<size_t>> chunks;
      for (size_t at = 0; at < set.size(); at += chunk)
        chunks.emplace_back(set.begin() + static_cast<std::ptrdiff_t>(at),
                            set.begin() + static_cast<std::ptrdiff_t>(std::min(set.size(), at + chunk)));
      bool reduced = false;
      for (const auto& c : chunks) {  // one chunk's removal is enough
        if (!shows(c, v, reruns)) {
          set = c;
          parts = 2;
          reduced = true;
          break;
        }
      }
      if (!reduced && chunks.size() > 2) {
        for (const auto& c : chunks) {  // the rest without this chunk is enough
          std::vector<size_t> rest;
          for (size_t i : set)
            if (std::find(c.begin(), c.end(), i) == c.end()) rest.push_back(i);
          if (!shows(rest, v, reruns)) {
            set = rest;
            parts = std::max<size_t>(parts - 1, 2);
            reduced = true;
            break;
          }
        }
      }
      if (reduced) continue;
      if (parts >= set.size()) break;
      parts = std::min(set.size(), parts * 2);
    }
    return set;
  }

  void read_history(const std::vector<Event>& history) {
    // The fault actions by time, to find the one each Fault event comes from.
    std::multimap<int64_t, size_t> action_at;
    for (size_t i = 0; i < plan.faults.actions.size(); ++i) action_at.emplace(plan.faults.actions[i].at_us, i);
    std::vector<bool> matched(plan.faults.actions.size(), false);
    auto find_action = [&](int64_t at_us, FaultKind kind, int target) -> std::optional<size_t> {
      auto [lo, hi] = action_at.equal_range(at_us);
      for (auto it = lo; it != hi; ++it) {
        const FaultAction& a = plan.faults.actions[it->second];
        if (!matched[it->second] && a.kind == kind && a.target == target) {
          matched[it->second] = true;
          return it->second;
        }
      }
      return std::nullopt;
    };
    std::map<int, int> incarnation;
    std::map<uint64_t, std::pair<TaskKey, size_t>> pending;  // op_id -> its record
    std::map<uint64_t, Taken> first_taken;                   // op_id -> its first acquire script that took a lease
    std::map<uint64_t, int64_t> invoked_us;                  // op_id -> its invoke
    std::map<int, size_t> open_crash;                        // client -> inventory index of its last crash
    event_us.reserve(history.size());
    for (const Event& e : history) {
      owners.on_event(e);
      if (e.id != event_us.size()) throw std::invalid_argument("cause search: history ids are not consecutive");
      event_us.push_back(e.true_us);
      if (e.kind == EventKind::Fault) {
        read_fault(e, find_action, incarnation, open_crash);
        continue;
      }
      if (e.kind == EventKind::Script && e.op_id != 0 && e.lease_ms > 0) {
        const EventFacts facts = facts_of(e);
        if (facts.acquire_suffix && facts.reply_nil) first_taken.emplace(e.op_id, Taken{e.true_us, e.lease_ms});
      }
      if (e.kind == EventKind::Ok && e.value == 1 && e.op_id != 0) {
        if (auto taken = first_taken.find(e.op_id); taken != first_taken.end())
          read_slow_link(e, taken->second, invoked_us[e.op_id]);
      }
      if (e.kind == EventKind::Invoke && e.op_id != 0) invoked_us.emplace(e.op_id, e.true_us);
      if (e.kind == EventKind::Invoke && e.client >= 0) {
        const std::optional<int> task = e.owner.task();
        const bool planned = e.op == Op::Lock || e.op == Op::TryLock || e.op == Op::Unlock || e.op == Op::ForceUnlock;
        if (!task || !planned) continue;
        const TaskKey key{e.client, incarnation[e.client], *task};
        auto& records = ops[key];
        records.push_back(OpRecord{e.id, e.true_us});
        pending[e.op_id] = {key, records.size() - 1};
        continue;
      }
      if ((e.kind == EventKind::Ok || e.kind == EventKind::Fail || e.kind == EventKind::Info) && e.op_id != 0 &&
          e.op != Op::AcquireFailed) {
        auto it = pending.find(e.op_id);
        if (it == pending.end()) continue;
        OpRecord& r = ops[it->second.first][it->second.second];
        r.done_event = e.id;
        r.done_us = e.true_us;
        r.acquired = e.kind == EventKind::Ok && e.value == 1;
        pending.erase(it);
      }
    }
    // Clock setups.
    for (size_t c = 0; c < plan.faults.client_clocks.size(); ++c) {
      const ClockSetup& k = plan.faults.client_clocks[c];
      if (k.offset_us == 0 && k.drift_ppm == 0) continue;
      PlanFault f;
      f.how = PlanFault::How::ClientClock;
      f.fault.kind = FaultKind::ClientClockSkew;
      f.fault.client = static_cast<int>(c);
      f.fault.duration_ms = k.offset_us / 1000;
      f.fault.drift_ppm = k.drift_ppm;
      f.ends_us = INT64_MAX;
      inventory.push_back(f);
    }
    for (size_t s = 0; s < plan.faults.server_clocks.size(); ++s) {
      const ClockSetup& k = plan.faults.server_clocks[s];
      if (k.offset_us == 0 && k.drift_ppm == 0) continue;
      PlanFault f;
      f.how = PlanFault::How::ServerClock;
      f.fault.kind = FaultKind::ServerClockDrift;
      f.fault.server = static_cast<int>(s);
      f.fault.duration_ms = k.offset_us / 1000;
      f.fault.drift_ppm = k.drift_ppm;
      f.ends_us = INT64_MAX;
      inventory.push_back(f);
    }
  }

  // An acquire script that took a lease: when, and for how long.
  struct Taken {
    int64_t true_us = 0;
    int64_t lease_ms = 0;
  };

  // A slow link: the acquire `ok` (invoked at invoke_us) was answered
  // "held" longer after its first script `taken` took a lease than that
  // lease ran (lock-semantics.md
  // 5: "delays longer than the lease"). Removed, the client's link takes its
  // least latency from the operation's invoke on. Not on a link of one
  // latency (a schedule's, or a profile without delays).
  void read_slow_link(const Event& ok, const Taken& taken, int64_t invoke_us) {
    const LinkProfile& link = plan.faults.link;
    if (plan.schedule || (link.latency_max_us <= link.latency_min_us && link.tail_prob <= 0)) return;
    const int64_t late_us = ok.true_us - taken.true_us;
    if (late_us <= taken.lease_ms * 1000) return;
    PlanFault f;
    f.how = PlanFault::How::SlowLink;
    f.fault.kind = FaultKind::SlowLink;
    f.fault.event_id = ok.id;
    f.fault.true_us = ok.true_us;
    f.fault.client = ok.client;
    f.fault.duration_ms = late_us / 1000;
    f.fault.lease_ms = taken.lease_ms;
    f.fault.op = ok.op;
    f.fault.lock = ok.lock;
    f.ends_us = ok.true_us;
    f.steady_from_us = invoke_us;
    inventory.push_back(f);
  }

  template <class FindAction>
  void read_fault(const Event& e, FindAction& find_action, std::map<int, int>& incarnation,
                  std::map<int, size_t>& open_crash) {
    PlanFault f;
    f.fault.event_id = e.id;
    f.fault.true_us = e.true_us;
    f.ends_us = e.true_us;
    std::optional<size_t> action;
    if (e.op == Op::Restart && e.client >= 0) {
      auto crash = open_crash.find(e.client);
      if (crash != open_crash.end()) inventory[crash->second].restart_us = e.true_us;
      open_crash.erase(e.client);
      incarnation[e.client]++;
      started_us[{e.client, incarnation[e.client]}] = e.true_us;
      return;
    }
    if (e.op == Op::Lost && e.client >= 0 && !plan.schedule) {
      f.how = PlanFault::How::Loss;
      // The message as the plan's loss keys name it (sim/fault_plan.h).
      f.loss_key = loss_key(e.client, detail_text(e), static_cast<uint64_t>(e.value));
      lost_keys.insert(f.loss_key);
      f.fault.client = e.client;
      f.fault.lost = e.lost;
      f.fault.note = e.detail;
      f.fault.kind = lost_fault_kind(e.lost.what);
      inventory.push_back(f);
      return;
    }
    if (e.op == Op::Crash) {
      action = find_action(e.true_us, FaultKind::Crash, e.target);
      f.fault.kind = FaultKind::Crash;
      f.fault.client = e.target;
      f.incarnation = incarnation[e.target];
    } else if (e.op == Op::Pause) {
      action = find_action(e.true_us, FaultKind::Pause, e.target);
      f.fault.kind = FaultKind::Pause;
      f.fault.client = e.target;
      f.fault.duration_ms = e.duration_ms;
      f.ends_us = e.true_us + e.duration_ms * 1000;
    } else if (e.op == Op::Partition) {
      action = find_action(e.true_us, FaultKind::Partition, e.target);
      f.fault.kind = FaultKind::Partition;
      f.fault.client = e.target;
      f.fault.duration_ms = e.duration_ms;
      f.ends_us = e.true_us + e.duration_ms * 1000;
    } else if (e.op == Op::ClockJump && e.client >= 0) {
      action = find_action(e.true_us, FaultKind::ClientClockJump, e.client);
      f.fault.kind = FaultKind::ClientClockJump;
      f.fault.client = e.client;
      f.fault.duration_ms = e.duration_ms;
    } else if (e.op == Op::ClockJump) {
      action = find_action(e.true_us, FaultKind::ServerClockJump, e.target);
      f.fault.kind = FaultKind::ServerClockJump;
      f.fault.server = e.target;
      f.fault.duration_ms = e.duration_ms;
    } else if (e.op == Op::RedisRestart) {
      action = find_action(e.true_us, FaultKind::RedisRestart, e.target);
      f.fault.kind = FaultKind::RedisRestart;
      f.fault.server = e.target;
      f.fault.duration_ms = e.duration_ms;
      f.fault.persistence = e.persistence;
      f.fault.note = e.detail;
      f.ends_us = e.true_us + e.duration_ms * 1000;
    } else if (e.op == Op::Failover) {
      action = find_action(e.true_us, FaultKind::Failover, e.target);
      f.fault.kind = FaultKind::Failover;
      f.fault.server = e.target;
      f.fault.duration_ms = e.duration_ms;
      f.fault.note = e.detail;
    } else {
      return;  // resume, heal: the end of a fault
    }
    if (!action) return;  // not one of the plan's actions: not removable
    f.how = PlanFault::How::Action;
    f.action = *action;
    if (f.fault.kind == FaultKind::Crash) open_crash[e.target] = inventory.size();
    inventory.push_back(f);
  }

  // A clock setup or a slow link: it shapes the run from its start (or its
  // operation's invoke) on, not at one instant.
  static bool is_setup(const PlanFault& f) {
    return f.fault.event_id == 0 || f.how == PlanFault::How::SlowLink;
  }

  // A slow link explains only a violation of one of the holds it delayed
  // (its "held" answer is one of the violation's events).
  static bool cites(const Violation& v, const PlanFault& f) {
    if (f.how != PlanFault::How::SlowLink) return true;
    return std::find(v.event_ids.begin(), v.event_ids.end(), f.fault.event_id) != v.event_ids.end();
  }

  // Whether inventory fault i may explain a violation with `scope` detected at `at_us`.
  bool in_scope(const PlanFault& f, const FaultScope& scope, int64_t at_us) const {
    if (f.fault.true_us > at_us) return false;
    const bool server_fault = f.fault.server >= 0;
    if (server_fault) return scope.has_server(f.fault.server) && f.ends_us >= scope.server_from_us;
    if (f.fault.kind == FaultKind::Crash && !scope.crashes) return false;
    if (f.fault.kind == FaultKind::SlowLink && !scope.slow_links) return false;
    return scope.has_client(f.fault.client) && f.ends_us >= scope.client_from_us;
  }

  // When op k of task `key` was ready to start (its predecessor's
  // completion, or the incarnation's start), in the history.
  int64_t ready_us(const TaskKey& key, size_t k) const {
    if (k > 0) return ops.at(key)[k - 1].done_us;
    auto it = started_us.find({std::get<0>(key), std::get<1>(key)});
    return it == started_us.end() ? 0 : it->second;
  }

  // A removed pause gives back the wait of the operations it held back: an
  // operation whose start it deferred to its end starts at the pause's start
  // (or when it became ready, if later).
  void give_back_pause(ExplicitPlan* p, const PlanFault& pause) const {
    const int64_t from_us = pause.fault.true_us;
    const int64_t until_us = pause.ends_us;
    for (ExplicitTask& t : p->tasks) {
      if (t.client != pause.fault.client) continue;
      auto it = ops.find({t.client, t.incarnation, t.task});
      if (it == ops.end()) continue;
      for (size_t k = 0; k < t.ops.size() && k < it->second.size(); ++k) {
        const OpRecord& r = it->second[k];
        if (r.invoke_us != until_us) continue;
        const int64_t ready = ready_us(it->first, k);
        if (ready < 0 || ready + t.ops[k].delay_us != r.invoke_us) continue;  // not deferred by the pause
        t.ops[k].delay_us = std::max(ready, from_us) - ready;
      }
    }
  }

  // A removed crash: the process stops in order instead. Its tasks release,
  // at the crash, what they held or were acquiring (unless the plan has more
  // operations for them); its restart's tasks run in this same process.
  void stop_in_order(ExplicitPlan* p, TaskRename* rename, const PlanFault& crash) const {
    const int c = crash.fault.client;
    const int inc = crash.incarnation;
    const uint64_t crash_event = crash.fault.event_id;
    const int64_t crash_us = crash.fault.true_us;
    int max_task = 0;
    for (ExplicitTask& t : p->tasks) {
      if (t.client != c || t.incarnation != inc) continue;
      max_task = std::max(max_task, t.task);
      auto it = ops.find(original(*rename, {c, inc, t.task}));
      if (it == ops.end()) continue;
      const std::vector<OpRecord>& records = it->second;
      size_t started = 0;  // ops invoked before the crash
      while (started < records.size() && started < t.ops.size() && records[started].invoke_event < crash_event)
        ++started;
      if (started < t.ops.size()) continue;  // the plan says what it does next
      std::map<int, int> depth;  // lock -> holds to release
      for (size_t k = 0; k < started; ++k) {
        const ExplicitOp& op = t.ops[k];
        const OpRecord& r = records[k];
        if (is_acquire(op.kind)) {
          if (r.done_event > crash_event || r.acquired) depth[op.lock]++;  // held, or in flight
        } else if (depth[op.lock] > 0) {
          depth[op.lock]--;
        }
      }
      int64_t delay_us = 0;
      if (started > 0 && records[started - 1].done_event < crash_event)
        delay_us = std::max<int64_t>(0, crash_us - records[started - 1].done_us);
      for (const auto& [lock, n] : depth) {
        for (int i = 0; i < n; ++i) {
          ExplicitOp unlock;
          unlock.kind = ExplicitOp::Kind::Unlock;
          unlock.lock = lock;
          unlock.delay_us = delay_us;
          delay_us = 0;
          t.ops.push_back(unlock);
        }
      }
    }
    if (crash.restart_us < 0) return;
    auto start = started_us.find({c, inc});
    const int64_t inc_start_us = start == started_us.end() ? 0 : start->second;
    const int offset = 100 * (1 + max_task / 100);
    TaskRename renamed;
    for (ExplicitTask& t : p->tasks) {
      if (t.client != c || t.incarnation <= inc) continue;
      const TaskKey old_key{c, t.incarnation, t.task};
      if (t.incarnation == inc + 1) {
        t.task += offset;
        if (!t.ops.empty()) t.ops.front().delay_us += crash.restart_us - inc_start_us;
      }
      t.incarnation -= 1;
      renamed[{c, t.incarnation, t.task}] = original(*rename, old_key);
    }
    for (auto it = rename->begin(); it != rename->end();) {
      if (std::get<0>(it->first) == c && std::get<1>(it->first) > inc) it = rename->erase(it);
      else ++it;
    }
    for (const auto& [k, v] : renamed) (*rename)[k] = v;
  }

  static TaskKey original(const TaskRename& rename, const TaskKey& key) {
    auto it = rename.find(key);
    return it == rename.end() ? key : it->second;
  }

  // The plan without the inventory faults `removed`, and how its tasks are
  // named in the original plan.
  ExplicitPlan without(const std::vector<size_t>& removed, TaskRename* rename) const {
    ExplicitPlan p = plan;
    p.balance_holds = !removed.empty() && !generated;
    p.loose_schedule = !removed.empty() && p.schedule.has_value();
    std::vector<bool> drop(p.faults.actions.size(), false);
    std::vector<const PlanFault*> crashes;
    std::set<std::string> spared;  // the removed losses' messages
    for (size_t i : removed) {
      const PlanFault& f = inventory[i];
      switch (f.how) {
        case PlanFault::How::Action:
          drop[f.action] = true;
          if (generated) break;  // the workload does what it would have done
          if (f.fault.kind == FaultKind::Pause) give_back_pause(&p, f);
          if (f.fault.kind == FaultKind::Crash) crashes.push_back(&f);
          break;
        case PlanFault::How::Loss: spared.insert(f.loss_key); break;
        case PlanFault::How::ClientClock: p.faults.client_clocks.at(static_cast<size_t>(f.fault.client)) = {}; break;
        case PlanFault::How::ServerClock: p.faults.server_clocks.at(static_cast<size_t>(f.fault.server)) = {}; break;
        case PlanFault::How::SlowLink: {
          auto [it, fresh] = p.faults.steady_links.emplace(f.fault.client, f.steady_from_us);
          if (!fresh) it->second = std::min(it->second, f.steady_from_us);
          break;
        }
      }
    }
    // Every message the run lost is lost again, but the spared ones (a
    // schedule decides its messages itself).
    if (!p.schedule) {
      p.faults.losses.lost.emplace();
      std::set_difference(lost_keys.begin(), lost_keys.end(), spared.begin(), spared.end(),
                          std::inserter(*p.faults.losses.lost, p.faults.losses.lost->end()));
    }
    // Later crashes first: each merges the incarnation after it.
    std::sort(crashes.begin(), crashes.end(),
              [](const PlanFault* a, const PlanFault* b) { return a->fault.event_id > b->fault.event_id; });
    for (const PlanFault* crash : crashes) stop_in_order(&p, rename, *crash);
    std::vector<FaultAction> kept;
    for (size_t i = 0; i < p.faults.actions.size(); ++i)
      if (!drop[i]) kept.push_back(p.faults.actions[i]);
    p.faults.actions = std::move(kept);
    return p;
  }
};

CauseSearch::CauseSearch(ExplicitPlan plan, const std::vector<Event>& history, const CheckConfig& config,
                         BackendSource* source, int max_reruns)
    : impl_(std::make_unique<Impl>(std::move(plan), false, history, config, source, max_reruns)) {}

CauseSearch::CauseSearch(const Scenario& scenario, const std::vector<Event>& history, const CheckConfig& config,
                         BackendSource* source, int max_reruns) {
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = run_fault_plan(scenario, scenario.servers, history);  // a focused run's injected faults too
  impl_ = std::make_unique<Impl>(std::move(plan), true, history, config, source, max_reruns);
}

CauseSearch::~CauseSearch() = default;

int CauseSearch::runs() const { return impl_->runs; }

Cause CauseSearch::explain(const Violation& v) { return impl_->explain(v); }

std::vector<Violation> CauseSearch::violations_without(const Violation& v, const std::vector<CauseFault>& faults) {
  return impl_->violations_without(v, faults);
}

namespace {

void explain_each(std::vector<Violation>* violations, int max_reruns,
                  const std::function<bool(const Violation&)>& want,
                  const std::function<std::unique_ptr<CauseSearch>()>& make_search) {
  bool any = false;
  for (const Violation& v : *violations) any = any || want(v);
  if (!any) return;
  std::unique_ptr<CauseSearch> search;
  for (Violation& v : *violations) {
    if (!want(v)) continue;
    if (auto cause = cause_without_reruns(v, max_reruns)) {
      v.cause = *cause;
      continue;
    }
    if (!search) search = make_search();
    v.cause = search->explain(v);
  }
}

}  // namespace

void explain_violations(std::vector<Violation>* violations, const ExplicitPlan& plan,
                        const std::vector<Event>& history, const CheckConfig& config, BackendSource* source,
                        int max_reruns, const std::function<bool(const Violation&)>& want) {
  explain_each(violations, max_reruns, want,
               [&] { return std::make_unique<CauseSearch>(plan, history, config, source, max_reruns); });
}

void explain_violations(std::vector<Violation>* violations, const Scenario& scenario,
                        const std::vector<Event>& history, const CheckConfig& config, BackendSource* source,
                        int max_reruns, const std::function<bool(const Violation&)>& want) {
  explain_each(violations, max_reruns, want,
               [&] { return std::make_unique<CauseSearch>(scenario, history, config, source, max_reruns); });
}

}  // namespace locksim
