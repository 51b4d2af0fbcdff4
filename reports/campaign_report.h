// Campaign report: report.html of a campaign's runs directory, built only
// from DIR/summary.json (reports/run_summary.h) and the files it names, so
// that `locksim report DIR` rebuilds exactly what the campaign wrote. It
// shows the verdict, the configuration and counts, every property's
// result, the advisories, a table of every failure (seed, property, cause,
// the command that reproduces it; a drawn seed links to its section) and,
// for each failure with a timeline, a section with its explanation (the
// timeline's subtitle, reports/timeline.h), its timeline (the SVG inlined,
// explorable: zoom, pan, hover, click an event for its row), the plots of
// its seed's whole run over simulated time (operations per second by
// outcome, acquire latency, polls per second, the faults shaded; drawn by
// Dygraphs) and its events as a table (the shrunk counterexample's, or the
// events its timeline names, the violation's marked). Every script and
// style is inlined (reports/chart_library.h): the page stands alone and
// works offline. A file the summary names but the directory lacks is
// reported on the page, not fatal. The campaign's coverage has its section
// (reports/coverage_report.h). Deterministic apart from the summary's
// timings.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

// The commands report.html shows a reader to run (a replay of each trace),
// pasted anywhere: `program` (locksim's name on PATH, or its absolute path)
// and the traces by absolute paths under `shown_dir`, where the runs
// directory is (or will be, once a staged run is put in place).
struct ReportCommands {
  std::string program = "locksim";
  std::string shown_dir;  // absolute; empty: the paths relative to the directory
};

// `dir`: where the summary's relative paths are resolved.
std::string campaign_report_html(const nlohmann::json& summary, const std::string& dir,
                                 const ReportCommands& commands = {});

// Reads DIR/summary.json and writes DIR/report.html (complete or not at
// all). Throws std::runtime_error naming the file on an unreadable or
// invalid summary, OutputError when the report cannot be written.
void write_campaign_report(const std::string& dir, const ReportCommands& commands = {});

}  // namespace locksim
