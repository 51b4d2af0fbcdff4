// locksim check TRACE [--json] [--unexplained-only] [--fail-on P]: runs every
// checker on a saved trace offline (streaming: bounded memory) and lists
// every violation. Version 2 traces are checked against the server truth they
// carry (fair lines); version 1 traces as before, from bounds.
// A trace in which no operation succeeded is vacuous: said, and failing
// unless --allow-vacuous.
// Exit: 0 nothing the policy fails on, 1 some violation fails (or vacuous), 2 bad input.
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "properties/verdict_policy.h"
#include "sim/run.h"
#include "traces/trace_format.h"
#include "tools/cli/commands.h"
#include "traces/trace_prefetch.h"
#include "traces/trace_reader.h"

namespace locksim::cli {

namespace {

struct CheckArgs {
  std::string path;
  bool json = false;
  bool unexplained_only = false;
  bool allow_vacuous = false;
  std::vector<std::string> fail_on;
};

int check_command(const CheckArgs& args) {
  VerdictPolicy policy;
  policy.unexplained_only = args.unexplained_only;
  try {
    apply_fail_on(&policy, args.fail_on);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::unique_ptr<CheckerSuite> suite;  // configured by the header's scenario (its lock design)
  uint64_t events = 0;
  uint64_t operations_ok = 0;
  int version = 0;
  try {
    auto reader = std::make_unique<TraceReader>(args.path);
    version = reader->header().version;
    try {
      // A corrupt header is a corrupt trace: no verdict on it.
      suite = std::make_unique<CheckerSuite>(check_config_for(scenario_from_header(reader->header())));
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
  const std::vector<Violation> all = suite->violations();
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
    std::printf("%s: %llu events (trace version %d), %zu violation(s), %zu failing\n", ok ? "ok" : "FAILED",
                static_cast<unsigned long long>(events), version, all.size(), failing.size());
  }
  return ok ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand("check", "Run every checker on a saved trace and list every violation");
  cmd->add_option("trace", args->path, "trace file (JSON Lines, version 1 to " + std::to_string(kTraceVersion) + ")")->required();
  cmd->add_flag("--json", args->json, "print one JSON object: events, ok, every violation with \"fails\"");
  cmd->add_flag("--unexplained-only", args->unexplained_only,
                "ignore violations whose cause is a fault the profile permits (non-empty blamed fault)");
  cmd->add_flag("--allow-vacuous", args->allow_vacuous,
                "do not fail a trace in which no operation succeeded (it shows nothing to check; by default it fails)");
  cmd->add_option("--fail-on", args->fail_on,
                  "also fail on these properties (comma-separated or repeated; e.g. busy_poll, or all)");
  cmd->callback([args, exit_code] { *exit_code = check_command(*args); });
}

}  // namespace locksim::cli
