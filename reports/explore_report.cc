#include "reports/explore_report.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "reports/html_text.h"
#include "reports/run_files.h"
#include "reports/timeline.h"
#include "traces/output_file.h"
#include "traces/trace_reader.h"

namespace locksim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A JSON value as cell text ("" for null).
std::string cell(const json& j) {
  if (j.is_null()) return "";
  return html_escape(j.is_string() ? j.get<std::string>() : j.dump());
}

std::string row(const std::string& name, const std::string& value) {
  return "<tr><th>" + html_escape(name) + "</th><td>" + value + "</td></tr>\n";
}

// The counterexample's events, read from its trace (its first `events`).
std::string events_table(const json& v, const fs::path& dir) {
  if (!v["trace"].is_string()) return "<p>no trace written</p>\n";
  std::set<uint64_t> cited;
  for (const json& id : v["violation"]["event_ids"]) cited.insert(id.get<uint64_t>());
  const uint64_t events = v["events"].get<uint64_t>();
  std::ostringstream out;
  try {
    const int fd = open_run_file(dir.string(), v["trace"].get<std::string>(), kMaxRunFileBytes);
    std::ifstream text("/proc/self/fd/" + std::to_string(fd), std::ios::binary);
    ::close(fd);
    TraceReader reader(text, (dir / v["trace"].get<std::string>()).string());
    out << "<table><tr><th>#</th><th>true time (s)</th><th>event</th><th>client</th><th>description</th></tr>\n";
    Event e;
    for (uint64_t n = 0; n < events && reader.next(e); ++n) {
      char t[32];
      std::snprintf(t, sizeof t, "%.6f", static_cast<double>(e.true_us) / 1e6);
      out << (cited.count(e.id) != 0 ? "<tr class=\"cited\">" : "<tr>") << "<td>" << e.id << "</td><td>" << t
          << "</td><td>" << html_escape(event_kind_name(e.kind)) << "</td><td>"
          << (e.client >= 0 ? std::to_string(e.client) : std::string()) << "</td><td>" << html_escape(describe_event(e))
          << "</td></tr>\n";
    }
    out << "</table>\n";
  } catch (const std::exception& e) {
    return "<p class=\"fail\">cannot read the counterexample: " + html_escape(e.what()) + "</p>\n";
  }
  return out.str();
}

std::string svg_of(const json& v, const fs::path& dir) {
  if (!v["timeline"].is_string()) return "";
  try {
    const std::string svg = read_run_file(dir.string(), v["timeline"].get<std::string>(), kMaxInlinedSvgBytes);
    const size_t at = svg.find("<svg");
    return at == std::string::npos ? "" : svg.substr(at);
  } catch (const RunFileError& e) {
    return "<p class=\"fail\">cannot read the timeline: " + html_escape(e.what()) + "</p>\n";
  }
}

}  // namespace

std::string explore_report_html(const json& s, const std::string& dir_name) {
  const fs::path dir(dir_name);
  const json& config = s["configuration"];
  const json& counts = s["counts"];
  const json& violations = s["violations"];
  const json& timings = s["timings"];
  std::ostringstream out;
  const std::string title = "locksim explore: " + config["scenario"]["lock"].get<std::string>() + ", " +
                            std::to_string(config["scenario"]["clients"].get<int>()) + " client(s)";
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html_escape(title) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;max-width:80em}"
         "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%;"
         "text-align:left;vertical-align:top}.pass{color:#070}.fail{color:#b00}.note{color:#850}"
         "tr.cited td{background:#fdd}svg{max-width:100%;height:auto}</style></head><body>\n";
  out << "<h1>" << html_escape(title) << "</h1>\n";
  const bool complete = s["complete"].get<bool>();
  if (s.contains("timelines_not_drawn") && s["timelines_not_drawn"].is_string()) {
    out << "<p class=\"fail\">No timeline drawn: " << html_escape(s["timelines_not_drawn"].get<std::string>())
        << "</p>\n";
  }
  if (violations.empty()) {
    out << "<p class=\"pass\"><b>PASS: no property failed in " << cell(counts["distinct_states"])
        << " distinct states</b></p>\n";
  } else {
    out << "<p class=\"fail\"><b>FAIL: " << violations.size() << " propert" << (violations.size() == 1 ? "y" : "ies")
        << " violated</b></p>\n";
  }
  if (complete) {
    out << "<p class=\"pass\">COMPLETE: every schedule of this configuration was explored"
        << (violations.empty() ? "" : " (paths past a violation excepted)") << "</p>\n";
  } else {
    out << "<p class=\"note\">INCOMPLETE: stopped by " << cell(s["limit"]) << ": not every schedule was explored</p>\n";
  }
  std::string faults;
  for (const json& f : config["faults"]) faults += (faults.empty() ? "" : ", ") + f.get<std::string>();
  out << "<table>\n"
      << row("command", "<code>" + cell(s["command"]) + "</code>") << row("build", cell(s["build"]))
      << row("backend", cell(s["backend"])) << row("scenario", "<code>" + cell(config["scenario"]) + "</code>")
      << row("operations", "<code>" + cell(config["tasks"]) + "</code>")
      << row("faults", html_escape(faults.empty() ? "none" : faults) + " (at most " + cell(config["max_faults"]) +
                           " per schedule)")
      << row("search", cell(config["order"]) + ", max depth " + cell(config["max_depth"]) + ", max states " +
                           cell(config["max_states"]))
      << row("distinct states", cell(counts["distinct_states"]))
      << row("transitions", cell(counts["transitions"]) + " (" + cell(counts["terminal_transitions"]) + " ending a run)")
      << row("depth reached", cell(counts["max_depth"]))
      << row("time", cell(timings["wall_s"]) + " s, " + cell(timings["distinct_states_per_s"]) +
                         " distinct states/s, peak RSS " + cell(timings["peak_rss_mb"]) + " MB, " +
                         cell(timings["workers"]) + " worker(s)")
      << "</table>\n";
  for (const auto& [key, heading] : {std::pair<const char*, const char*>{"advisories", "Advisories"},
                                     {"explained", "Not failing: a fault is named (--unexplained-only)"}}) {
    if (s[key].empty()) continue;
    out << "<h2>" << heading << "</h2>\n<table><tr><th>property</th><th>transitions</th></tr>\n";
    for (const auto& [property, count] : s[key].items()) {
      out << "<tr><td>" << html_escape(property) << "</td><td>" << cell(count) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  for (const json& v : violations) {
    out << "<h2 class=\"fail\">" << cell(v["property"]) << "</h2>\n";
    out << "<p>" << cell(v["violation"]["message"]) << "</p>\n";
    out << "<table>\n"
        << row("depth", cell(v["depth"]) + " transitions; found after " + cell(v["distinct_before"]) +
                            " distinct states; " + cell(v["paths"]) + " violating transition(s) in all")
        << row("trace", cell(v["trace"]) + " (locksim replay / check / timeline)");
    if (v["live"].is_object()) {
      out << row("live redis-server", v["live"]["same_history"].get<bool>() && v["live"]["same_violation"].get<bool>()
                                          ? "confirmed: the same history and violation"
                                          : "<span class=\"fail\">not the same: " + cell(v["live"]["difference"]) +
                                                "</span>");
    }
    out << "</table>\n";
    out << events_table(v, dir);
    out << svg_of(v, dir);
  }
  out << "</body></html>\n";
  return out.str();
}

void write_explore_report(const std::string& dir, const json& summary) {
  OutputFile out((fs::path(dir) / "report.html").string());
  out.write(explore_report_html(summary, dir));
  out.commit();
}

}  // namespace locksim
