// locksim diff: differential test of a Lua script pack against the model.
// Starts its own redis-server (virtual clock), generates random script-call
// sequences (deterministic given --seed), runs each in lockstep on the model
// and on the live pack, compares replies, publishes and full key state after
// every step, and on the first divergence prints a shrunk counterexample (or,
// when the divergence does not happen again alike, says so and prints the
// unshrunk steps).
// Exit: 0 all agree, 1 divergence, 2 bad input / environment.
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "sim/differential.h"
#include "sim/live_backend.h"
#include "sim/model_backend.h"
#include "tools/cli/commands.h"
#include "tools/server/redis_server.h"

namespace locksim::cli {

namespace {

struct DiffArgs {
  std::string scripts;
  int sequences = 200;
  int length = 50;
  uint64_t seed = 1;
  bool json = false;
  bool match_variant = false;
};

int run_diff(const DiffArgs& args) {
  if (args.sequences < 1 || args.sequences > 10'000'000) {
    throw UsageError("--sequences must be between 1 and 10000000 (got " + std::to_string(args.sequences) + ")");
  }
  if (args.length < 1 || args.length > 100'000) {
    throw UsageError("--length must be between 1 and 100000 (got " + std::to_string(args.length) + ")");
  }
  const std::string dir = args.scripts.empty() ? ScriptPack::default_dir() : args.scripts;
  ScriptPack pack = [&] {
    try {
      return ScriptPack::load(dir);
    } catch (const ScriptPackError& e) {
      throw UsageError(std::string("bad script pack: ") + e.what());
    }
  }();
  const ModelVariant reference_variant =
      args.match_variant ? pack.model_variant().value_or(ModelVariant::Correct) : ModelVariant::Correct;

  std::unique_ptr<RedisServer> server;
  std::unique_ptr<LiveBackend> live;
  try {
    RedisServerOptions options;
    options.initial_clock_us = kDiffEpochUs;
    server = std::make_unique<RedisServer>(options);
    live = std::make_unique<LiveBackend>(std::vector<ServerControl*>{server.get()}, std::move(pack),
                                         kDiffKeyPrefix);
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  } catch (const RedisError& e) {
    throw UsageError(std::string("cannot start the live backend: ") + e.what());
  }
  ModelBackend model(1, reference_variant);

  DiffOptions options;
  options.sequences = args.sequences;
  options.length = args.length;
  options.seed = args.seed;
  const DiffSide reference{&model, [&model] { model.wipe(); }};
  const DiffSide candidate{live.get(), [&live] { live->wipe(); }};
  const DiffReport report = run_differential(options, reference, candidate);

  const std::string reference_name = "model(" + std::string(variant_name(reference_variant)) + ")";
  const std::string candidate_name = "live";
  const size_t counterexample_steps = report.counterexample ? report.counterexample->steps.size() : 0;
  if (args.json) {
    nlohmann::ordered_json out;
    out["sequences"] = report.sequences_run;
    out["steps"] = report.steps_run;
    out["divergences"] = report.divergences;
    out["counterexample_steps"] = counterexample_steps;
    if (report.divergences > 0) out["reproduced"] = report.reproduced;
    std::printf("%s\n", out.dump().c_str());
    if (report.counterexample) {
      std::fprintf(stderr, "%s", format_counterexample(report, reference_name, candidate_name).c_str());
    }
  } else {
    std::printf("locksim diff: pack %s vs %s, seed %llu\n", dir.c_str(), reference_name.c_str(),
                static_cast<unsigned long long>(args.seed));
    std::printf("sequences: %d, steps: %lld, divergences: %d\n", report.sequences_run,
                static_cast<long long>(report.steps_run), report.divergences);
    if (report.counterexample) {
      std::printf("%s", format_counterexample(report, reference_name, candidate_name).c_str());
    } else {
      std::printf("all agree\n");
    }
  }
  return report.divergences == 0 ? 0 : 1;
}

}  // namespace

void add_diff_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Differential test: a Lua script pack on live Redis against the model, with shrinking");
  cmd->add_option("--scripts", args->scripts,
                  "Script pack directory (default: $LOCKSIM_SCRIPTS or the built-in impl/lua)");
  cmd->add_option("--sequences", args->sequences, "Number of random sequences (default 200)")
      ->capture_default_str()->check(integer_in(1, 10'000'000));
  cmd->add_option("--length", args->length, "Steps per sequence (default 50)")
      ->capture_default_str()->check(integer_in(1, 100'000));
  cmd->add_option("--seed", args->seed, "PRNG seed (default 1)")->capture_default_str()->check(non_negative_integer());
  cmd->add_flag("--json", args->json, "Print one JSON summary object on stdout");
  cmd->add_flag("--match-variant", args->match_variant,
                "Compare against the model variant named by the pack's manifest instead of the correct model");
  cmd->callback([args, exit_code] { *exit_code = run_diff(*args); });
}

}  // namespace locksim::cli
