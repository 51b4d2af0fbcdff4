// Campaign report: report.html of a campaign's runs directory, built only
// from DIR/summary.json (reports/run_summary.h) and the files it names, so
// that `locksim report DIR` rebuilds exactly what the campaign wrote. It
// shows the verdict, the configuration and counts, every property's
// result, the advisories, a table of every failure (seed, property, cause,
// the command that reproduces it) and, for each failure with a timeline,
// its explanation, its shrunk counterexample as a table (read from the
// counterexample's trace, the violation's events marked) and its timeline
// embedded (the SVG inlined: the page stands alone). A file the summary
// names but the directory lacks is reported on the page, not fatal.
// Deterministic apart from the summary's timings.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

// `dir`: where the summary's relative paths are resolved.
std::string campaign_report_html(const nlohmann::json& summary, const std::string& dir);

// Reads DIR/summary.json and writes DIR/report.html (complete or not at
// all). Throws std::runtime_error naming the file on an unreadable or
// invalid summary, OutputError when the report cannot be written.
void write_campaign_report(const std::string& dir);

}  // namespace locksim
