// Runs index: index.html over a directory of runs directories (the default
// runs/, or any directory holding campaigns' --out directories), in the
// manner of Jepsen's `serve`: one row per run, newest name first, with its
// verdict, profile, lock kind, backend, seeds run and failed, the
// properties that failed, and links to its report.html and summary.json. A
// subdirectory without summary.json is not a run and is left out; one whose
// summary cannot be read is listed with the reason. Read only from the
// summaries: deterministic apart from them. Works offline, one file.
#pragma once

#include <string>

namespace locksim {

inline constexpr const char* kRunsIndexFileName = "index.html";

// Throws std::runtime_error when `dir` holds no runs directory.
std::string runs_index_html(const std::string& dir);

// Writes DIR/index.html (complete or not at all); the same errors, and
// OutputError when it cannot be written.
void write_runs_index(const std::string& dir);

}  // namespace locksim
