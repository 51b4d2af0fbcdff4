// locksim check TRACE [--json] [--unexplained-only] [--fail-on P]
// [--properties P,...] [--skip-property P] [--cause-reruns N]: runs every
// checker (of the selected properties) on a saved trace offline
// (streaming: bounded memory) and lists every violation, each with its cause
// when re-runs of the trace's scenario without faults prove one
// (properties/cause_search.h; the trace is then read again, into memory),
// and the three kinds of result: unexplained, explained (by cause kind),
// advisory. Version 2 traces are checked against the server truth they
// carry (fair lines); version 1 traces as before, from bounds.
// A trace in which no operation succeeded is vacuous: said, and failing
// unless --allow-vacuous.
// Exit: 0 nothing the policy fails on, 1 some violation fails (or vacuous), 2 bad input.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/cause_search.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "properties/verdict_policy.h"
#include "sim/explicit_plan_json.h"
#include "sim/run.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/property_options.h"
#include "tools/cli/run_backend.h"
#include "traces/trace_format.h"
#include "tools/cli/cmd_check.h"
#include "tools/cli/commands.h"
#include "tools/cli/violation_choice.h"
#include "traces/trace_prefetch.h"
#include "traces/trace_reader.h"

namespace locksim::cli {

namespace {


// A trace longer than this is not held in memory for the cause search: its
// violations stay unexplained (not searched).
constexpr uint64_t kMaxCauseTraceEvents = 5'000'000;

// The causes of the trace's violations the policy counts
// (properties/cause_search.h): its scenario (a shrunk trace: its explicit
// plan) re-run, on the backend its header names, without faults. What
// stops the search (a trace too long, a backend that does not start) is
// said in each cause's note: those violations stay unexplained.
void explain_trace(const std::string& path, uint64_t events, std::vector<Violation>* violations,
                   const VerdictPolicy& policy, const CheckConfig& config, int max_reruns, LuaLimits lua_limits) {
  auto counted = [&policy](const Violation& v) { return policy.fail_on.count(v.property) != 0; };
  if (std::none_of(violations->begin(), violations->end(), counted)) return;
  auto not_searched = [&](const std::string& why) {
    for (Violation& v : *violations)
      if (counted(v) && v.scope.excusable()) v.cause = Cause{CauseStatus::NotSearched, {}, 0, why};
      else if (counted(v)) v.cause = Cause{CauseStatus::NoScope, {}, 0, ""};
  };
  if (max_reruns == 0) return not_searched("re-runs are off (--cause-reruns 0)");
  if (events > kMaxCauseTraceEvents)
    return not_searched("the trace has more than " + std::to_string(kMaxCauseTraceEvents) + " events");
  TraceReader reader(path);
  const TraceHeader header = reader.header();
  const auto kind = backend_kind_from_name(header.backend);
  if (!kind) return not_searched("a " + header.backend + " trace cannot be re-run");
  Scenario scenario = scenario_from_header(header);
  std::unique_ptr<BackendSource> source;
  try {
    std::optional<ScriptPack> pack;
    if (*kind != BackendKind::Model) pack = resolve_scenario_scripts(&scenario, *kind);
    source = make_backend_source(*kind, pack ? &*pack : nullptr, scenario.servers, std::nullopt, lua_limits);
  } catch (const std::exception& e) {
    return not_searched(std::string("cannot re-run it: ") + e.what());
  }
  std::vector<Event> history;
  history.reserve(events);
  Event e;
  while (reader.next(e)) history.push_back(e);
  try {
    if (header.plan.is_null()) {
      explain_violations(violations, scenario, history, config, source.get(), max_reruns, counted);
    } else {
      explain_violations(violations, explicit_plan_from_json(scenario, header.plan), history, config, source.get(),
                         max_reruns, counted);
    }
  } catch (const LuaScriptAbort& e) {
    throw UsageError(path + ": the cause search stopped on the lua backend: " + e.what());
  }
}

}  // namespace

// The flags parsed: the policy (--fail-on, --unexplained-only), the
// properties checked, the one listed (--property). Pure.
CheckRequest validate_check(const CheckArgs& args) {
  if (args.path.empty()) throw UsageError("check: the trace is empty: name a trace file");
  CheckRequest r;
  r.path = args.path;
  r.json = args.json;
  r.allow_vacuous = args.allow_vacuous;
  r.cause_reruns = args.cause_reruns;
  r.policy.unexplained_only = args.unexplained_only;
  try {
    apply_fail_on(&r.policy, args.fail_on);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  r.selection = args.properties.parse(&r.policy, args.fail_on);
  r.only = validate_violation_choice(args.property, 0);
  r.lua_limits = validate_memory_limit(args.memory_limit);
  return r;
}

int run_check(const CheckRequest& args) {
  const VerdictPolicy& policy = args.policy;
  const PropertySelection& selection = args.selection;
  CheckConfig config = default_check_config();
  std::unique_ptr<CheckerSuite> suite;
  uint64_t events = 0;
  uint64_t operations_ok = 0;
  int version = 0;
  try {
    auto reader = std::make_unique<TraceReader>(args.path);
    version = reader->header().version;
    try {
      // A corrupt header is a corrupt trace: no verdict on it.
      config = check_config_for(scenario_from_header(reader->header()));
      config.properties = selection;
      suite = std::make_unique<CheckerSuite>(config);
    } catch (const ScenarioError& e) {
      throw UsageError(args.path + ": " + e.what());
    }
    // Decoded on a thread of its own while the checkers run (two cores or more).
    events = stream_events(std::move(reader), [&suite, &operations_ok](std::span<const Event> batch) {
      for (const Event& e : batch) {
        operations_ok += e.kind == EventKind::Ok;
        suite->on_event(e);
      }
    });
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  }
  suite->finish();
  std::vector<Violation> all = suite->violations();
  if (!args.only.property.empty()) all = of_interest(all, args.only);
  try {
    explain_trace(args.path, events, &all, policy, config, args.cause_reruns, args.lua_limits);
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  } catch (const ScenarioError& e) {
    throw UsageError(args.path + ": " + e.what());
  }
  ResultTally tally;
  for (const Violation& v : all) {
    const bool counted = policy.fail_on.count(v.property) != 0;
    if (counted || is_advisory_property(v.property)) tally_violation(&tally, v, !counted);
  }
  const std::vector<Violation> failing = failing_violations(all, policy);
  // No operation succeeded: the trace shows nothing the checkers could judge.
  const bool vacuous = events > 0 && operations_ok == 0;
  const bool vacuous_fails = vacuous && !args.allow_vacuous;
  const bool ok = failing.empty() && !vacuous_fails;
  if (args.json) {
    nlohmann::json j;
    j["trace"] = args.path;
    j["version"] = version;
    j["events"] = events;
    j["operations_ok"] = operations_ok;
    j["vacuous"] = vacuous;
    j["ok"] = ok;
    j["properties"] = config.properties.names();
    j["results"] = {{"unexplained", tally.unexplained},
                    {"explained", tally.explained},
                    {"explained_by_kind", tally.explained_by_kind},
                    {"advisory", tally.advisory},
                    {"set_aside", policy.unexplained_only ? tally.explained : 0}};
    j["violations"] = nlohmann::json::array();
    for (const Violation& v : all) {
      nlohmann::json jv = violation_to_json(v);
      jv["fails"] = policy.fails(v);
      j["violations"].push_back(std::move(jv));
    }
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    for (const Violation& v : all) {
      std::printf("%s %s\n", policy.fails(v) ? "FAIL" : "note", v.to_string().c_str());
    }
    if (vacuous) {
      std::printf("%s: no operation succeeded in this trace: nothing was checked\n",
                  vacuous_fails ? "VACUOUS" : "vacuous (accepted by --allow-vacuous)");
    }
    std::printf("results: %llu unexplained violation(s); %llu explained%s; %llu advisory report(s)\n",
                static_cast<unsigned long long>(tally.unexplained), static_cast<unsigned long long>(tally.explained),
                tally.explained > 0 ? (" (" + tally.kinds_text() + ")").c_str() : "",
                static_cast<unsigned long long>(tally.advisory));
    if (policy.unexplained_only && tally.explained > 0) {
      std::printf("--unexplained-only set aside %llu explained violation(s): re-runs showed each needs a fault the "
                  "property permits (%s)\n",
                  static_cast<unsigned long long>(tally.explained), tally.kinds_text().c_str());
    }
    std::printf("%s: %llu events (trace version %d), %zu violation(s), %zu failing\n", ok ? "ok" : "FAILED",
                static_cast<unsigned long long>(events), version, all.size(), failing.size());
  }
  return ok ? 0 : 1;
}

void add_check_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand("check", "Run every checker on a saved trace and list every violation");
  cmd->add_option("trace", args->path, "trace file (JSON Lines, version 1 to " + std::to_string(kTraceVersion) + ")")->required();
  cmd->add_flag("--json", args->json, "print one JSON object: events, ok, every violation with \"fails\"");
  cmd->add_flag("--unexplained-only", args->unexplained_only,
                "fail only on unexplained violations: set aside (and count) those whose cause re-runs confirmed, "
                "a fault the property permits without which the same run no longer violates");
  add_property_options(cmd, &args->properties);
  cmd->add_option("--property", args->property,
                  "list only this property's violations, and fail only on them (every checker still runs)")
      ->check(property_name());
  add_memory_limit_option(cmd, &args->memory_limit);
  cmd->add_option("--cause-reruns", args->cause_reruns,
                  "re-runs per violation to prove its cause (the trace's scenario or plan re-run, on the backend "
                  "its header names, without faults); 0: no re-run, every violation unexplained")
      ->capture_default_str()->transform(integer_in(0, kMaxCauseReruns));
  cmd->add_flag("--allow-vacuous", args->allow_vacuous,
                "do not fail a trace in which no operation succeeded (it shows nothing to check; by default it fails)");
  cmd->add_option("--fail-on", args->fail_on,
                  "also fail on these properties (comma-separated or repeated; e.g. busy_poll, or all)");
  cmd->callback([args, ctx] { ctx->exit_code = run_check(validate_check(*args)); });
}

}  // namespace locksim::cli
