#include "reports/campaign_report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "reports/campaign_text.h"
#include "reports/chart_library.h"
#include "reports/html_text.h"
#include "reports/coverage_report.h"
#include "reports/run_artifacts.h"
#include "reports/run_files.h"
#include "reports/run_plot.h"
#include "reports/run_summary.h"
#include "reports/timeline.h"
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

std::string event_row(const Event& e, bool cited, const std::string& section) {
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", static_cast<double>(e.true_us) / 1e6);
  std::string who = e.kind == EventKind::Script ? "redis " + std::to_string(e.server)
                                                : (e.client >= 0 ? "client " + std::to_string(e.client) : "");
  std::string what = describe_event(e);
  std::replace(what.begin(), what.end(), '\n', ' ');
  return "<tr id=\"" + section + "-e" + std::to_string(e.id) + "\"" + (cited ? " class=\"cited\"" : "") + "><td>" +
         std::to_string(e.id) + "</td><td>" + t + "</td><td>" + html(std::string(event_kind_name(e.kind))) +
         "</td><td>" + html(who) + "</td><td>" + html(e.owner) + "</td><td>" + html(what) + "</td></tr>\n";
}

constexpr const char* kEventTableHead =
    "<table><tr><th>id</th><th>true s</th><th>kind</th><th>where</th><th>owner</th><th>what</th></tr>\n";

std::set<uint64_t> ids_of(const json& j) {
  std::set<uint64_t> out;
  if (j.is_array())
    for (const json& id : j)
      if (id.is_number_unsigned()) out.insert(id.get<uint64_t>());
  return out;
}

// <dir>/<relative> opened as a run's file: without following links, a
// regular file of bounded size (reports/run_files.h), read through the
// descriptor's /proc name. Throws RunFileError.
std::unique_ptr<std::istream> open_run_stream(const fs::path& dir, const std::string& relative) {
  const int fd = open_run_file(dir.string(), relative, kMaxRunFileBytes);
  auto in = std::make_unique<std::ifstream>("/proc/self/fd/" + std::to_string(fd), std::ios::binary);
  ::close(fd);
  return in;
}

// A table of the events of <dir>/<trace> that `keep` selects, read until
// `more` says no more will be kept; the `cited` ones marked.
template <typename Keep, typename More>
std::string events_table(const fs::path& dir, const std::string& trace, const std::set<uint64_t>& cited,
                         const std::string& section, Keep&& keep, More&& more) {
  std::ostringstream out;
  try {
    const std::unique_ptr<std::istream> in = open_run_stream(dir, trace);
    TraceReader reader(*in, (dir / trace).string());
    out << kEventTableHead;
    Event e;
    for (uint64_t n = 0; more(n, e) && reader.next(e); ++n)
      if (keep(e)) out << event_row(e, cited.count(e.id) != 0, section);
    out << "</table>\n";
  } catch (const std::exception& e) {
    return "<p class=\"fail\">cannot read " + html(trace) + ": " + html(e.what()) + "</p>\n";
  }
  return out.str();
}

// The counterexample table: the first `events` events of its trace.
std::string counterexample_table(const json& cx, const fs::path& dir, const std::string& section) {
  const uint64_t events = cx.value("events", json(0)).is_number_unsigned() ? cx["events"].get<uint64_t>() : 0;
  return events_table(
      dir, str(cx, "trace"), ids_of(cx.value("event_ids", json())), section, [](const Event&) { return true; },
      [&](uint64_t n, const Event&) { return n < events; });
}

