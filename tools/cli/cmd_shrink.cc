// locksim shrink TRACE [--property P] [--violation N] [-o OUT]: checks the
// trace (every checker, as `locksim check`), takes its first violation (of
// P; the N-th), re-runs the trace's scenario (a trace with an explicit plan
// in its header: that plan) on the backend its header names, shrinks it as
// a campaign does (search/shrink.h) and writes the shrunk counterexample as
// a trace whose header carries its plan: `locksim replay OUT` re-runs it,
// `check` and `timeline` read it. Prints how far it shrank, the violation
// in it, and the command that replays it.
// Exit: 0 written; 1 the violation does not come back when the trace's
// scenario is re-run as a plan (nothing written); 2 bad input (a flag, a
// trace, no such violation, an output that is the trace); 3 the output
// cannot be written (a read-only or full file system).
#include "tools/cli/cmd_shrink.h"

#include <cstdio>
#include <memory>
#include <optional>

#include "impl/redis_conn.h"
#include "redis/lua_scripting.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "reports/campaign_text.h"
#include "search/shrink.h"
#include "sim/explicit_plan_json.h"
#include "sim/run.h"
#include "tools/cli/run_backend.h"
#include "tools/cli/scenario_flags.h"
#include "traces/trace_prefetch.h"
#include "traces/trace_reader.h"

