#include "reports/campaign_report.h"

#include "traces/output_file.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "reports/timeline.h"

namespace locksim {

namespace {

std::string html(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string event_row(const Event& e) {
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", static_cast<double>(e.true_us) / 1e6);
  std::string who = e.kind == EventKind::Script ? "redis " + std::to_string(e.server)
                                                : (e.client >= 0 ? "client " + std::to_string(e.client) : "");
  return "<tr><td>" + std::to_string(e.id) + "</td><td>" + t + "</td><td>" + html(std::string(event_kind_name(e.kind))) +
         "</td><td>" + html(who) + "</td><td>" + html(e.owner) + "</td><td>" + html(describe_event(e)) + "</td></tr>\n";
}

}  // namespace

std::string campaign_report_html(const CampaignReport& r) {
  std::ostringstream out;
  const bool passed = r.seeds_failed == 0;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html(r.title) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;max-width:70em}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%;text-align:left}"
         ".pass{color:#070}.fail{color:#b00}pre{background:#f6f6f6;padding:.5em}</style></head><body>\n";
  out << "<h1>" << html(r.title) << "</h1>\n";
  out << "<p class=\"" << (passed ? "pass" : "fail") << "\"><b>"
      << (passed ? "PASS: no property failed" : "FAIL: " + std::to_string(r.seeds_failed) + " seed(s) violated a property")
      << "</b></p>\n";
  out << "<table>\n"
      << "<tr><th>command</th><td><code>" << html(r.command_line) << "</code></td></tr>\n"
      << "<tr><th>backend</th><td>" << html(r.backend) << "</td></tr>\n"
      << "<tr><th>profile</th><td>" << html(r.profile) << "</td></tr>\n"
      << "<tr><th>lock</th><td>" << html(r.lock_kind) << "</td></tr>\n"
      << "<tr><th>mutant</th><td>" << html(r.mutant.empty() ? "none (correct system)" : r.mutant) << "</td></tr>\n"
      << "<tr><th>seeds</th><td>" << r.first_seed << " .. " << (r.first_seed + r.seeds_run - (r.seeds_run ? 1 : 0))
      << " (" << r.seeds_run << " run, " << r.seeds_failed << " failed)</td></tr>\n"
      << "<tr><th>events checked</th><td>" << r.events_checked << "</td></tr>\n"
      << "<tr><th>wall time</th><td>" << r.wall_s << " s</td></tr>\n"
      << "</table>\n";
  if (!r.timeline_file.empty()) {
    out << "<h2>Sample timeline</h2>\n<p><a href=\"" << html(r.timeline_file) << "\">" << html(r.timeline_file)
        << "</a></p>\n<img src=\"" << html(r.timeline_file) << "\" style=\"max-width:100%\">\n";
  }
  for (const auto& f : r.failures) {
    out << "<h2 class=\"fail\">seed " << f.seed << ": " << html(f.property) << "</h2>\n";
    out << "<pre>" << html(f.explanation) << "</pre>\n";
    if (!r.failing_trace_file.empty()) {
      out << "<p>Full trace of this seed: <a href=\"" << html(r.failing_trace_file) << "\">" << html(r.failing_trace_file)
          << "</a> &mdash; reproduce it with <code>locksim replay " << html(r.failing_trace_file) << "</code></p>\n";
    }
    if (!f.timeline_file.empty()) {
      out << "<p><a href=\"" << html(f.timeline_file) << "\"><img src=\"" << html(f.timeline_file)
          << "\" style=\"max-width:100%\"></a></p>\n";
    }
    if (!f.counterexample.empty()) {
      out << "<table><tr><th>id</th><th>true s</th><th>kind</th><th>where</th><th>owner</th><th>what</th></tr>\n";
      for (const auto& e : f.counterexample) out << event_row(e);
      out << "</table>\n";
    }
  }
  out << "</body></html>\n";
  return out.str();
}

void write_campaign_report(const CampaignReport& report, const std::string& path) {
  OutputFile out(path);  // complete or not at all
  out.write(campaign_report_html(report));
  out.commit();
}

}  // namespace locksim
