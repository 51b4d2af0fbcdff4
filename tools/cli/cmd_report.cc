// The pages of runs directories, written again or anew:
//  - locksim report DIR: rebuilds DIR/report.html from DIR/summary.json and
//    the traces and timelines it names (reports/campaign_report.h), e.g.
//    after a merge by hand or with a newer locksim. Nothing else in DIR
//    changes. Exit 2: DIR is not a campaign's runs directory (no readable,
//    valid summary.json).
//  - locksim index DIR: writes DIR/index.html, listing the runs directories
//    in DIR (the default runs/, or the --out directories of several
//    campaigns) with their verdicts, newest name first (reports/runs_index.h).
//    Exit 2: DIR is not a directory or holds no runs directory.
// Exit 0: written; 3: the system refused the page (a read-only or full
// file system).
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "reports/campaign_report.h"
#include "reports/run_summary.h"
#include "reports/runs_index.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

// A subcommand `name DIR` that writes DIR/<file_name> with `write`.
void add_page_command(CLI::App& app, CliContext* ctx, const std::string& name, const std::string& description,
                      const std::string& dir_help, const std::string& file_name,
                      std::function<void(const std::string&, const ProgramName&)> write) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->add_option("dir", *dir, dir_help)->required();
  cmd->callback([dir, ctx, name, file_name, write] {
    if (!std::filesystem::is_directory(*dir)) throw UsageError(*dir + ": not a directory");
    try {
      write(*dir, ctx->program);
    } catch (const std::exception& e) {
      throw_output_failure(e);  // a page the system refused: exit 3; else 2
    }
    std::printf("%s: wrote %s\n", name.c_str(), (std::filesystem::path(*dir) / file_name).string().c_str());
    ctx->exit_code = 0;
  });
}

}  // namespace

void add_report_command(CLI::App& app, CliContext* ctx) {
  add_page_command(app, ctx, "report", "Rebuild a runs directory's report.html from its summary.json",
                   "a campaign's runs directory (campaign --out, or locksim merge --out)", kReportFileName,
                   [](const std::string& dir, const ProgramName& program) {
                     write_campaign_report(dir, ReportCommands{program.anywhere, absolute_path_text(dir)});
                   });
}

void add_index_command(CLI::App& app, CliContext* ctx) {
  add_page_command(app, ctx, "index", "Write index.html listing the runs directories in DIR with their verdicts",
                   "a directory of runs directories (e.g. runs/)", kRunsIndexFileName,
                   [](const std::string& dir, const ProgramName&) { write_runs_index(dir); });
}

}  // namespace locksim::cli
