// Explore report: report.html of an explore runs directory (locksim explore,
// tools/cli/cmd_explore.cc), built from its summary.json (search/
// explore_json.h plus the command's fields) and the files it names: the
// verdict (complete or which limit, the violations), the configuration,
// the counts and timings, and for each failing property its first
// counterexample as a table (read from its trace, the violation's events
// marked) with its timeline inlined (the page stands alone). A file the
// summary names but the directory lacks is reported on the page.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

inline constexpr const char* kExploreSummaryFile = "summary.json";

// `dir`: where the summary's relative paths are resolved.
std::string explore_report_html(const nlohmann::json& summary, const std::string& dir);

// Writes DIR/report.html (complete or not at all) from `summary`, which
// DIR/summary.json holds. Throws OutputError when it cannot be written.
void write_explore_report(const std::string& dir, const nlohmann::json& summary);

}  // namespace locksim
