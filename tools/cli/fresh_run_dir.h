// A runs directory is written by one campaign or merge: its summary.json
// lists exactly the failures/ and timelines/ files next to it. Writing into a
// directory that already holds a run would leave the old run's traces and
// timelines beside a summary that does not name them, so campaign and merge
// refuse such a directory (exit 2) and ask for a new one.
#pragma once

#include <filesystem>
#include <string>

#include "reports/run_summary.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

// Throws UsageError when `dir` already holds a run's outputs: a summary, or
// its failures/ or timelines/ folder. (A report.html alone is not a run: a
// file of that name is refused later only if it is one of the inputs.)
inline void refuse_used_run_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* name : {kSummaryFileName, "failures", "timelines"}) {
    if (fs::exists(fs::path(dir) / name, ec)) {
      throw UsageError("'" + dir + "' already holds a run (" + name +
                       "): give --out a new or empty directory, or remove the old run");
    }
  }
}

}  // namespace locksim::cli
