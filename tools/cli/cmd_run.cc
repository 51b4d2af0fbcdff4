// locksim run: runs one scenario in virtual time and writes its trace.
//   locksim run --seed S [--backend model|lua|live] [scenario flags]
//               [--properties P,...] [--skip-property P] --trace FILE
// The scenario flags are campaign's (tools/cli/scenario_flags.h): the same
// names, units and defaults, so `run --seed S` with a campaign's flags runs
// that campaign's seed S.
// Without --backend: the model when it stands for the pack, else lua (the
// pack's own Lua in process).
// Prints a one-line summary, and a line with how many violations the
// checkers of the selected properties (--properties, --skip-property;
// default every property) found in it (`locksim check` lists them and
// proves their causes). Exit 0 when the run completed and no property
// failed (the advisory busy_poll fails nothing), 1 when one failed (the
// trace is written either way); 2 on bad input
// (unknown profile/lock/backend/mutant, N < 1, unwritable trace, a pack the
// model cannot stand for with --backend model), a server that would not
// start, or a run cut short (live: a script that does not answer in time, a
// server on a dead clock; lua: a command it does not implement, a script
// past its step budget): then no trace is written and an existing one is
// untouched.
#include <cmath>
#include <map>
#include <cstdio>
#include <memory>
#include <string>

#include "impl/redis_conn.h"
#include "redis/lua_scripting.h"
#include "sim/run.h"
#include "sim/simulator.h"
#include "search/campaign.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "properties/verdict_policy.h"
#include "tools/cli/cmd_run.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/commands.h"
#include "tools/cli/scenario_flags.h"
#include "tools/cli/property_options.h"
#include "tools/cli/run_backend.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

RunRequest validate_run(const RunArgs& a) {
  if (a.trace.empty()) throw UsageError("--trace is empty: name the trace file to write (or - for standard output)");
  RunRequest r;
  // The scenario as a campaign of one seed builds it: the same flags, the
  // same defaults, the same mutants and packs.
  a.scenario.apply(&r.campaign);
  r.campaign.seeds = 1;
  r.campaign.scenario.seed = a.seed;
  if (!a.backend.empty()) {
    r.backend = backend_kind_from_name(a.backend);
    if (!r.backend) throw UsageError("unknown backend '" + a.backend + "' (model, lua, live)");
  }
  r.trace = a.trace;
  r.properties = a.properties.parse();
  r.lua_limits = validate_memory_limit(a.memory_limit);
  return r;
}

namespace {

// "checked every property: 2 violation(s) (mutual_exclusion: 2); ..." for
// the run's history.
std::string checked_line(const PropertySelection& checked, const std::vector<Violation>& violations,
                         const std::string& trace, const std::string& program) {
  std::map<std::string, int> by_property;
  for (const Violation& v : violations) by_property[v.property]++;
  std::string list;
  for (const std::string& p : checked.names()) list += (list.empty() ? "" : ",") + p;
  std::string out = "checked " + (checked.is_all() ? std::string("every property") : list) + ": ";
  if (violations.empty()) return out + "no violation";
  out += std::to_string(violations.size()) + " violation(s) (";
  bool first = true;
  for (const auto& [p, n] : by_property) {
    out += (first ? "" : ", ") + p + ": " + std::to_string(n);
    first = false;
  }
  return out + "); " + program + " check " + shell_word(trace) + " lists them with their causes";
}

// The scenario's pack, loaded once: the backend (the model when it stands
// for it, unless named), the template and the backend all take it.
struct ResolvedRun {
  Scenario scenario;
  BackendKind kind = BackendKind::Model;
  RunBackend backend;
};

ResolvedRun resolve_run(const RunRequest& o) {
  CampaignOptions c = o.campaign;
  Scenario named = c.scenario;
  named.scripts = campaign_scripts(c);
  std::optional<ScriptPack> pack;
  try {
    pack = load_scenario_pack(named);
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  }
  ResolvedRun out;
  out.kind = o.backend.value_or(default_backend_for(named, *pack));
  c.backend = CampaignBackend{out.kind, std::nullopt};
  try {
    out.scenario = campaign_template(c, *pack);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  out.backend = make_run_backend(out.kind, &out.scenario, *pack, o.lua_limits);
  return out;
}

}  // namespace

int run_run(const RunRequest& o, const ProgramName& program) {
  ResolvedRun resolved = resolve_run(o);
  const Scenario& s = resolved.scenario;
  RunBackend& backend = resolved.backend;
  const std::string kind(backend_kind_name(resolved.kind));
  CheckConfig check_config = default_check_config();
  check_config.properties = o.properties;
  try {
    refuse_output_over_input(o.trace, backend.input_files);
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  std::unique_ptr<TraceWriter> writer;
  try {
    writer = std::make_unique<TraceWriter>(o.trace, make_trace_header(s, kind));
  } catch (const TraceError& e) {
    throw_output_failure(e, "cannot write trace: ");
  }
  CheckerSuite suite(config_for_scenario(check_config, s));  // a polling design's bounds, as campaign
  FanoutSink fanout;
  fanout.add(writer.get());
  fanout.add(&suite);
  Simulator sim(s, *backend.backend, fanout);
  RunSummary summary;
  try {
    summary = sim.run();
  } catch (const RedisError& e) {
    // The trace is published only by close(): a cut-short run leaves none.
    throw UsageError(kind + " run failed: " + e.what() + "; no trace written");
  } catch (const LuaScriptAbort& e) {
    throw UsageError(std::string("lua run stopped: ") + e.what() + "; no trace written");
  }
  try {
    writer->close();
  } catch (const TraceError& e) {
    throw_output_failure(e, "cannot write trace: ");
  }
  suite.finish(summary.end_true_us);
  // With the trace on standard output, the summary lines go to stderr.
  FILE* lines = is_standard_output(o.trace) ? stderr : stdout;
  std::fprintf(lines, "%s backend=%s trace=%s\n", summary_line(s, summary).c_str(), kind.c_str(), o.trace.c_str());
  std::fprintf(lines, "%s\n",
               checked_line(check_config.properties, suite.violations(), o.trace, program.as_invoked).c_str());
  // A property failed (by the default policy: every property but the
  // advisory busy_poll): exit 1, as every command that checks.
  return failing_violations(suite.violations(), VerdictPolicy{}).empty() ? 0 : 1;
}

void add_run_command(CLI::App& app, CliContext* ctx) {
  auto opts = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run one scenario in virtual time and write its trace");
  cmd->add_option("--seed", opts->seed, "Seed of the run")->required()->transform(non_negative_integer());
  cmd->add_option("--backend", opts->backend,
                  "model, lua (the pack's own Lua in process) or live (the pack's Lua on a redis-server in "
                  "virtual time). Default: model, or lua for a pack the model cannot stand for");
  add_scenario_flags(cmd, &opts->scenario);
  add_property_options(cmd, &opts->properties);
  add_memory_limit_option(cmd, &opts->memory_limit);
  cmd->add_option("--trace", opts->trace, "Trace file to write (- or /dev/stdout: standard output, the summary line then goes to stderr)")->required();
  cmd->callback([opts, ctx] { ctx->exit_code = run_run(validate_run(*opts), ctx->program); });
}

}  // namespace locksim::cli
