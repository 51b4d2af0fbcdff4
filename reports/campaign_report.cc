#include "reports/html_text.h"
#include "reports/campaign_report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "reports/run_files.h"
#include "reports/run_summary.h"
#include "reports/run_artifacts.h"
#include "reports/timeline.h"
#include "traces/byte_text.h"
#include "traces/output_file.h"
#include "traces/trace_reader.h"

namespace locksim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string html(const std::string& raw) { return html_escape(raw); }

// A JSON value as text for a table cell ("" for null).
std::string text(const json& j) {
  if (j.is_null()) return "";
  if (j.is_string()) return j.get<std::string>();
  return j.dump();
}

std::string str(const json& j, const char* key) { return j.contains(key) ? text(j[key]) : ""; }

std::string event_row(const Event& e, bool cited) {
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", static_cast<double>(e.true_us) / 1e6);
  std::string who = e.kind == EventKind::Script ? "redis " + std::to_string(e.server)
                                                : (e.client >= 0 ? "client " + std::to_string(e.client) : "");
  return std::string(cited ? "<tr class=\"cited\">" : "<tr>") + "<td>" + std::to_string(e.id) + "</td><td>" + t +
         "</td><td>" + html(std::string(event_kind_name(e.kind))) + "</td><td>" + html(who) + "</td><td>" +
         html(e.owner) + "</td><td>" + html(describe_event(e)) + "</td></tr>\n";
}

// The counterexample table: the first `events` events of its trace.
std::string counterexample_table(const json& cx, const fs::path& dir) {
  const std::string trace = str(cx, "trace");
  const uint64_t events = cx.value("events", json(0)).is_number_unsigned() ? cx["events"].get<uint64_t>() : 0;
  std::set<uint64_t> cited;
  if (cx.contains("event_ids") && cx["event_ids"].is_array())
    for (const json& id : cx["event_ids"])
      if (id.is_number_unsigned()) cited.insert(id.get<uint64_t>());
  std::ostringstream out;
  try {
    // Opened without following links (reports/run_files.h), read through
    // the descriptor's /proc name.
    const int fd = open_run_file(dir.string(), trace, kMaxRunFileBytes);
    std::ifstream text("/proc/self/fd/" + std::to_string(fd), std::ios::binary);
    ::close(fd);
    TraceReader reader(text, (dir / trace).string());
    out << "<table><tr><th>id</th><th>true s</th><th>kind</th><th>where</th><th>owner</th><th>what</th></tr>\n";
    Event e;
    for (uint64_t n = 0; n < events && reader.next(e); ++n) out << event_row(e, cited.count(e.id) != 0);
    out << "</table>\n";
  } catch (const std::exception& e) {
    return "<p class=\"fail\">cannot read the counterexample: " + html(e.what()) + "</p>\n";
  }
  return out.str();
}

// The SVG file's <svg> element, to inline it ("" when it cannot be read:
// absent, a link, not a regular file, too large).
std::string inline_svg(const fs::path& dir, const std::string& relative) {
  std::string svg;
  try {
    svg = read_run_file(dir.string(), relative, kMaxInlinedSvgBytes);
  } catch (const RunFileError&) {
    return "";
  }
  const size_t at = svg.find("<svg");
  return at == std::string::npos ? "" : svg.substr(at);
}

}  // namespace

