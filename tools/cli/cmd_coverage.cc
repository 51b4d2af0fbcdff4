// locksim coverage DIR [--all] [--json]: what a campaign's seeds exercised,
// read from DIR/summary.json (reports/coverage_report.h): per category the
// items covered of the universe, every item never covered with what it
// would have been, the rarest covered items, the distinct abstract states,
// and the counts over the seeds. --all lists every covered item too;
// --json prints the same as one JSON object.
// Exit: 0 shown; 2 DIR is not a campaign's runs directory (no readable,
// valid summary.json) or its summary records no coverage.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "reports/coverage_report.h"
#include "reports/run_files.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

struct CoverageArgs {
  std::string dir;
  bool all = false;
  bool json = false;
};

int coverage_command(const CoverageArgs& args) {
  if (!std::filesystem::is_directory(args.dir)) throw UsageError(args.dir + ": not a directory");
  nlohmann::json summary;
  try {
    summary = read_run_summary(args.dir);  // bounded, checked field by field
  } catch (const std::exception& e) {
    throw UsageError(std::string(e.what()) + " (is this a campaign's runs directory?)");
  }
  if (!summary.contains("coverage")) {
    throw UsageError(args.dir + "/summary.json records no coverage (written by a locksim that did not measure it): "
                     "run the campaign again");
  }
  if (args.json) {
    std::printf("%s\n", coverage_view_json(summary).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s", coverage_text(summary, args.all).c_str());
  }
  return 0;
}

}  // namespace

void add_coverage_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<CoverageArgs>();
  CLI::App* cmd = app.add_subcommand(
      "coverage", "What a campaign exercised and, above all, what it never did (from its runs directory)");
  cmd->add_option("dir", args->dir, "a campaign's runs directory (campaign --out, or locksim merge --out)")->required();
  cmd->add_flag("--all", args->all, "also list every covered item with its seed count and first seed");
  cmd->add_flag("--json", args->json,
                "print one JSON object: seeds, categories {covered, universe, outside}, never_covered, rarest, "
                "states, curve, covered");
  cmd->callback([args, ctx] { ctx->exit_code = coverage_command(*args); });
}

}  // namespace locksim::cli