// The events a timeline names (its SVG classes "e<id>"), from <dir>/<trace>.
std::string drawn_events_table(const std::string& svg, const fs::path& dir, const std::string& trace,
                               const std::set<uint64_t>& cited, const std::string& section) {
  std::set<uint64_t> ids;
  const std::regex id_re(R"re(class="[^"]*\be(\d+)\b)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), id_re); it != std::sregex_iterator(); ++it)
    ids.insert(std::stoull((*it)[1]));
  if (ids.empty()) return "";
  const uint64_t last = *ids.rbegin();
  return events_table(
      dir, trace, cited, section, [&](const Event& e) { return ids.count(e.id) != 0; },
      [&](uint64_t n, const Event& e) { return n == 0 || e.id < last; });
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

// An inlined timeline the page's script makes explorable (reports/report_page.js).
std::string timeline_block(const std::string& svg, const std::string& section) {
  return "<div class=\"timeline\" data-section=\"" + section +
         "\"><div class=\"toolbar\"><button data-act=\"in\">+</button><button data-act=\"out\">&minus;</button>"
         "<button data-act=\"fit\">fit</button><button data-act=\"print\">1:1</button> wheel: zoom, drag: pan, "
         "double click: the whole picture; hover a mark for what it is, click an event for its row below</div>"
         "<div class=\"viewport\">" +
         svg + "</div><div class=\"tip\"></div></div>\n";
}

// A JSON block for the page's script; "</" cannot end the script early.
std::string json_script(const std::string& id, const json& data) {
  std::string text = data.dump();
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) text.replace(at, 2, "<\\/");
  return "<script type=\"application/json\" id=\"" + id + "\">" + text + "</script>\n";
}

std::string plots_block(const std::string& id, uint64_t seed) {
  return "<div class=\"plots\" data-plot=\"" + id +
         "\"><div class=\"note\">Seed " + std::to_string(seed) +
         ", its whole run over simulated time (drag to zoom, double click to reset; the plots zoom together). Shaded: "
         "<span class=\"swatch\" style=\"background:rgba(255,152,0,0.5)\"></span>client faults (pause, partition, "
         "clock jump, lost message) <span class=\"swatch\" style=\"background:rgba(97,97,97,0.5)\"></span>a crashed "
         "client's down time <span class=\"swatch\" style=\"background:rgba(183,28,28,0.4)\"></span>server restarts "
         "and failovers. Polls: the acquire scripts of waiting acquires (a busy poller shows as a plateau).</div>"
         "<div><div class=\"chart\" data-chart=\"ops\"></div><div class=\"labels\" data-labels=\"ops\"></div></div>"
         "<div><div class=\"chart\" data-chart=\"latency\"></div><div class=\"labels\" data-labels=\"latency\"></div></div>"
         "<div><div class=\"chart\" data-chart=\"polls\"></div><div class=\"labels\" data-labels=\"polls\"></div></div>"
         "</div>\n";
}

// The three kinds of result: unexplained violations, explained ones by
// cause kind, advisory reports; and what --unexplained-only set aside.
std::string results_html(const json& r) {
  const auto n = [&r](const char* key) { return r.contains(key) ? text(r[key]) : std::string("0"); };
  std::string kinds;
  if (r.contains("explained_by_kind") && r["explained_by_kind"].is_object())
    for (const auto& [kind, count] : r["explained_by_kind"].items())
      kinds += (kinds.empty() ? "" : ", ") + kind + ": " + text(count);
  std::string out = "<table><tr><th>unexplained violations</th><td class=\"" +
                    std::string(n("unexplained") == "0" ? "pass" : "fail") + "\">" + html(n("unexplained")) + " in " +
                    html(n("unexplained_seeds")) + " seed(s)</td></tr>\n<tr><th>explained violations</th><td>" +
                    html(n("explained")) + " in " + html(n("explained_seeds")) + " seed(s)" +
                    (kinds.empty() ? "" : " (" + html(kinds) + ")") +
                    "</td></tr>\n<tr><th>advisory reports</th><td>" + html(n("advisory")) + "</td></tr>\n</table>\n";
  if (n("set_aside") != "0")
    out += "<p>--unexplained-only set aside " + html(n("set_aside")) +
           " explained violation(s): re-runs showed each needs a fault the property permits.</p>\n";
  return out;
}

// A failure's cause: the confirmed one, or why it stays unexplained, with
// the checker's sentence.
std::string cause_cell(const json& f) {
  const json cause = f.value("cause", json());
  const std::string blamed = str(f, "blamed");
  if (!cause.is_object()) return blamed.empty() ? "unexplained" : "unexplained; blamed: " + blamed;
  std::string faults;
  if (cause.contains("faults") && cause["faults"].is_array())
    for (const json& fault : cause["faults"]) faults += (faults.empty() ? "" : "; ") + str(fault, "text");
  if (cause.value("confirmed", false))
    return "explained (" + str(cause, "kind") + ", confirmed by " + str(cause, "reruns") + " re-runs): " + faults;
  std::string out = "unexplained (" + str(cause, "status") + ")";
  if (!str(cause, "note").empty()) out += ": " + str(cause, "note");
  if (!blamed.empty()) out += "; blamed: " + blamed;
  return out;
}

}  // namespace

namespace {

// `text` as one shell word (single quotes where needed).
std::string shell_quoted(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=.,/:@%") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command that replays `trace` (a path relative to the runs directory).
std::string replay_command(const ReportCommands& commands, const std::string& trace) {
  const std::string path = commands.shown_dir.empty() ? trace : (fs::path(commands.shown_dir) / trace).string();
  return commands.program + " replay " + shell_quoted(path);
}

// A failure with a section of its own (a timeline or a counterexample): "f<index>".
bool drawn_failure(const json& f) {
  return !f.value("timeline", json()).is_null() || !f.value("counterexample", json()).is_null();
}

// The page's head, its title, the verdict and what stands beside it.
void report_verdict(std::ostringstream& out, const json& s, bool passed) {
  const json& config = s["configuration"];
  const json& counts = s["counts"];
  const std::string title = "locksim campaign: " + str(config["scenario"], "profile") + " / " +
                            str(config["scenario"], "lock");
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html(title) << "</title>\n"
      << "<style>" << chart_library_css() << "\n" << report_page_css() << "</style></head><body>\n";
  out << "<h1>" << html(title) << "</h1>\n";
  // The same headline as the campaign printed, first whether anything is
  // unexplained (reports/campaign_text.h); a summary without results (an
  // older format) says how many seeds failed.
  const bool has_results = s.contains("results") && s["results"].is_object();
  std::string headline = has_results ? format_headline(result_counts_from_summary(s)) : "";
  if (!headline.empty() && headline.back() == '\n') headline.pop_back();
  if (headline.empty())
    headline = "FAILED: " + text(counts["seeds_failed"]) + " of " + text(counts["seeds_run"]) + " seed(s) violated a property";
  out << "<p class=\"" << (passed ? "pass" : "fail") << "\"><b>" << html(passed ? "PASS: no property failed" : headline)
      << "</b></p>\n";
  if (s.contains("results") && s["results"].is_object()) out << results_html(s["results"]);
  if (s.value("vacuous", false)) {
    out << "<p class=\"fail\"><b>VACUOUS: no operation succeeded in any of the " << text(counts["seeds_run"])
        << " seed(s): nothing was checked" << (config.value("fail_vacuous", true) ? "" : " (accepted: --allow-vacuous)")
        << "</b></p>\n";
  }
  if (counts.value("script_errors", uint64_t{0}) > 0) {
    out << "<p class=\"fail\">script errors: " << text(counts["script_errors"])
        << " script execution(s) answered an error</p>\n";
  }
  if (s.contains("timelines_not_drawn")) {
    out << "<p class=\"fail\">No timeline drawn: " << html(str(s, "timelines_not_drawn")) << "</p>\n";
  }
}

// The campaign's configuration: command, build, backend, scenario, seeds,
// shards, events, timings.
void report_configuration(std::ostringstream& out, const json& s) {
  const json& config = s["configuration"];
  const json& counts = s["counts"];
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
}

void report_properties(std::ostringstream& out, const json& s) {
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
}

// The Failures table: a row per failure, its seed linked to its section
// (or its trace), its cause and the command that replays it.
void report_failures_table(std::ostringstream& out, const json& failures, const ReportCommands& commands) {
  out << "<h2>Failures</h2>\n<table><tr><th>seed</th><th>property</th><th>cause</th><th>reproduce</th></tr>\n";
  for (size_t k = 0; k < failures.size(); ++k) {
    const json& f = failures[k];
    const std::string seed = html(str(f, "seed"));
    out << "<tr><td>"
        << (drawn_failure(f) ? "<a href=\"#f" + std::to_string(k) + "\">" + seed + "</a>"
                             : "<a href=\"" + html(str(f, "trace")) + "\">" + seed + "</a>")
        << "</td><td>" << html(str(f, "property")) << "</td><td>" << html(cause_cell(f)) << "</td><td><code>"
        << html(replay_command(commands, str(f, "trace"))) << "</code></td></tr>\n";
  }
  out << "</table>\n<p>A seed links to its section (its timeline, plots and events) when it was drawn, else to "
         "its full trace.</p>\n";
}

// A passing campaign's sample timeline and its first seed's plots.
void report_sample(std::ostringstream& out, const json& s, const fs::path& dir) {
  if (!fs::exists(dir / kSampleTimelineFile)) return;
  const std::string svg = inline_svg(dir, kSampleTimelineFile);
  out << "<h2>Sample timeline</h2>\n<p><a href=\"" << kSampleTimelineFile << "\">" << kSampleTimelineFile
      << "</a>: the first events of the first seed</p>\n";
  if (!svg.empty()) out << timeline_block(svg, "sample");
  // The first seed's whole run, plotted as it ran (campaign time).
  json plot;
  try {
    plot = json::parse(read_run_file(dir.string(), kSamplePlotFile, kMaxInlinedSvgBytes), nullptr, false);
  } catch (const RunFileError&) {
    plot = json();  // absent (a shard, a merge) or unreadable: no plots
  }
  if (plot.is_object()) {
    out << plots_block("plot-sample", s["configuration"].value("base_seed", json(1)).get<uint64_t>());
    out << json_script("plot-sample", plot);
  }
}

// A failure's section head: its explanation, its traces and their replay commands.
void failure_head(std::ostringstream& out, const json& f, const std::string& section, const ReportCommands& commands) {
  out << "<h2 class=\"fail\" id=\"" << section << "\">seed " << html(str(f, "seed")) << ": " << html(str(f, "property"))
      << "</h2>\n";
  out << "<p class=\"subtitle\">" << html(violation_subtitle(str(f, "explanation"), cause_cell(f))) << "</p>\n";
  out << "<p>Full trace: <a href=\"" << html(str(f, "trace")) << "\">" << html(str(f, "trace")) << "</a> &mdash; <code>"
      << html(replay_command(commands, str(f, "trace"))) << "</code>";
  if (!f.value("shrunk_trace", json()).is_null()) {
    out << "<br>Shrunk counterexample: <a href=\"" << html(str(f, "shrunk_trace")) << "\">" << html(str(f, "shrunk_trace"))
        << "</a> &mdash; <code>" << html(replay_command(commands, str(f, "shrunk_trace"))) << "</code>";
  }
  out << "</p>\n";
}

// The seed's plots, from its full trace, its data written once per seed
// (into `data_blocks`, at the page's end).
void failure_plots(std::ostringstream& out, const json& f, const fs::path& dir,
                   std::map<uint64_t, std::string>* plots_of_seed, std::ostringstream* data_blocks) {
  const uint64_t seed = f.value("seed", json(0)).is_number_unsigned() ? f["seed"].get<uint64_t>() : 0;
  auto plots = plots_of_seed->find(seed);
  if (plots == plots_of_seed->end()) {
    json data;
    try {
      const std::unique_ptr<std::istream> in = open_run_stream(dir, str(f, "trace"));
      data = run_plot_of_stream(*in, (dir / str(f, "trace")).string());
    } catch (const RunFileError&) {
      data = json();  // the trace is listed as missing above
    }
    if (!data.is_null()) {
      plots = plots_of_seed->emplace(seed, "plot-" + std::to_string(seed)).first;
      *data_blocks << json_script(plots->second, data);
    }
  }
  if (plots != plots_of_seed->end()) out << plots_block(plots->second, seed);
}

// The failure's events: its shrunk counterexample's, or those its timeline draws.
void failure_events(std::ostringstream& out, const json& f, const fs::path& dir, const std::string& section,
                    const std::string& svg) {
  if (f.value("counterexample", json()).is_null()) {
    if (!svg.empty()) out << "<h3>The events drawn</h3>\n" << drawn_events_table(svg, dir, str(f, "trace"), {}, section);
    return;
  }
  const json& cx = f["counterexample"];
  out << "<h3>Shrunk counterexample (" << html(cx.value("extent", str(cx, "events") + " trace events"))
      << ")</h3>\n<pre>" << html(str(cx, "violation")) << "</pre>\n";
  std::string also;
  for (const json& p : cx.value("also_violates", json::array())) {
    if (p.is_string()) also += (also.empty() ? "" : ", ") + p.get<std::string>();
  }
  if (!also.empty()) {
    out << "<p class=\"note\">Its plan, run to its end, also violates " << html(also)
        << ": shrinking could not separate that from this counterexample.</p>\n";
  }
  out << counterexample_table(cx, dir, section);
}

// A drawn failure's section: head, timeline, plots, events.
void failure_section(std::ostringstream& out, const json& s, const json& f, const std::string& section,
                     const fs::path& dir, const ReportCommands& commands, std::map<uint64_t, std::string>* plots_of_seed,
                     std::ostringstream* data_blocks) {
  failure_head(out, f, section, commands);
  std::string svg;
  if (f.value("timeline", json()).is_null() && s.contains("timelines_not_drawn")) {
    out << "<p class=\"fail\">timeline not drawn: Graphviz's dot could not be run</p>\n";
  }
  if (!f.value("timeline", json()).is_null()) {
    svg = inline_svg(dir, str(f, "timeline"));
    out << "<p><a href=\"" << html(str(f, "timeline")) << "\">" << html(str(f, "timeline")) << "</a></p>\n";
    out << (svg.empty() ? "<p class=\"fail\">timeline missing: " + html(str(f, "timeline")) + "</p>\n"
                        : timeline_block(svg, section));
  }
  failure_plots(out, f, dir, plots_of_seed, data_blocks);
  failure_events(out, f, dir, section, svg);
}

}  // namespace

std::string campaign_report_html(const json& s, const std::string& dir_name, const ReportCommands& commands) {
  const fs::path dir(dir_name);
  const json& config = s["configuration"];
  const json& failures = s["failures"];
  const bool passed = failures.empty() && !(s.value("vacuous", false) && config.value("fail_vacuous", true));
  std::ostringstream out;
  report_verdict(out, s, passed);
  report_configuration(out, s);
  report_properties(out, s);
  // Coverage: right here when the campaign passed (what it tried is then
  // the news), after the failures otherwise.
  if (passed) out << coverage_html(s);
  if (!passed) report_failures_table(out, failures, commands);
  if (passed) report_sample(out, s, dir);
  std::map<uint64_t, std::string> plots_of_seed;  // seed -> its data block's id
  std::ostringstream data_blocks;
  for (size_t k = 0; k < failures.size(); ++k) {
    if (!drawn_failure(failures[k])) continue;
    failure_section(out, s, failures[k], "f" + std::to_string(k), dir, commands, &plots_of_seed, &data_blocks);
  }
  if (!passed) out << coverage_html(s);
  out << data_blocks.str();
  out << "<script>" << chart_library_js() << "</script>\n<script>" << report_page_js() << "</script>\n";
  out << "</body></html>\n";
  return out.str();
}

void write_campaign_report(const std::string& dir_name, const ReportCommands& commands) {
  const fs::path dir(dir_name);
  json summary;
  try {
    summary = read_run_summary(dir_name);  // bounded, checked field by field
  } catch (const RunFileError& e) {
    throw std::runtime_error(std::string(e.what()) + " (is this a campaign's runs directory?)");
  }
  OutputFile out((dir / kReportFileName).string());  // complete or not at all
  out.write(campaign_report_html(summary, dir_name, commands));
  out.commit();
}

}  // namespace locksim
