// locksim run: runs one scenario in virtual time and writes its trace.
//   locksim run --seed S [--backend model|lua|live] [scenario flags] --trace FILE
// The scenario flags are campaign's (tools/cli/scenario_flags.h): the same
// names, units and defaults, so `run --seed S` with a campaign's flags runs
// that campaign's seed S.
// Without --backend: the model when it stands for the pack, else lua (the
// pack's own Lua in process).
// Prints a one-line summary. Exit 0 when the run completed; 2 on bad input
// (unknown profile/lock/backend/mutant, N < 1, unwritable trace, a pack the
// model cannot stand for with --backend model), a server that would not
// start, or a run cut short (live: a script that does not answer in time, a
// server on a dead clock; lua: a command it does not implement, a script
// past its step budget): then no trace is written and an existing one is
// untouched.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "impl/redis_conn.h"
#include "model/lua_scripting.h"
#include "sim/run.h"
#include "sim/simulator.h"
#include "properties/campaign.h"
#include "tools/cli/commands.h"
#include "tools/cli/scenario_flags.h"
#include "tools/cli/run_backend.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

namespace {

struct RunOptions {
  uint64_t seed = 0;
  std::string backend;  // empty: default_backend_for the scenario
  ScenarioFlags scenario;
  std::string trace;
};

int run_command(const RunOptions& o) {
  // The scenario as a campaign of one seed builds it: the same flags, the
  // same defaults, the same mutants and packs.
  CampaignOptions c;
  o.scenario.apply(&c);
  c.seeds = 1;
  c.base_seed = o.seed;
  Scenario probe;
  probe.scripts = c.scripts;
  const std::string kind = o.backend.empty() ? default_backend_for(probe) : o.backend;
  const auto backend_kind = backend_kind_from_name(kind);
  if (!backend_kind) throw UsageError("unknown backend '" + kind + "' (model, lua, live)");
  c.backend = CampaignBackend{*backend_kind, std::nullopt};
  Scenario s;
  try {
    s = campaign_template(c);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  RunBackend backend = make_run_backend(kind, &s);
  try {
    refuse_output_over_input(o.trace, backend.input_files);
  } catch (const OutputError& e) {
    throw UsageError(e.what());
  }
  std::unique_ptr<TraceWriter> writer;
  try {
    writer = std::make_unique<TraceWriter>(o.trace, make_trace_header(s, kind));
  } catch (const TraceError& e) {
    throw UsageError(std::string("cannot write trace: ") + e.what());
  }
  Simulator sim(s, *backend.backend, *writer);
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
    throw UsageError(std::string("cannot write trace: ") + e.what());
  }
  // With the trace on standard output, the summary line goes to stderr.
  std::fprintf(is_standard_output(o.trace) ? stderr : stdout, "%s backend=%s trace=%s\n",
               summary_line(s, summary).c_str(), kind.c_str(), o.trace.c_str());
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run one scenario in virtual time and write its trace");
  cmd->add_option("--seed", opts->seed, "Seed of the run")->required()->transform(non_negative_integer());
  cmd->add_option("--backend", opts->backend,
                  "model, lua (the pack's own Lua in process) or live (the pack's Lua on a redis-server in "
                  "virtual time). Default: model, or lua for a pack the model cannot stand for");
  add_scenario_flags(cmd, &opts->scenario);
  cmd->add_option("--trace", opts->trace, "Trace file to write (- or /dev/stdout: standard output, the summary line then goes to stderr)")->required();
  cmd->callback([opts, exit_code] { *exit_code = run_command(*opts); });
}

}  // namespace locksim::cli
