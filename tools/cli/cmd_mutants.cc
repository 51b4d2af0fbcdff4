// locksim mutants: runs every known mutant (client mutants and script
// mutants) through a campaign on the scenario template that exposes it,
// until a property catches it (bounded seeds), shrinks the counterexample and
// prints per mutant: caught or not, the property, seeds needed, wall time,
// counterexample length in events, and whether the counterexample's
// violation stays unexplained (no fault's re-run removes it: it must).
// --list prints the names only.
// Exit: 0 every mutant caught, 1 some mutant survived, 2 bad input.
#include <chrono>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "search/mutant_suite.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

struct MutantsArgs {
  bool list = false;
  bool json = false;
  int max_seeds = 200;
  std::string only;
  bool only_given = false;  // --only was on the command line (possibly empty)
};

int run_mutants_command(const MutantsArgs& args) {
  const auto specs = mutant_specs();
  if (args.only_given && args.only.empty()) throw UsageError("--only needs a mutant name (see locksim mutants --list)");
  if (args.list) {
    nlohmann::json names = nlohmann::json::array();
    for (const MutantSpec& s : specs) {
      if (args.only_given && s.name != args.only) continue;
      names.push_back(s.name);
    }
    if (names.empty()) throw UsageError("unknown mutant '" + args.only + "' (see locksim mutants --list)");
    if (args.json) {
      std::printf("%s\n", nlohmann::json{{"mutants", names}}.dump().c_str());
    } else {
      for (const auto& name : names) std::printf("%s\n", name.get<std::string>().c_str());
    }
    return 0;
  }
  if (args.max_seeds < 1 || args.max_seeds > 1'000'000) throw UsageError("--max-seeds must be between 1 and 1000000");
  bool found = args.only.empty();
  std::vector<MutantResult> results;
  for (const MutantSpec& spec : specs) {
    if (!args.only.empty() && spec.name != args.only) continue;
    found = true;
    std::fprintf(stderr, "mutants: %s (%s, %s) ...\n", spec.name.c_str(),
                 std::string(lock_kind_name(spec.tmpl.scenario.lock_kind)).c_str(), spec.tmpl.scenario.profile.name().c_str());
    const auto started = std::chrono::steady_clock::now();
    results.push_back(run_mutant(spec, args.max_seeds));
    results.back().wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (!found) throw UsageError("unknown mutant '" + args.only + "' (see locksim mutants --list)");
  bool all_caught = true;
  for (const MutantResult& r : results) all_caught = all_caught && r.caught;
  if (args.json) {
    std::printf("%s\n", mutant_results_to_json(results).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return all_caught ? 0 : 1;
  }
  std::printf("%-32s %-8s %-18s %6s %8s %7s  %s\n", "mutant", "caught", "property", "seeds", "wall_s", "events",
              "cause");
  for (const MutantResult& r : results) {
    const Cause* cause = r.counterexample ? &r.counterexample->violation.cause : nullptr;
    std::printf("%-32s %-8s %-18s %6d %8.2f %7zu  %s\n", r.name.c_str(), r.caught ? "yes" : "NO",
                r.caught ? r.property.c_str() : "-", r.seeds, r.wall_s, r.counterexample_events,
                cause == nullptr ? "-" : cause->confirmed() ? "EXPLAINED" : "unexplained");
  }
  for (const MutantResult& r : results) {
    if (r.caught) std::printf("\n%s: %s\n", r.name.c_str(), r.violation.c_str());
  }
  return all_caught ? 0 : 1;
}

}  // namespace

void add_mutants_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<MutantsArgs>();
  CLI::App* cmd = app.add_subcommand("mutants", "Check that every known mutant is caught by some property");
  cmd->add_flag("--list", args->list, "print the mutant names (with --only: that one), one per line");
  cmd->add_flag("--json", args->json, "print {\"mutants\":[...]} as JSON (with --list: the names)");
  cmd->add_option("--max-seeds", args->max_seeds, "seed budget per mutant")
      ->capture_default_str()->transform(integer_in(1, 1'000'000));
  CLI::Option* only = cmd->add_option("--only", args->only, "run just this mutant")->capture_default_str();
  cmd->callback([args, only, ctx] {
    args->only_given = only->count() > 0;
    ctx->exit_code = run_mutants_command(*args);
  });
}

}  // namespace locksim::cli
