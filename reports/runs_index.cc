#include "reports/runs_index.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/chart_library.h"
#include "reports/html_text.h"
#include "reports/run_files.h"
#include "reports/run_summary.h"
#include "traces/output_file.h"

namespace locksim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string escape(const std::string& s) { return html_escape(s); }


std::string field(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

// A link to <name>/<file>, relative to the index whatever the name holds
// (html_text.h: url_path_segment): never a scheme, never outside.
std::string run_href(const std::string& name, const char* file) {
  return "./" + url_path_segment(name) + "/" + file;
}

// One row: the run's name, linked, then what its summary says.
std::string run_row(const std::string& name, const fs::path& summary_path) {
  const std::string link = "<a href=\"" + run_href(name, kReportFileName) + "\">" + escape(name) + "</a>";
  json s;
  try {
    s = read_run_summary(summary_path.parent_path().string());  // bounded, checked field by field
  } catch (const std::exception& e) {
    return "<tr><td>" + link + "</td><td class=\"verdict-fail\">unreadable</td><td colspan=\"6\">" + escape(e.what()) +
           "</td></tr>\n";
  }
  const json& config = s["configuration"];
  const json& scenario = config["scenario"];
  const json& counts = s["counts"];
  const bool passed = s["failures"].empty();
  std::string failing;
  for (const auto& [property, p] : s["properties"].items())
    if (field(p, "result") == "fail") failing += (failing.empty() ? "" : ", ") + property;
  std::string shard;
  if (s.contains("merged_from")) shard = " (merged)";
  else if (s["shard"].is_object() && s["shard"].value("count", json(1)) != 1)
    shard = " (shard " + field(s["shard"], "index") + "/" + field(s["shard"], "count") + ")";
  return "<tr><td>" + link + shard + "</td><td class=\"verdict-" + (passed ? "pass\">PASS" : "fail\">FAIL") +
         "</td><td>" + escape(field(scenario, "profile")) + "</td><td>" + escape(field(scenario, "lock")) +
         (field(scenario, "mutant").empty() || field(scenario, "mutant") == "none"
              ? std::string()
              : " (mutant " + escape(field(scenario, "mutant")) + ")") +
         "</td><td>" +
         escape(field(config, "backend")) + "</td><td>" + escape(field(counts, "seeds_run")) + " / " +
         escape(field(counts, "seeds_failed")) + "</td><td>" + escape(failing) + "</td><td><a href=\"" +
         run_href(name, kSummaryFileName) + "\">summary.json</a></td></tr>\n";
}

}  // namespace

std::string runs_index_html(const std::string& dir_name) {
  const fs::path dir(dir_name);
  std::vector<std::string> runs;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    // runs/latest is a link to one of the others: listed once, by its name.
    if (entry.is_symlink() || !entry.is_directory()) continue;
    if (fs::exists(entry.path() / kSummaryFileName)) runs.push_back(entry.path().filename().string());
  }
  if (ec) throw std::runtime_error(dir_name + ": cannot list the directory: " + ec.message());
  if (runs.empty()) throw std::runtime_error(dir_name + ": holds no runs directory (a directory with " + kSummaryFileName + ")");
  std::sort(runs.rbegin(), runs.rend());  // default names begin with their UTC time: newest first
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>locksim runs: " << escape(dir_name)
      << "</title>\n<style>" << report_page_css() << "</style></head><body>\n"
      << "<h1>locksim runs</h1>\n<p>" << runs.size() << " run" << (runs.size() == 1 ? "" : "s") << " in <code>"
      << escape(dir_name) << "</code>, newest name first. A run's name opens its report.</p>\n"
      << "<table class=\"runs\"><tr><th>run</th><th>verdict</th><th>profile</th><th>lock</th><th>backend</th>"
         "<th>seeds run / failed</th><th>failing properties</th><th>summary</th></tr>\n";
  for (const std::string& name : runs) out << run_row(name, dir / name / kSummaryFileName);
  out << "</table>\n</body></html>\n";
  return out.str();
}

void write_runs_index(const std::string& dir_name) {
  const std::string html = runs_index_html(dir_name);
  OutputFile out((fs::path(dir_name) / kRunsIndexFileName).string());  // complete or not at all
  out.write(html);
  out.commit();
}

}  // namespace locksim
