#include "reports/campaign_text.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "properties/violation.h"
#include "search/shrink_divergence.h"
#include "traces/byte_text.h"
#include "traces/event_detail.h"
#include "traces/trace_format.h"

namespace locksim {

std::string format_event(const Event& e) {
  char head[64];
  std::snprintf(head, sizeof head, "#%-4llu %10.3fs ", static_cast<unsigned long long>(e.id),
                static_cast<double>(e.true_us) / 1e6);
  std::string out = head;
  out += std::string(event_kind_name(e.kind));
  if (e.client >= 0) out += " c" + std::to_string(e.client);
  if (e.kind == EventKind::Fault) {
    out += " " + std::string(op_name(e.op)) + " target=" + std::to_string(e.target);
    if (e.duration_ms != 0) out += " " + format_ms(e.duration_ms);
    return visible_text(out);
  }
  if (e.op != Op::None && e.kind != EventKind::Script) out += " " + std::string(op_name(e.op));
  if (e.kind == EventKind::Script) out += " " + e.script + " -> " + e.reply.to_text();
  if (!e.owner.empty()) out += " owner=" + e.owner.str();
  if (!e.lock.empty()) out += " lock=" + e.lock.name();
  if (e.op_id != 0) out += " op=" + std::to_string(e.op_id);
  if (e.kind == EventKind::Invoke) {
    if (e.wait_ms >= 0) out += " wait=" + std::to_string(e.wait_ms);
    if (e.lease_ms >= 0) out += " lease=" + std::to_string(e.lease_ms);
  }
  if (e.kind == EventKind::Ok || e.kind == EventKind::Fail) out += " value=" + std::to_string(e.value);
  if (e.kind == EventKind::Script) {
    out += " holders=[";
    for (size_t i = 0; i < e.holders_after.size(); ++i) out += (i ? "," : "") + e.holders_after[i];
    out += "]";
  }
  if (has_detail_text(e)) out += " (" + detail_text(e) + ")";
  return visible_text(out);
}

namespace {

nlohmann::json counterexample_to_json(const Counterexample& cx) {
  nlohmann::json events = nlohmann::json::array();
  for (const Event& e : cx.events) events.push_back(format_event(e));
  return {{"events", cx.events.size()},
          {"trace_events", cx.trace_events},
          {"property", cx.violation.property},
          {"other_violations", cx.other_violations},
          {"other_properties", cx.other_properties},
          {"violation", cx.violation.to_string()},
          {"blamed_fault", cx.violation.stated_blame()},
          {"hypothesis", cx.violation.blamed_fault},
          {"history", events}};
}

// format_event without its id and time: equal for repeated identical events.
std::string event_shape(const Event& e) {
  const std::string full = format_event(e);
  const size_t kind_at = full.find("s ");
  return kind_at == std::string::npos ? full : full.substr(kind_at + 2);
}

// Long counterexamples: runs of identical events (a poll storm) collapse to
// their first and last event; then the first and last 30 lines are shown,
// plus every event the violation cites.
void append_counterexample(std::string& out, const Counterexample& cx) {
  const auto& events = cx.events;
  out += "  shrunk counterexample for " + cx.violation.property + " (" + counterexample_extent(cx) + "):\n";
  if (cx.other_violations > 0) {
    std::string props;
    for (const std::string& p : cx.other_properties) props += (props.empty() ? "" : ", ") + p;
    out += "    (its plan, run to its end, also violates " + props + ": " + std::to_string(cx.other_violations) +
           " violation(s) that shrinking could not separate from it)\n";
  }
  const auto& evidence = cx.violation.event_ids;
  auto cited = [&](const Event& e) { return std::find(evidence.begin(), evidence.end(), e.id) != evidence.end(); };
  // Display lines: an event index, or a collapsed run [first, last].
  struct Line {
    size_t index = 0;
    size_t run_count = 0;  // > 0: a collapsed run of this many events
    uint64_t from_id = 0, to_id = 0;
  };
  std::vector<Line> lines;
  constexpr size_t kMinRun = 4;
  for (size_t i = 0; i < events.size();) {
    const std::string shape = event_shape(events[i]);
    size_t j = i + 1;
    while (j < events.size() && event_shape(events[j]) == shape) ++j;
    if (j - i < kMinRun) {
      for (size_t k = i; k < j; ++k) lines.push_back({k, 0, 0, 0});
    } else {
      lines.push_back({i, 0, 0, 0});
      size_t hidden = 0;
      uint64_t from = 0, to = 0;
      for (size_t k = i + 1; k + 1 < j; ++k) {
        if (cited(events[k])) {
          if (hidden > 0) lines.push_back({k, hidden, from, to});
          hidden = 0;
          lines.push_back({k, 0, 0, 0});
          continue;
        }
        if (hidden == 0) from = events[k].id;
        to = events[k].id;
        ++hidden;
      }
      if (hidden > 0) lines.push_back({j - 1, hidden, from, to});
      lines.push_back({j - 1, 0, 0, 0});
    }
    i = j;
  }
  size_t elided = 0;
  for (size_t n = 0; n < lines.size(); ++n) {
    const Line& line = lines[n];
    const bool edge = n < 30 || n + 30 >= lines.size();
    if (!edge && (line.run_count > 0 || !cited(events[line.index]))) {
      elided += line.run_count > 0 ? line.run_count : 1;
      continue;
    }
    if (elided > 0) { out += "    ... " + std::to_string(elided) + " events elided ...\n"; elided = 0; }
    if (line.run_count > 0) {
      out += "    ... " + std::to_string(line.run_count) + " more of the same (#" + std::to_string(line.from_id) +
             " to #" + std::to_string(line.to_id) + ") ...\n";
    } else {
      out += "    " + format_event(events[line.index]) + "\n";
    }
  }
  if (elided > 0) out += "    ... " + std::to_string(elided) + " events elided ...\n";
  out += "  violation: " + cx.violation.to_string() + "\n";
}

}  // namespace

nlohmann::json result_tally_to_json(const CampaignResult& r) {
  return {{"unexplained", r.tally.unexplained},
          {"unexplained_seeds", r.unexplained_seeds},
          {"explained", r.tally.explained},
          {"explained_seeds", r.explained_seeds},
          {"explained_by_kind", r.tally.explained_by_kind},
          {"advisory", r.tally.advisory},
          {"set_aside", r.unexplained_only ? r.tally.explained : 0}};
}

nlohmann::json seed_failure_to_json(const SeedFailure& f) {
  nlohmann::json j;
  j["seed"] = f.seed;
  j["events"] = f.events;
  if (f.focus) j["focus"] = focus_reason(*f.focus);
  j["violations"] = nlohmann::json::array();
  for (const Violation& v : f.violations) j["violations"].push_back(violation_to_json(v));
  if (f.divergence) {
    j["divergence"] = {{"event", f.divergence->index},
                       {f.divergence->expected_backend, f.divergence->expected_line},
                       {f.divergence->actual_backend, f.divergence->actual_line}};
  }
  if (!f.shrunk.empty()) {
    j["counterexamples"] = nlohmann::json::array();
    for (const Counterexample& cx : f.shrunk) j["counterexamples"].push_back(counterexample_to_json(cx));
  }
  return j;
}

nlohmann::json campaign_result_to_json(const CampaignResult& r) {
  nlohmann::json j;
  j["scenario"] = scenario_to_json(r.scenario);
  j["backend"] = r.backend;
  j["seeds_run"] = r.seeds_run;
  j["events_checked"] = r.events_checked;
  j["operations_ok"] = r.operations_ok;
  j["script_errors"] = r.script_errors;
  // How waiters waited: the polls of acquires that had to wait, per second of their waiting.
  j["waiting"] = {{"polls", r.waiting_polls},
                  {"seconds", static_cast<double>(r.waiting_us) / 1e6},
                  {"polls_per_second", r.waiting_us > 0 ? static_cast<double>(r.waiting_polls) * 1e6 /
                                                               static_cast<double>(r.waiting_us)
                                                         : 0.0}};
  j["vacuous"] = r.vacuous();
  j["ok"] = !r.failed();
  j["failures"] = nlohmann::json::array();
  for (const SeedFailure& f : r.failures) j["failures"].push_back(seed_failure_to_json(f));
  j["advisories"] = nlohmann::json::object();
  for (const auto& [name, a] : r.advisories)
    j["advisories"][name] = {{"seeds", a.seeds}, {"reports", a.reports}, {"first_seed", a.first_seed},
                             {"first_report", a.first_report}};
  j["results"] = result_tally_to_json(r);
  return j;
}

namespace {

std::string kinds_text(const std::map<std::string, uint64_t>& by_kind) {
  ResultTally t;
  t.explained_by_kind = by_kind;
  return t.kinds_text();
}

std::string seed_list(const std::vector<uint64_t>& seeds) {
  constexpr size_t kShown = 10;
  std::string out;
  for (size_t i = 0; i < seeds.size() && i < kShown; ++i) out += (i ? ", " : "") + std::to_string(seeds[i]);
  if (seeds.size() > kShown) out += ", ... " + std::to_string(seeds.size() - kShown) + " more";
  return out;
}

}  // namespace

ResultCounts result_counts(const CampaignResult& r) {
  ResultCounts c;
  c.seeds_run = r.seeds_run;
  c.failing_seeds = static_cast<int>(r.failures.size());
  c.profile = r.scenario.profile.name();
  c.unexplained = r.tally.unexplained;
  c.explained = r.tally.explained;
  c.unexplained_seeds = r.unexplained_seeds;
  c.explained_seeds = r.explained_seeds;
  c.explained_by_kind = r.tally.explained_by_kind;
  c.advisory = r.tally.advisory;
  c.unexplained_only = r.unexplained_only;
  c.vacuous_fails = r.vacuous_fails;
  c.failed = r.failed();
  for (const SeedFailure& f : r.failures) {
    c.divergent_seeds += f.divergence.has_value();
    const bool unexplained =
        std::any_of(f.violations.begin(), f.violations.end(), [](const Violation& v) { return !v.explained(); });
    if (unexplained) c.unexplained_seed_list.push_back(f.seed);
    c.explained_only_seeds += !unexplained && !f.divergence && !f.violations.empty();
  }
  return c;
}

ResultCounts result_counts_from_summary(const nlohmann::json& s) {
  ResultCounts c;
  const nlohmann::json& counts = s["counts"];
  const nlohmann::json& results = s["results"];
  const nlohmann::json& config = s["configuration"];
  c.seeds_run = counts.value("seeds_run", 0);
  c.failing_seeds = counts.value("seeds_failed", 0);
  c.profile = config["scenario"].value("profile", std::string());
  c.unexplained = results.value("unexplained", uint64_t{0});
  c.explained = results.value("explained", uint64_t{0});
  c.unexplained_seeds = results.value("unexplained_seeds", 0);
  c.explained_seeds = results.value("explained_seeds", 0);
  for (const auto& [kind, n] : results["explained_by_kind"].items()) c.explained_by_kind[kind] = n.get<uint64_t>();
  c.advisory = results.value("advisory", uint64_t{0});
  c.unexplained_only = config.value("unexplained_only", false);
  c.vacuous_fails = s.value("vacuous", false) && config.value("fail_vacuous", true);
  c.failed = !s["failures"].empty() || c.vacuous_fails;
  // One entry per (seed, property), in seed order: a seed's entries together.
  std::map<uint64_t, std::pair<bool, bool>> seeds;  // seed -> (unexplained, divergent)
  std::vector<uint64_t> order;
  for (const nlohmann::json& f : s["failures"]) {
    const uint64_t seed = f.value("seed", uint64_t{0});
    if (!seeds.count(seed)) order.push_back(seed);
    auto& [unexplained, divergent] = seeds[seed];
    if (f.value("property", std::string()) == "divergence") divergent = true;
    else if (f.value("unexplained", 0) > 0) unexplained = true;
  }
  for (uint64_t seed : order) {
    const auto [unexplained, divergent] = seeds[seed];
    c.divergent_seeds += divergent;
    if (unexplained) c.unexplained_seed_list.push_back(seed);
    c.explained_only_seeds += !unexplained && !divergent;
  }
  return c;
}

std::string format_headline(const ResultCounts& c) {
  if (!c.failed) return "";
  if (c.failing_seeds == 0) return "FAILED: the campaign is vacuous (no operation succeeded: nothing was checked)\n";
  std::string out = "FAILED: ";
  const int explained_only_seeds = c.explained_only_seeds;
  if (c.unexplained > 0) {
    out += std::to_string(c.unexplained) + " unexplained violation" + (c.unexplained == 1 ? "" : "s") + " (seed" +
           (c.unexplained_seed_list.size() == 1 ? " " : "s ") + seed_list(c.unexplained_seed_list) + ")";
    if (explained_only_seeds > 0) {
      out += "; " + std::to_string(explained_only_seeds) + " more seed" + (explained_only_seeds == 1 ? "" : "s") +
             " with violations, all explained (" + kinds_text(c.explained_by_kind) + ")";
    }
  } else if (c.divergent_seeds > 0 && c.explained == 0) {
    out += std::to_string(c.divergent_seeds) + " seed" + (c.divergent_seeds == 1 ? "" : "s") +
           " where the two backends' histories diverge";
  } else {
    out += "0 unexplained; " + std::to_string(explained_only_seeds) + " seed" + (explained_only_seeds == 1 ? "" : "s") +
           " with violations, all explained by faults the " + c.profile + " profile injects (" +
           kinds_text(c.explained_by_kind) + ")";
    if (c.divergent_seeds > 0) out += "; " + std::to_string(c.divergent_seeds) + " diverging";
  }
  return out + "\n";
}

std::string format_result_tally(const ResultCounts& c) {
  std::string out = "results: " + std::to_string(c.unexplained) + " unexplained violation(s) in " +
                    std::to_string(c.unexplained_seeds) + " seed(s); " + std::to_string(c.explained) +
                    " explained in " + std::to_string(c.explained_seeds) + " seed(s)" +
                    (c.explained > 0 ? " (" + kinds_text(c.explained_by_kind) + ")" : std::string()) + "; " +
                    std::to_string(c.advisory) + " advisory report(s)\n";
  if (c.unexplained_only && c.explained > 0) {
    out += "--unexplained-only set aside " + std::to_string(c.explained) + " explained violation(s) in " +
           std::to_string(c.explained_seeds) +
           " seed(s): re-runs showed each needs a fault the property permits (" + kinds_text(c.explained_by_kind) +
           ")\n";
  }
  return out;
}

std::string format_campaign_result(const CampaignResult& r) {
  std::string out;
  for (const auto& [name, a] : r.advisories) {
    out += name + " (advisory, not failing; --fail-on " + name + " makes it fail): " + std::to_string(a.reports) +
           " report(s) in " + std::to_string(a.seeds) + " seed(s); first at seed " + std::to_string(a.first_seed) +
           ": " + a.first_report + "\n";
  }
  if (r.script_errors > 0) {
    out += "script errors: " + std::to_string(r.script_errors) + " script execution(s) answered an error\n";
  }
  if (r.vacuous()) {
    out += std::string(r.vacuous_fails ? "VACUOUS" : "vacuous (accepted by --allow-vacuous)") +
           ": no operation succeeded in any of the " + std::to_string(r.seeds_run) +
           " seed(s) (every acquire failed or errored): nothing was checked\n";
  }
  const ResultCounts counts = result_counts(r);
  if (!r.failed()) {
    out += format_result_tally(counts);
    out += "ok: " + std::to_string(r.seeds_run) + " seeds, " + std::to_string(r.events_checked) +
           " events, no property failed" + (r.tally.explained > 0 && r.unexplained_only ? " unexplained" : "") +
           "\n";
    return out;
  }
  out = format_headline(counts) + out;
  for (const SeedFailure& f : r.failures) {
    out += "seed " + std::to_string(f.seed) + " (" + std::to_string(f.events) + " trace events): " +
           (f.divergence ? "the " + f.divergence->actual_backend + " history diverges from the " +
                               f.divergence->expected_backend + "'s, "
                         : std::string()) +
           std::to_string(f.violations.size()) + " violation(s)\n";
    if (f.focus) out += "  drawn: " + focus_reason(*f.focus) + "\n";
    if (f.divergence) {
      const int64_t apart_ms = divergence_size_ms(*f.divergence);
      out += "  divergence at event " + std::to_string(f.divergence->index) + " (first event where the histories differ" +
             (apart_ms > 0 ? "; apart by " + format_ms(apart_ms) : std::string()) + "):\n";
      out += "    " + f.divergence->expected_backend + ": " + f.divergence->expected_line + "\n";
      out += "    " + f.divergence->actual_backend + ":  " + f.divergence->actual_line + "\n";
    }
    for (const Violation& v : f.violations) out += "  violation: " + v.to_string() + "\n";
    for (const Counterexample& cx : f.shrunk) append_counterexample(out, cx);
  }
  out += format_result_tally(counts);
  if (!r.failures.empty()) {
    out += "failed: " + std::to_string(r.failures.size()) + " of " + std::to_string(r.seeds_run) + " seeds (" +
           std::to_string(r.tally.unexplained) + " unexplained violation(s), " + std::to_string(r.tally.explained) +
           " explained)\n";
  } else {
    out += "failed: the campaign is vacuous\n";
  }
  return out;
}

}  // namespace locksim
