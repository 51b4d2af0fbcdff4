// locksim index DIR: writes DIR/index.html, listing the runs directories in
// DIR (the default runs/, or the --out directories of several campaigns)
// with their verdicts, newest name first (reports/runs_index.h).
// Exit: 0 written; 2 DIR is not a directory, holds no runs directory, or
// the index cannot be written.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "reports/runs_index.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

int index_command(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) throw UsageError(dir + ": not a directory");
  try {
    write_runs_index(dir);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  std::printf("index: wrote %s\n", (std::filesystem::path(dir) / kRunsIndexFileName).string().c_str());
  return 0;
}

}  // namespace

void add_index_command(CLI::App& app, int* exit_code) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("index", "Write index.html listing the runs directories in DIR with their verdicts");
  cmd->add_option("dir", *dir, "a directory of runs directories (e.g. runs/)")->required();
  cmd->callback([dir, exit_code] { *exit_code = index_command(*dir); });
}

}  // namespace locksim::cli
