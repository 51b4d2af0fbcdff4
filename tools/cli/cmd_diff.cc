// locksim diff: differential test of a Lua script pack against the model.
// Generates random script-call sequences (deterministic given --seed), runs
// each in lockstep on a reference and on a candidate backend, compares
// replies, publishes and full key state after every step, and on the first
// divergence prints a shrunk counterexample (or,
// when the divergence does not happen again alike, says so and prints the
// unshrunk steps). --keep-going / --max-divergences N go on past differences
// (both servers emptied after each) and list every divergence with a
// per-script tally; --skip-script leaves a script out of the sequences.
// --backend names the candidate: live (default: the pack on its own
// redis-server, virtual clock), lua (the pack's Lua in process), or a pair
// C,R (lua,live: the lua backend checked against live Redis) whose second
// is the reference instead of the model.
// Exit: 0 all agree, 1 divergence, 2 bad input / environment (a command
// the lua backend does not implement, a script past its step budget).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "redis/lua_scripting.h"
#include "search/campaign_backend.h"
#include "sim/differential.h"
#include "sim/live_backend.h"
#include "sim/lua_backend.h"
#include "sim/model_backend.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/commands.h"
#include "tools/server/redis_server.h"

namespace locksim::cli {

namespace {

struct DiffArgs {
  std::string scripts;
  std::string backend = "live";
  int sequences = 200;
  int length = 50;
  uint64_t seed = 1;
  bool json = false;
  bool match_variant = false;
  bool keep_going = false;
  int max_divergences = 1;
  std::vector<std::string> skip_scripts;
  MemoryLimitFlag memory_limit;
};

nlohmann::ordered_json note_json(const DivergenceNote& n) {
  return {{"sequence", n.sequence}, {"step", n.step}, {"script", std::string(script_name(n.kind))},
          {"call", n.call}, {"text", n.divergence}};
}

// The flags parsed (pure): the bounds, the scripts left out, the two sides.
struct DiffRequest {
  DiffArgs args;
  std::vector<ScriptKind> skip;
  BackendKind candidate = BackendKind::Live;
  BackendKind reference = BackendKind::Model;
  LuaLimits lua_limits = LuaBackend::default_limits();  // --memory-limit
};

DiffRequest validate_diff(const DiffArgs& args) {
  if (args.sequences < 1 || args.sequences > 10'000'000) {
    throw UsageError("--sequences must be between 1 and 10000000 (got " + std::to_string(args.sequences) + ")");
  }
  if (args.length < 1 || args.length > 100'000) {
    throw UsageError("--length must be between 1 and 100000 (got " + std::to_string(args.length) + ")");
  }
  if (args.max_divergences < 0 || args.max_divergences > 1'000'000) {
    throw UsageError("--max-divergences must be between 0 and 1000000 (got " +
                     std::to_string(args.max_divergences) + ")");
  }
  DiffRequest q;
  q.args = args;
  for (const std::string& name : args.skip_scripts) {
    const auto kind = script_from_name(name);
    if (!kind) {
      std::string names;
      for (ScriptKind k : all_script_kinds()) names += (names.empty() ? "" : ", ") + std::string(script_name(k));
      throw UsageError("--skip-script: unknown script '" + name + "' (known: " + names + ")");
    }
    q.skip.push_back(*kind);
  }
  // The candidate (the pack's Lua: live or lua) and the reference (the model
  // unless a pair names another).
  const auto pair = campaign_backend_from_name(args.backend);
  if (!pair || pair->checked == BackendKind::Model ||
      (!pair->reference && pair->checked != BackendKind::Live && pair->checked != BackendKind::Lua)) {
    throw UsageError("--backend: expected live, lua, or a candidate and a reference such as lua,live (got '" +
                     args.backend + "')");
  }
  q.candidate = pair->checked;
  q.reference = pair->reference.value_or(BackendKind::Model);
  if (args.match_variant && q.reference != BackendKind::Model) {
    throw UsageError("--match-variant only goes with the model as the reference");
  }
  q.lua_limits = validate_memory_limit(args.memory_limit);
  return q;
}

// The backends the two sides run on, the pack loaded once.
struct DiffBackends {
  std::unique_ptr<RedisServer> server;
  std::unique_ptr<LiveBackend> live;
  std::unique_ptr<LuaBackend> lua;
  std::unique_ptr<ModelBackend> model;
  DiffSide side(BackendKind kind) {
    switch (kind) {
      case BackendKind::Model: return DiffSide{model.get(), [m = model.get()] { m->wipe(); }};
      case BackendKind::Lua: return DiffSide{lua.get(), [l = lua.get()] { l->wipe(); }};
      case BackendKind::Live: return DiffSide{live.get(), [l = live.get()] { l->wipe(); }};
    }
    return DiffSide{};
  }
};

DiffBackends make_backends(const DiffRequest& q, const ScriptPack& pack, ModelVariant reference_variant) {
  DiffBackends out;
  try {
    if (q.candidate == BackendKind::Live || q.reference == BackendKind::Live) {
      RedisServerOptions options;
      options.initial_clock_us = kDiffEpochUs;
      out.server = std::make_unique<RedisServer>(options);
      out.live = std::make_unique<LiveBackend>(std::vector<ServerControl*>{out.server.get()}, pack, kDiffKeyPrefix);
    }
    if (q.candidate == BackendKind::Lua || q.reference == BackendKind::Lua) {
      out.lua = std::make_unique<LuaBackend>(1, pack, LuaAllocation::Malloc, q.lua_limits);
    }
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  } catch (const RedisError& e) {
    throw EnvironmentError(std::string("cannot start the live backend: ") + e.what());
  }
  out.model = std::make_unique<ModelBackend>(1, reference_variant);
  return out;
}

void print_diff_json(const DiffRequest& q, const DiffReport& report, const std::string& reference_name,
                     const std::string& candidate_name, bool go_on) {
  nlohmann::ordered_json out;
  out["sequences"] = report.sequences_run;
  out["steps"] = report.steps_run;
  out["divergences"] = report.divergences;
  out["counterexample_steps"] = report.counterexample ? report.counterexample->steps.size() : 0;
  if (report.divergences > 0) out["reproduced"] = report.reproduced;
  if (!q.args.skip_scripts.empty()) out["skipped_scripts"] = q.args.skip_scripts;
  if (report.first_divergence) out["divergence"] = note_json(*report.first_divergence);
  if (report.counterexample && report.counterexample_run.diverged_at) {
    out["counterexample_divergence"] = report.counterexample_run.divergence;
  }
  if (go_on) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const DivergenceNote& n : report.all_divergences) list.push_back(note_json(n));
    out["divergence_list"] = list;
    nlohmann::ordered_json per = nlohmann::ordered_json::object();
    for (ScriptKind k : all_script_kinds()) {
      const ScriptTally& t = report.per_script[static_cast<size_t>(k)];
      per[std::string(script_name(k))] = {{"agreed", t.agreed}, {"diverged", t.diverged}};
    }
    out["per_script"] = per;
  }
  std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  if (report.counterexample) {
    std::fprintf(stderr, "%s", format_counterexample(report, reference_name, candidate_name).c_str());
  }
}

