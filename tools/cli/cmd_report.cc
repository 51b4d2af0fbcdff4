// locksim report DIR: rebuilds DIR/report.html from DIR/summary.json and the
// traces and timelines it names (reports/campaign_report.h), e.g. after a
// merge by hand or with a newer locksim. Nothing else in DIR changes.
// Exit: 0 written; 2 DIR is not a campaign's runs directory (no readable,
// valid summary.json) or the report cannot be written.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "reports/campaign_report.h"
#include "reports/run_summary.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

int report_command(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) throw UsageError(dir + ": not a directory");
  try {
    write_campaign_report(dir);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  std::printf("report: wrote %s\n", (std::filesystem::path(dir) / kReportFileName).string().c_str());
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, int* exit_code) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("report", "Rebuild a runs directory's report.html from its summary.json");
  cmd->add_option("dir", *dir, "a campaign's runs directory (campaign --out, or locksim merge --out)")->required();
  cmd->callback([dir, exit_code] { *exit_code = report_command(*dir); });
}

}  // namespace locksim::cli
