// Summary check: whether an untrusted summary.json (reports/run_summary.h
// gives its layout) is one this build reads, before `merge`, `runs` or the
// report page trust a field of it. Apart from the writer so that it needs
// only the JSON and the names it checks against (the fuzz target
// fuzz/fuzz_run_summary.cc is built from these few sources).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

// Throws std::runtime_error naming the file and the field's path when
// `summary` is not a summary this build reads: format and version, every
// field's type and range, counts that agree with each other, seeds within
// the campaign and the directory's shard, each (seed, property) once, and
// only the file names a campaign writes (reports/run_files.h).
void check_summary_json(const nlohmann::json& summary, const std::string& name);

}  // namespace locksim