void print_diff_text(const DiffRequest& q, const std::string& dir, const DiffReport& report,
                     const std::string& reference_name, const std::string& candidate_name, bool go_on) {
  std::printf("locksim diff: pack %s on %s vs %s, seed %llu\n", dir.c_str(), candidate_name.c_str(),
              reference_name.c_str(), static_cast<unsigned long long>(q.args.seed));
  std::printf("sequences: %d, steps: %lld, divergences: %d\n", report.sequences_run,
              static_cast<long long>(report.steps_run), report.divergences);
  if (!q.args.skip_scripts.empty()) {
    std::string names;
    for (const auto& n : q.args.skip_scripts) names += (names.empty() ? "" : ", ") + n;
    std::printf("skipped scripts: %s\n", names.c_str());
  }
  if (report.counterexample) {
    std::printf("%s", format_counterexample(report, reference_name, candidate_name).c_str());
  } else if (report.divergences == 0) {
    std::printf("all agree\n");
  }
  if (!go_on) return;
  std::printf("every divergence (after each, both servers start empty again):\n");
  for (const DivergenceNote& n : report.all_divergences) {
    std::printf("  sequence %d step %zu: %s: %s\n", n.sequence, n.step, n.call.c_str(), n.divergence.c_str());
  }
  std::printf("per script (steps agreed / diverged):\n");
  for (ScriptKind k : all_script_kinds()) {
    const ScriptTally& t = report.per_script[static_cast<size_t>(k)];
    std::printf("  %-20s %8lld %8lld\n", std::string(script_name(k)).c_str(), static_cast<long long>(t.agreed),
                static_cast<long long>(t.diverged));
  }
}

