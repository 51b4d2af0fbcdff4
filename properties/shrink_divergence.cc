#include "properties/shrink_divergence.h"

#include <algorithm>
#include <string>
#include <vector>

#include "properties/shrink.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {

namespace {

Counterexample divergence_counterexample(std::vector<Event> checked_events, const HistoryMismatch& m) {
  Counterexample cx;
  const size_t end = std::min<size_t>(checked_events.size(), m.index + 1);
  checked_events.resize(end);
  cx.events = std::move(checked_events);
  cx.violation.property = kDivergenceProperty;
  cx.violation.message =
      "event " + std::to_string(m.index) + ": " + m.expected_backend + " " + m.expected_line + " vs " +
      m.actual_backend + " " + m.actual_line;
  if (m.index < end) {
    cx.violation.event_ids = {cx.events.back().id};
    cx.violation.true_us = {cx.events.back().true_us};
  }
  cx.violation.detected_at_event = cx.events.empty() ? 0 : cx.events.back().id;
  return cx;
}

// The first difference of two histories, as the campaign's comparator sees it.
std::optional<HistoryMismatch> first_difference(const std::vector<Event>& expected,
                                                const std::vector<Event>& actual) {
  HistoryComparator comparator(expected);
  for (const Event& e : actual) {
    comparator.on_event(e);
    if (comparator.mismatch()) break;
  }
  comparator.finish();
  return comparator.mismatch();
}

}  // namespace

std::optional<Counterexample> plan_divergence(const ExplicitPlan& plan, BackendSource& checked,
                                              BackendSource& reference) {
  VectorSink expected;
  run_explicit(plan, reference.fresh(plan.scenario), expected);
  VectorSink actual;
  run_explicit(plan, checked.fresh(plan.scenario), actual);
  std::optional<HistoryMismatch> m = first_difference(expected.events, actual.events);
  if (!m) return std::nullopt;
  m->expected_backend = reference.kind();
  m->actual_backend = checked.kind();
  Counterexample cx = divergence_counterexample(std::move(actual.events), *m);
  cx.plan = plan;  // replayable as a trace (sim/explicit_plan_json.h)
  return cx;
}

Counterexample shrink_divergence(const Scenario& scenario, const HistoryMismatch& first, BackendSource& checked,
                                 BackendSource& reference) {
  VectorSink history;
  {
    Simulator sim(scenario, checked.fresh(scenario), history);
    sim.run();
  }
  ExplicitPlan plan = plan_from_history(scenario, history.events);
  const PlanProbe probe = [&](const ExplicitPlan& candidate) {
    return plan_divergence(candidate, checked, reference);
  };
  if (probe(plan)) return shrink_with(&plan, probe);
  return divergence_counterexample(std::move(history.events), first);
}

}  // namespace locksim