std::string campaign_report_html(const json& s, const std::string& dir_name) {
  const fs::path dir(dir_name);
  const json& config = s["configuration"];
  const json& counts = s["counts"];
  const json& failures = s["failures"];
  const bool passed = failures.empty() && !(s.value("vacuous", false) && config.value("fail_vacuous", true));
  std::ostringstream out;
  const std::string title = "locksim campaign: " + str(config["scenario"], "profile") + " / " +
                            str(config["scenario"], "lock");
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html(title) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;max-width:80em}"
         "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%;"
         "text-align:left;vertical-align:top}.pass{color:#070}.fail{color:#b00}tr.cited td{background:#fdd}"
         "pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}svg{max-width:100%;height:auto}</style>"
         "</head><body>\n";
  out << "<h1>" << html(title) << "</h1>\n";
  out << "<p class=\"" << (passed ? "pass" : "fail") << "\"><b>"
      << (passed ? "PASS: no property failed"
                 : "FAIL: " + text(counts["seeds_failed"]) + " of " + text(counts["seeds_run"]) +
                       " seed(s) violated a property")
      << "</b></p>\n";
  if (s.value("vacuous", false)) {
    out << "<p class=\"fail\"><b>VACUOUS: no operation succeeded in any of the " << text(counts["seeds_run"])
        << " seed(s): nothing was checked" << (config.value("fail_vacuous", true) ? "" : " (accepted: --allow-vacuous)")
        << "</b></p>\n";
  }
  if (counts.value("script_errors", uint64_t{0}) > 0) {
    out << "<p class=\"fail\">script errors: " << text(counts["script_errors"])
        << " script execution(s) answered an error</p>\n";
  }
  const json& scenario = config["scenario"];
  out << "<table>\n"
      << "<tr><th>command</th><td><code>" << html(str(s, "command")) << "</code></td></tr>\n"
      << "<tr><th>build</th><td>" << html(str(s, "build")) << "</td></tr>\n"
      << "<tr><th>backend</th><td>" << html(str(config, "backend")) << "</td></tr>\n"
      << "<tr><th>scenario</th><td><code>" << html(scenario.dump()) << "</code></td></tr>\n"
      << "<tr><th>seeds</th><td>" << html(str(config, "seeds")) << " from " << html(str(config, "base_seed")) << " ("
      << html(str(counts, "seeds_run")) << " run, " << html(str(counts, "seeds_failed")) << " failed)</td></tr>\n";
  if (s.contains("merged_from")) {
    out << "<tr><th>merged from</th><td>";
    for (const json& d : s["merged_from"]) out << "<code>" << html(text(d)) << "</code> ";
    out << "</td></tr>\n";
  } else if (s["shard"].is_object() && s["shard"].value("count", json(1)) != 1) {
    out << "<tr><th>shard</th><td>" << html(str(s["shard"], "index")) << "/" << html(str(s["shard"], "count"))
        << " (seed indexes i with i % count == index)</td></tr>\n";
  }
  out << "<tr><th>events checked</th><td>" << html(str(counts, "events_checked")) << "</td></tr>\n";
  if (s.contains("timings")) {
    const json& t = s["timings"];
    char line[160];
    std::snprintf(line, sizeof line, "%.1f s wall, %.1f seeds/s, %.0f simulated s per wall s",
                  t.value("wall_s", 0.0), t.value("seeds_per_s", 0.0), t.value("simulated_s_per_wall_s", 0.0));
    out << "<tr><th>timings</th><td>" << line << "</td></tr>\n";
  }
  out << "</table>\n";
  out << "<h2>Properties</h2>\n<table><tr><th>property</th><th>result</th><th>seeds</th><th>violations</th></tr>\n";
  for (const auto& [name, p] : s["properties"].items()) {
    const std::string result = str(p, "result");
    out << "<tr><td>" << html(name) << "</td><td class=\"" << (result == "fail" ? "fail" : "pass") << "\">"
        << html(result) << "</td><td>" << html(str(p, "seeds")) << "</td><td>" << html(str(p, "violations"))
        << "</td></tr>\n";
  }
  out << "</table>\n";
  for (const auto& [name, a] : s["advisories"].items()) {
    out << "<p>" << html(name) << " (advisory, not failing): " << html(str(a, "reports")) << " report(s) in "
        << html(str(a, "seeds")) << " seed(s); first at seed " << html(str(a, "first_seed")) << ": "
        << html(str(a, "first_report")) << "</p>\n";
  }
  if (!passed) {
    out << "<h2>Failures</h2>\n<table><tr><th>seed</th><th>property</th><th>cause</th><th>reproduce</th></tr>\n";
    for (const json& f : failures) {
      const std::string cause = str(f, "cause");
      out << "<tr><td>" << html(str(f, "seed")) << "</td><td>" << html(str(f, "property")) << "</td><td>"
          << html(cause.empty() ? "no recorded fault explains it" : cause) << "</td><td><code>"
          << html(str(f, "reproduce")) << "</code></td></tr>\n";
    }
    out << "</table>\n";
  }
  if (passed && fs::exists(dir / kSampleTimelineFile)) {
    const std::string svg = inline_svg(dir, kSampleTimelineFile);
    out << "<h2>Sample timeline</h2>\n<p><a href=\"" << kSampleTimelineFile << "\">" << kSampleTimelineFile
        << "</a>: the first events of the first seed</p>\n";
    if (!svg.empty()) out << "<div class=\"timeline\">" << svg << "</div>\n";
  }
  for (const json& f : failures) {
    if (f.value("timeline", json()).is_null() && f.value("counterexample", json()).is_null()) continue;
    out << "<h2 class=\"fail\">seed " << html(str(f, "seed")) << ": " << html(str(f, "property")) << "</h2>\n";
    out << "<pre>" << html(str(f, "explanation")) << "</pre>\n";
    out << "<p>Full trace: <a href=\"" << html(str(f, "trace")) << "\">" << html(str(f, "trace"))
        << "</a> &mdash; <code>" << html(str(f, "reproduce")) << "</code>";
    if (!f.value("shrunk_trace", json()).is_null()) {
      out << "<br>Shrunk counterexample: <a href=\"" << html(str(f, "shrunk_trace")) << "\">"
          << html(str(f, "shrunk_trace")) << "</a> &mdash; <code>locksim replay " << html(str(f, "shrunk_trace"))
          << "</code>";
    }
    out << "</p>\n";
    if (!f.value("timeline", json()).is_null()) {
      const std::string svg = inline_svg(dir, str(f, "timeline"));
      out << "<p><a href=\"" << html(str(f, "timeline")) << "\">" << html(str(f, "timeline")) << "</a></p>\n";
      out << (svg.empty() ? "<p class=\"fail\">timeline missing: " + html(str(f, "timeline")) + "</p>\n"
                          : "<div class=\"timeline\">" + svg + "</div>\n");
    }
    if (!f.value("counterexample", json()).is_null()) {
      const json& cx = f["counterexample"];
      out << "<h3>Shrunk counterexample (" << html(str(cx, "events")) << " events)</h3>\n<pre>"
          << html(str(cx, "violation")) << "</pre>\n"
          << counterexample_table(cx, dir);
    }
  }
  out << "</body></html>\n";
  return out.str();
}

void write_campaign_report(const std::string& dir_name) {
  const fs::path dir(dir_name);
  json summary;
  try {
    summary = read_run_summary(dir_name);  // bounded, checked field by field
  } catch (const RunFileError& e) {
    throw std::runtime_error(std::string(e.what()) + " (is this a campaign's runs directory?)");
  }
  OutputFile out((dir / kReportFileName).string());  // complete or not at all
  out.write(campaign_report_html(summary, dir_name));
  out.commit();
}

}  // namespace locksim