int run_diff(const DiffRequest& q) {
  const DiffArgs& args = q.args;
  const std::string dir = args.scripts.empty() ? ScriptPack::default_dir() : args.scripts;
  ScriptPack pack = [&] {
    try {
      return ScriptPack::load(dir);
    } catch (const ScriptPackError& e) {
      throw UsageError(std::string("bad script pack: ") + e.what());
    }
  }();
  if (args.match_variant && !pack.model_variant()) {
    throw UsageError("--match-variant: the pack " + dir + " names no model variant (no \"model_variant\" in its manifest), so there is nothing to match (without the flag it is compared with the correct model)");
  }
  const ModelVariant reference_variant =
      args.match_variant ? pack.model_variant().value_or(ModelVariant::Correct) : ModelVariant::Correct;
  DiffBackends backends = make_backends(q, pack, reference_variant);
  DiffOptions options;
  options.sequences = args.sequences;
  options.length = args.length;
  options.seed = args.seed;
  options.max_divergences = args.keep_going ? 0 : args.max_divergences;
  options.skip_scripts = q.skip;
  const bool go_on = options.max_divergences != 1;
  DiffReport report;
  try {
    report = run_differential(options, backends.side(q.reference), backends.side(q.candidate));
  } catch (const LuaScriptAbort& e) {
    throw UsageError(std::string("the lua backend stopped: ") + e.what());
  }
  const std::string reference_name = q.reference == BackendKind::Model
                                         ? "model(" + std::string(variant_name(reference_variant)) + ")"
                                         : std::string(backend_kind_name(q.reference));
  const std::string candidate_name(backend_kind_name(q.candidate));
  if (args.json) {
    print_diff_json(q, report, reference_name, candidate_name, go_on);
  } else {
    print_diff_text(q, dir, report, reference_name, candidate_name, go_on);
  }
  return report.divergences == 0 ? 0 : 1;
}

}  // namespace

void add_diff_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Differential test: a Lua script pack on live Redis (or the lua backend) against the model, with "
              "shrinking");
  cmd->add_option("--scripts", args->scripts, kScriptsHelp);
  cmd->add_option("--backend", args->backend,
                  "where the pack runs: live (default: its own redis-server, virtual clock), lua (the pack's Lua "
                  "in process), or CANDIDATE,REFERENCE to compare two of model, lua, live (lua,live: the lua "
                  "backend against live Redis); the reference is otherwise the model")
      ->capture_default_str();
  cmd->add_option("--sequences", args->sequences, "Number of random sequences (default 200)")
      ->capture_default_str()->transform(integer_in(1, 10'000'000));
  cmd->add_option("--length", args->length, "Steps per sequence (default 50)")
      ->capture_default_str()->transform(integer_in(1, 100'000));
  cmd->add_option("--seed", args->seed, "PRNG seed (default 1)")->capture_default_str()->transform(non_negative_integer());
  cmd->add_flag("--json", args->json, "Print one JSON summary object on stdout");
  cmd->add_flag("--match-variant", args->match_variant,
                "Compare against the model variant named by the pack's manifest instead of the correct model");
  cmd->add_flag("--keep-going", args->keep_going,
                "Go on past differences: after each, both servers start empty and the sequence goes on; list "
                "every divergence and how each script fared (the first is still shrunk)");
  cmd->add_option("--max-divergences", args->max_divergences,
                  "Go on past differences until N are listed (0: all; default 1: stop at the first)")
      ->capture_default_str()->transform(integer_in(0, 1'000'000));
  cmd->add_option("--skip-script", args->skip_scripts,
                  "Leave this script's steps out of every sequence (repeatable; e.g. fair_acquire_failed)");
  add_memory_limit_option(cmd, &args->memory_limit);
  cmd->callback([args, ctx] { ctx->exit_code = run_diff(validate_diff(*args)); });
}

}  // namespace locksim::cli
