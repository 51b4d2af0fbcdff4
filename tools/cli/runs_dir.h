// Default runs directories (campaign, explore): <root>/<UTC time>-<label>[-K]/
// under <root> = $LOCKSIM_RUNS_DIR, else "runs" in the current directory,
// and <root>/latest pointing at the last one put in place.
#pragma once

#include <string>

namespace locksim::cli {

// The root of default runs directories: $LOCKSIM_RUNS_DIR, else "runs".
std::string runs_root();

// <root>/<UTC time>-<label>[-K]/: a new, empty directory (-2, -3 ... when
// one of that name exists), which claims the name; the run is put there
// when it is complete (StagedRunDir), and only then does <root>/latest point
// at it (point_latest_at). Throws EnvironmentError when it cannot be created.
std::string new_run_dir(const std::string& label);

// <root>/latest -> the run dir's name, replaced in one step (rename over the
// old link). A failure is only reported on stderr, as `command` says.
void point_latest_at(const std::string& run_dir, const std::string& command);

}  // namespace locksim::cli
