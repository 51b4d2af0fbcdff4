// locksim replay FILE: re-runs the trace's scenario (from its header, on the
// backend it names, or on --backend) and compares the new history with the
// file event by event.
// Exit 0: every event reproduced identically; 1: the first differing event is
// shown (index, expected line, actual line); 2: unreadable or invalid trace.
// After the verdict it lists the violations the new run shows (of
// --property P only, when given); they do not change the exit code.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "redis/lua_scripting.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "sim/replay.h"
#include "sim/run.h"
#include "impl/script_pack.h"
#include "tools/cli/cmd_replay.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/commands.h"
#include "tools/cli/run_backend.h"
#include "tools/cli/scenario_flags.h"
#include "traces/trace_reader.h"

namespace locksim::cli {

ReplayRequest validate_replay(const ReplayArgs& args) {
  if (args.path.empty()) throw UsageError("replay: the trace is empty: name a trace file");
  ReplayRequest r;
  r.path = args.path;
  if (!args.backend.empty()) {
    r.backend = backend_kind_from_name(args.backend);
    if (!r.backend) throw UsageError("--backend: unknown backend '" + args.backend + "' (model, lua, live)");
  }
  r.only = validate_violation_choice(args.property, 0);
  r.lua_limits = validate_memory_limit(args.memory_limit);
  return r;
}

int run_replay(const ReplayRequest& request, const ProgramName& program) {
  const std::string& path = request.path;
  try {
    TraceReader reader(path);
    if (reader.header().backend == "realtime") {
      throw UsageError(path + ": a real-time trace (locksim stress) cannot be replayed: real threads and clocks "
                       "are not deterministic; check it with `locksim check`");
    }
    Scenario scenario = scenario_from_header(reader.header());
    const ModelVariant recorded_variant = scenario.model_variant;
    // The header's backend, parsed here (the trace's edge), or --backend's.
    const std::optional<BackendKind> recorded = backend_kind_from_name(reader.header().backend);
    if (!recorded && !request.backend) {
      throw UsageError(path + ": header: unknown backend '" + reader.header().backend + "' (model, lua, live)");
    }
    const BackendKind kind_type = request.backend.value_or(*recorded);
    const std::string kind(backend_kind_name(kind_type));
    RunBackend backend;
    try {
      backend = make_run_backend(kind_type, &scenario, request.lua_limits);
    } catch (const UsageError& e) {  // the header's backend or script pack: name the file
      throw UsageError(path + ": header: " + e.what());
    } catch (const ScriptPackError& e) {
      throw UsageError(path + ": header names a script pack that does not load: " + e.what());
    }
    if (scenario.model_variant != recorded_variant) {
      throw UsageError("trace scenario says model variant '" + std::string(variant_name(recorded_variant)) +
                       "' but its script pack now says '" + std::string(variant_name(scenario.model_variant)) + "'");
    }
    CheckerSuite suite(check_config_for(scenario));
    const ReplayResult result = replay_trace(reader, *backend.backend, &suite);
    if (result.identical()) {
      const nlohmann::json& plan = reader.header().plan;
      std::printf("replay: %llu trace events reproduced identically%s%s\n",
                  static_cast<unsigned long long>(result.events_compared),
                  plan.is_null() ? ""
                  : plan.contains("schedule") ? " (the explored counterexample's plan and schedule)"
                                              : " (the shrunk counterexample's explicit plan)",
                  kind == reader.header().backend
                      ? ""
                      : (" on the " + kind + " backend (recorded on " + reader.header().backend + ")").c_str());
      suite.finish();
      constexpr size_t kShownViolations = 5;
      const std::vector<Violation> violations =
          request.only.property.empty() ? suite.violations() : of_interest(suite.violations(), request.only);
      for (size_t i = 0; i < violations.size() && i < kShownViolations; ++i)
        std::printf("  violation: %s\n", violations[i].to_string().c_str());
      if (violations.size() > kShownViolations)
        std::printf("  ... %zu more violation(s): %s check %s lists them all\n",
                    violations.size() - kShownViolations, program.as_invoked.c_str(), shell_word(path).c_str());
      return 0;
    }
    std::printf("replay: first difference at event %llu\n  expected: %s\n  actual:   %s\n",
                static_cast<unsigned long long>(result.mismatch->index),
                result.mismatch->expected_line.c_str(), result.mismatch->actual_line.c_str());
    return 1;
  } catch (const TraceError& e) {
    throw UsageError(e.what());
  } catch (const ScenarioError& e) {
    throw UsageError(path + ": " + e.what());
  } catch (const LuaScriptAbort& e) {
    throw UsageError(path + ": lua replay stopped: " + e.what());
  }
}

void add_replay_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand("replay", "Re-run a trace and check every event is reproduced");
  cmd->add_option("file", args->path, "Trace file")->required();
  cmd->add_option("--backend", args->backend,
                  "Run it on this backend instead of the one its header names: model, lua (the pack's own Lua in "
                  "process) or live (redis-server); the events must be the same");
  cmd->add_option("--property", args->property,
                  "After the verdict, list only this property's violations in the new run")
      ->check(property_name());
  add_memory_limit_option(cmd, &args->memory_limit);
  cmd->callback([args, ctx] { ctx->exit_code = run_replay(validate_replay(*args), ctx->program); });
}

}  // namespace locksim::cli