namespace locksim::cli {

namespace {

// What the trace holds: its header and scenario, its violations.
struct CheckedTrace {
  TraceHeader header;
  Scenario scenario;
  CheckConfig config;
  uint64_t events = 0;
  std::vector<Violation> violations;
};

CheckedTrace check_trace(const std::string& path) {
  CheckedTrace t;
  try {
    auto reader = std::make_unique<TraceReader>(path);
    t.header = reader->header();
    if (t.header.backend == "realtime") {
      throw UsageError(path + ": a real-time trace (locksim stress) cannot be re-run, so it cannot be shrunk");
    }
    t.scenario = scenario_from_header(t.header);
    t.config = check_config_for(t.scenario);
    CheckerSuite suite(t.config);
    t.events = stream_events(std::move(reader), [&suite](std::span<const Event> batch) {
      for (const Event& e : batch) suite.on_event(e);
    });
    suite.finish();
    t.violations = suite.violations();
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  } catch (const ScenarioError& e) {
    throw UsageError(path + ": " + e.what());
  }
  return t;
}

// The backend the trace's header names, as a source of fresh backends.
std::unique_ptr<BackendSource> header_source(const std::string& path, CheckedTrace* t, LuaLimits lua_limits) {
  const auto kind = backend_kind_from_name(t->header.backend);
  if (!kind) throw UsageError(path + ": header names an unknown backend '" + t->header.backend + "'");
  try {
    std::optional<ScriptPack> pack;
    if (*kind != BackendKind::Model) pack = resolve_scenario_scripts(&t->scenario, *kind);
    return make_backend_source(*kind, pack ? &*pack : nullptr, t->scenario.servers, std::nullopt, lua_limits);
  } catch (const ScenarioError& e) {
    throw UsageError(path + ": header: " + e.what());
  } catch (const ScriptPackError& e) {
    throw UsageError(path + ": header names a script pack that does not load: " + e.what());
  } catch (const RedisError& e) {
    throw EnvironmentError(std::string("cannot start the live backend: ") + e.what());
  }
}

void write_counterexample(const ShrinkRequest& r, const Counterexample& cx, const std::string& backend,
                          BackendSource& source) {
  TraceHeader header = make_trace_header(cx.plan->scenario, backend);
  header.plan = explicit_plan_to_json(*cx.plan);
  try {
    TraceWriter writer(r.out, header);
    run_explicit(*cx.plan, source.fresh(cx.plan->scenario), writer);
    writer.close();
  } catch (const TraceError& e) {
    throw_output_failure(e, "cannot write the shrunk trace: ");
  } catch (const LuaScriptAbort& e) {
    throw UsageError(r.trace + ": lua run stopped: " + e.what());
  }
}

}  // namespace

std::string default_shrink_output(const std::string& trace, const std::string& property) {
  std::string stem = trace;
  for (const char* suffix : {".jsonl", ".json"}) {
    const std::string s = suffix;
    if (stem.size() > s.size() && stem.compare(stem.size() - s.size(), s.size(), s) == 0) {
      stem.resize(stem.size() - s.size());
      break;
    }
  }
  return stem + "." + property + ".shrunk.jsonl";
}

ShrinkRequest validate_shrink(const ShrinkArgs& a) {
  if (a.trace.empty()) throw UsageError("shrink: the trace is empty: name a trace file");
  if (a.trace == "-") throw UsageError("shrink: the trace is read twice: name a file, not standard input");
  if (a.out_given && a.out.empty()) throw UsageError("-o/--out is empty: name the shrunk trace to write");
  ShrinkRequest r;
  r.trace = a.trace;
  r.choice = validate_violation_choice(a.property, a.violation);
  r.out = a.out;
  r.lua_limits = validate_memory_limit(a.memory_limit);
  if (a.memory_limit.given) r.memory_limit = a.memory_limit.text;
  return r;
}

int run_shrink(const ShrinkRequest& request, const ProgramName& program) {
  ShrinkRequest r = request;
  CheckedTrace t = check_trace(r.trace);
  const Violation v = chosen(t.violations, r.choice, r.trace);
  if (r.out.empty()) r.out = default_shrink_output(r.trace, v.property);
  try {
    refuse_output_over_input(r.out, {r.trace});
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  std::unique_ptr<BackendSource> source = header_source(r.trace, &t, r.lua_limits);
  Counterexample cx;
  try {
    if (t.header.plan.is_null()) {
      cx = shrink_scenario(t.scenario, v, t.config, false, source.get());
    } else {
      ExplicitPlan plan = explicit_plan_from_json(t.scenario, t.header.plan);
      cx = shrink_plan(&plan, t.config, violation_signature(v), false, source.get());
    }
  } catch (const ScenarioError& e) {
    throw UsageError(r.trace + ": " + e.what());
  } catch (const LuaScriptAbort& e) {
    throw UsageError(r.trace + ": lua run stopped: " + e.what());
  } catch (const RedisError& e) {
    throw EnvironmentError(std::string("live run failed: ") + e.what());
  }
  if (!cx.plan || cx.events.empty()) {
    std::printf("shrink: %s does not come back when the trace's scenario is re-run as a plan; nothing written\n",
                v.property.c_str());
    return 1;
  }
  write_counterexample(r, cx, t.header.backend, *source);
  std::printf("shrink: %s%s: %llu trace events shrunk to %s -> %s\n", v.property.c_str(),
              v.lock.empty() ? "" : (" [" + v.lock.name() + "]").c_str(), static_cast<unsigned long long>(t.events),
              counterexample_extent(cx).c_str(), r.out.c_str());
  std::printf("  violation: %s\n", cx.violation.to_string().c_str());
  if (cx.other_violations > 0) {
    std::string props;
    for (const std::string& p : cx.other_properties) props += (props.empty() ? "" : ", ") + p;
    std::printf("  (its plan, run to its end, also violates %s)\n", props.c_str());
  }
  std::printf("replay it: %s replay %s%s\n", program.as_invoked.c_str(), shell_word(r.out).c_str(),
              r.memory_limit.empty() ? "" : (" --memory-limit " + shell_word(r.memory_limit)).c_str());
  return 0;
}

void add_shrink_command(CLI::App& app, CliContext* ctx) {
  auto a = std::make_shared<ShrinkArgs>();
  CLI::App* cmd = app.add_subcommand(
      "shrink", "Shrink a trace's violation to a short counterexample and write it as a replayable trace");
  cmd->add_option("trace", a->trace, "Trace file (a campaign's failures/<seed>.jsonl, a run's --trace)")->required();
  cmd->add_option("--property", a->property,
                  "Shrink a violation of this property (default: the first violation that is not advisory)")
      ->check(property_name());
  cmd->add_option("--violation", a->violation,
                  "Shrink the N-th such violation (1: the first; advisory reports count only when --property names "
                  "them)")
      ->transform(integer_in(int64_t{1}, int64_t{1'000'000}));
  cmd->add_option("-o,--out", a->out,
                  "The shrunk trace to write (default: beside TRACE, <name>.<property>.shrunk.jsonl)")
      ->each([a](const std::string&) { a->out_given = true; });
  add_memory_limit_option(cmd, &a->memory_limit);
  cmd->callback([a, ctx] { ctx->exit_code = run_shrink(validate_shrink(*a), ctx->program); });
}

}  // namespace locksim::cli
