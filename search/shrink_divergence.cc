#include "search/shrink_divergence.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/shrink.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {

namespace {

// The integer fields of an event line, by path ("t", "r", "ln/0/1", ...);
// the true time in ms.
void integer_fields(const nlohmann::json& j, const std::string& path, std::map<std::string, double>* out) {
  if (j.is_number_integer() || j.is_number_unsigned()) {
    (*out)[path] = j.get<double>() / (path == "t" ? 1000.0 : 1.0);
  } else if (j.is_string() && path == "r") {
    const std::string& s = j.get_ref<const std::string&>();
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) (*out)[path] = static_cast<double>(v);
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) integer_fields(value, path.empty() ? key : path + "/" + key, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) integer_fields(j[i], path + "/" + std::to_string(i), out);
  }
}

}  // namespace

int64_t divergence_size_ms(const HistoryMismatch& m) {
  const nlohmann::json a = nlohmann::json::parse(m.expected_line, nullptr, false);
  const nlohmann::json b = nlohmann::json::parse(m.actual_line, nullptr, false);
  if (a.is_discarded() || b.is_discarded()) return 0;
  std::map<std::string, double> fa, fb;
  integer_fields(a, "", &fa);
  integer_fields(b, "", &fb);
  double size = 0;
  for (const auto& [path, va] : fa) {
    if (path == "id") continue;
    auto it = fb.find(path);
    if (it != fb.end()) size = std::max(size, std::abs(va - it->second));
  }
  return static_cast<int64_t>(std::llround(size));
}

namespace {

Counterexample divergence_counterexample(std::vector<Event> checked_events, const HistoryMismatch& m) {
  Counterexample cx;
  cx.trace_events = checked_events.size();
  const size_t end = std::min<size_t>(checked_events.size(), m.index + 1);
  checked_events.resize(end);
  cx.events = std::move(checked_events);
  cx.violation.property = kDivergenceProperty;
  cx.violation.message =
      "event " + std::to_string(m.index) + ": " + m.expected_backend + " " + m.expected_line + " vs " +
      m.actual_backend + " " + m.actual_line;
  if (const int64_t size_ms = divergence_size_ms(m); size_ms > 0) {
    cx.violation.message += "; apart by " + format_ms(size_ms);
  }
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
                                              BackendSource& reference, HistoryMismatch* mismatch) {
  VectorSink expected;
  run_explicit(plan, reference.fresh(plan.scenario), expected);
  VectorSink actual;
  run_explicit(plan, checked.fresh(plan.scenario), actual);
  std::optional<HistoryMismatch> m = first_difference(expected.events, actual.events);
  if (!m) return std::nullopt;
  m->expected_backend = reference.kind();
  m->actual_backend = checked.kind();
  if (mismatch != nullptr) *mismatch = *m;
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
  const int64_t seed_size_ms = divergence_size_ms(first);
  const PlanProbe probe = [&](const ExplicitPlan& candidate) -> std::optional<Counterexample> {
    HistoryMismatch m;
    auto cx = plan_divergence(candidate, checked, reference, &m);
    // At least a tenth of the seed's size: the same order of magnitude.
    if (cx && seed_size_ms > 0 && divergence_size_ms(m) * 10 < seed_size_ms) return std::nullopt;
    return cx;
  };
  if (probe(plan)) return shrink_with(&plan, probe);
  return divergence_counterexample(std::move(history.events), first);
}

}  // namespace locksim
