// locksim run: runs one scenario in virtual time and writes its trace.
//   locksim run --seed S [--backend model|lua|live] [--clients N] [--locks K]
//               [--servers M] [--lock rlock|fair|mixed|multi|redlock] [--duration-s D]
//               [--profile NAME] [--scripts DIR] [--mutant NAME]
//               [--persistence none|always] [--restart-delay-ms D] [--validity] [--fair-slot-ms S] --trace FILE
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
#include "tools/cli/commands.h"
#include "tools/cli/run_backend.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

namespace {

struct RunOptions {
  uint64_t seed = 0;
  std::string backend;  // empty: default_backend_for the scenario
  int clients = 4;
  int locks = 1;
  int servers = 1;
  std::string lock = "rlock";
  double duration_s = 60;
  std::string profile = "none";
  std::string scripts;
  std::string mutant = "none";
  std::string persistence = "none";
  int64_t restart_delay_ms = 0;
  bool validity = false;
  int64_t fair_slot_ms = 0;
  std::string trace;
};

int run_command(const RunOptions& o) {
  Scenario s;
  s.seed = o.seed;
  s.clients = o.clients;
  s.locks = o.locks;
  s.servers = o.servers;
  s.lock_kind = o.lock;
  if (!(o.duration_s >= 0) || o.duration_s > 7 * 24 * 3600) {
    throw UsageError("--duration-s must be in [0, 604800]");
  }
  s.duration_ms = static_cast<int64_t>(std::llround(o.duration_s * 1000));
  s.profile = o.profile;
  s.mutant = o.mutant;
  s.scripts = o.scripts;
  if (auto p = persistence_from_name(o.persistence)) {
    s.persistence = *p;
  } else {
    throw UsageError("--persistence: unknown value '" + o.persistence + "' (none, always)");
  }
  s.restart_delay_ms = o.restart_delay_ms;
  s.validity = o.validity;
  s.fair_slot_ms = o.fair_slot_ms;
  const std::string kind = o.backend.empty() ? default_backend_for(s) : o.backend;
  if (kind != "model" && kind != "lua" && kind != "live") {
    throw UsageError("unknown backend '" + kind + "' (model, lua, live)");
  }
  try {
    validate_scenario(s);
  } catch (const ScenarioError& e) {
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
  cmd->add_option("--clients", opts->clients, "Number of client processes")
      ->capture_default_str()->transform(integer_in(1, kMaxClients));
  cmd->add_option("--locks", opts->locks, "Number of locks")->capture_default_str()->transform(integer_in(1, kMaxLocks));
  cmd->add_option("--servers", opts->servers, "Number of Redis servers")
      ->capture_default_str()->transform(integer_in(1, kMaxServers));
  cmd->add_option("--lock", opts->lock,
                  "Lock kind: rlock, fair, mixed, multi (multi-lock: one member per server, all needed) or "
                  "redlock (RedLock: a majority of the servers)")->capture_default_str();
  cmd->add_option("--duration-s", opts->duration_s, "Virtual seconds of new operations")
      ->capture_default_str()->check(decimal_in(0, static_cast<double>(kMaxDurationMs) / 1000));
  cmd->add_option("--profile", opts->profile,
                  "Fault profile: none, safe, pauses, skew, hostile, restarts, failover, server-clock, or a '+' "
                  "combination (pauses+restarts)")->capture_default_str();
  cmd->add_option("--persistence", opts->persistence,
                  "What a server restart keeps: none (all data lost) or always (append-only, fsync on every "
                  "write: all kept)")->capture_default_str();
  cmd->add_option("--restart-delay-ms", opts->restart_delay_ms,
                  "A restarted server stays down this long (requests meanwhile are refused)")
      ->capture_default_str()->transform(integer_in(int64_t{0}, kMaxRestartDelayMs));
  cmd->add_option("--fair-slot-ms", opts->fair_slot_ms,
                  "Fair lock: every slot this long whatever the caller's wait (older versions: 5000); 0: the wait")
      ->capture_default_str()->transform(integer_in(int64_t{0}, kMaxFairSlotMs));
  cmd->add_flag("--validity", opts->validity,
                "RedLock: check the validity (lease - elapsed - drift) and believe the hold only until it ends");
  cmd->add_option("--scripts", opts->scripts, "Script pack directory (default: impl/lua)")->capture_default_str();
  cmd->add_option("--mutant", opts->mutant, "Client mutant (default: none)")->capture_default_str();
  cmd->add_option("--trace", opts->trace, "Trace file to write (- or /dev/stdout: standard output, the summary line then goes to stderr)")->required();
  cmd->callback([opts, exit_code] { *exit_code = run_command(*opts); });
}

}  // namespace locksim::cli
