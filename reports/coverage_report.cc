#include "reports/coverage_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "properties/coverage.h"
#include "properties/coverage_observer.h"
#include "reports/html_text.h"

namespace locksim {

using nlohmann::json;

namespace {

constexpr size_t kRarest = 12;

uint64_t base_seed_of(const json& summary) {
  const json& c = summary["configuration"];
  return c.contains("base_seed") && c["base_seed"].is_number_unsigned() ? c["base_seed"].get<uint64_t>() : 0;
}

// Script items sort by file and then line number ("f.lua:9" before "f.lua:10").
bool item_less(const std::string& a, const std::string& b) {
  const size_t ca = a.rfind(':'), cb = b.rfind(':');
  if (ca != std::string::npos && cb != std::string::npos && a.compare(0, ca, b, 0, cb) == 0) {
    const std::string na = a.substr(ca + 1), nb = b.substr(cb + 1);
    const bool da = !na.empty() && na.find_first_not_of("0123456789") == std::string::npos;
    const bool db = !nb.empty() && nb.find_first_not_of("0123456789") == std::string::npos;
    if (da && db && na.size() != nb.size()) return na.size() < nb.size();
  }
  return a < b;
}

}  // namespace

json coverage_view_json(const json& summary) {
  if (!summary.contains("coverage")) return json();
  const Coverage c = Coverage::from_json(summary["coverage"], "summary.json", UINT64_MAX);
  const uint64_t base = base_seed_of(summary);
  json v;
  v["seeds"] = c.runs();
  json categories = json::object();
  for (const std::string& cat : coverage_categories()) {
    uint64_t covered = 0, universe = 0, outside = 0;
    for (const std::string& item : c.universe()) {
      if (coverage_category(item) != cat) continue;
      ++universe;
      covered += c.covers(item);
    }
    for (const auto& [item, h] : c.items()) {
      if (coverage_category(item) == cat && !std::binary_search(c.universe().begin(), c.universe().end(), item)) {
        ++outside;
      }
    }
    categories[cat] = {{"covered", covered}, {"universe", universe}, {"outside", outside}};
  }
  v["categories"] = std::move(categories);
  std::vector<std::string> never = c.never_covered();
  std::stable_sort(never.begin(), never.end(), item_less);
  json never_json = json::array();
  for (const std::string& cat : coverage_categories()) {
    for (const std::string& item : never) {
      if (coverage_category(item) == cat) never_json.push_back({{"item", item}, {"words", describe_coverage_item(item)}});
    }
  }
  v["never_covered"] = std::move(never_json);
  std::vector<std::pair<std::string, CoverageHits>> rare(c.items().begin(), c.items().end());
  std::stable_sort(rare.begin(), rare.end(), [](const auto& a, const auto& b) { return a.second.runs < b.second.runs; });
  json rarest = json::array();
  for (size_t i = 0; i < rare.size() && i < kRarest; ++i) {
    rarest.push_back({{"item", rare[i].first},
                      {"runs", rare[i].second.runs},
                      {"first", rare[i].second.first},
                      {"words", describe_coverage_item(rare[i].first)}});
  }
  v["rarest"] = std::move(rarest);
  v["states"] = c.states().size();
  json curve = json::array();
  for (const Coverage::CurvePoint& p : c.curve()) {
    curve.push_back({{"seeds", p.run >= base ? p.run - base + 1 : 0}, {"items", p.items}, {"states", p.states}});
  }
  v["curve"] = std::move(curve);
  json covered = json::array();
  std::vector<std::string> names;
  for (const auto& [item, h] : c.items()) names.push_back(item);
  std::stable_sort(names.begin(), names.end(), item_less);
  for (const std::string& item : names) {
    const CoverageHits& h = c.items().at(item);
    covered.push_back({{"item", item}, {"runs", h.runs}, {"first", h.first}});
  }
  v["covered"] = std::move(covered);
  return v;
}

namespace {

// The curve's last point at or before `seeds`.
const json* curve_at(const json& curve, uint64_t seeds) {
  const json* at = nullptr;
  for (const json& p : curve) {
    if (p["seeds"].get<uint64_t>() > seeds) break;
    at = &p;
  }
  return at;
}

// Seeds counts at which the text shows the curve: 1, 3, 10, 30, ... up to
// the total, and the total.
std::vector<uint64_t> curve_marks(uint64_t total) {
  std::vector<uint64_t> marks;
  for (uint64_t m = 1; m < total; m *= 10) {
    marks.push_back(m);
    if (3 * m < total) marks.push_back(3 * m);
  }
  marks.push_back(total);
  return marks;
}

std::string seeds_word(uint64_t n) { return std::to_string(n) + (n == 1 ? " seed" : " seeds"); }

}  // namespace

std::string coverage_text(const json& summary, bool all) {
  const json v = coverage_view_json(summary);
  if (v.is_null()) return "coverage: not recorded in this summary (written by a build that did not measure it)\n";
  std::ostringstream out;
  const uint64_t seeds = v["seeds"].get<uint64_t>();
  out << "coverage of " << seeds_word(seeds) << ":\n";
  for (const std::string& cat : coverage_categories()) {
    const json& n = v["categories"][cat];
    out << "  " << cat << std::string(8 - std::min<size_t>(cat.size(), 7), ' ');
    if (n["universe"].get<uint64_t>() == 0 && n["outside"].get<uint64_t>() == 0) {
      out << (cat == "script" ? "not measured (live: what the replies reveal is under reply)"
                              : cat == "fault" ? "no fault injected" : "nothing to cover")
          << "\n";
      continue;
    }
    out << n["covered"].get<uint64_t>() << " of " << n["universe"].get<uint64_t>() << " covered";
    if (n["outside"].get<uint64_t>() > 0) out << " (and " << n["outside"].get<uint64_t>() << " more outside the universe)";
    out << "\n";
  }
  out << "  abstract states: " << v["states"].get<uint64_t>() << " distinct\n";
  const json& never = v["never_covered"];
  out << "never covered (" << never.size() << "):\n";
  for (const json& n : never) {
    const std::string words = n["words"].get<std::string>();
    out << "  " << n["item"].get<std::string>() << (words.empty() ? "" : "  -- " + words) << "\n";
  }
  if (never.empty()) out << "  nothing: every item of the universe was covered\n";
  out << "rarest covered (fewest seeds):\n";
  for (const json& r : v["rarest"]) {
    out << "  " << r["item"].get<std::string>() << "  " << seeds_word(r["runs"].get<uint64_t>()) << ", first seed "
        << r["first"].get<uint64_t>() << "\n";
  }
  out << "over the seeds (items covered, abstract states):";
  for (uint64_t m : curve_marks(std::max<uint64_t>(seeds, 1))) {
    const json* p = curve_at(v["curve"], m);
    out << "  " << m << ": " << (p ? (*p)["items"].get<uint64_t>() : 0) << ", " << (p ? (*p)["states"].get<uint64_t>() : 0);
  }
  out << "\n";
  if (all) {
    out << "covered (" << v["covered"].size() << "):\n";
    for (const json& c : v["covered"]) {
      out << "  " << c["item"].get<std::string>() << "  " << seeds_word(c["runs"].get<uint64_t>()) << ", first seed "
          << c["first"].get<uint64_t>() << "\n";
    }
  }
  return out.str();
}

namespace {

// A step chart of one curve column over the seeds, inline SVG.
std::string curve_svg(const json& curve, const char* column, const char* label, uint64_t seeds) {
  constexpr int kW = 460, kH = 194, kLeft = 48, kBottom = 30, kTop = 26, kRight = 12;
  uint64_t max_y = 1;
  for (const json& p : curve) max_y = std::max(max_y, p[column].get<uint64_t>());
  const uint64_t max_x = std::max<uint64_t>(seeds, 1);
  auto x_of = [&](uint64_t x) { return kLeft + static_cast<double>(x) / static_cast<double>(max_x) * (kW - kLeft - kRight); };
  auto y_of = [&](uint64_t y) { return kH - kBottom - static_cast<double>(y) / static_cast<double>(max_y) * (kH - kBottom - kTop); };
  std::ostringstream out;
  char buf[160];
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH << "\" viewBox=\"0 0 " << kW
      << " " << kH << "\" class=\"curve\">";
  out << "<line x1=\"" << kLeft << "\" y1=\"" << kH - kBottom << "\" x2=\"" << kW - kRight << "\" y2=\"" << kH - kBottom
      << "\" stroke=\"#888\"/><line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\""
      << kH - kBottom << "\" stroke=\"#888\"/>";
  std::string points;
  uint64_t last_y = 0;
  points += std::to_string(x_of(0)) + "," + std::to_string(y_of(0));
  for (const json& p : curve) {
    const uint64_t x = p["seeds"].get<uint64_t>(), y = p[column].get<uint64_t>();
    std::snprintf(buf, sizeof buf, " %.1f,%.1f %.1f,%.1f", x_of(x), y_of(last_y), x_of(x), y_of(y));
    points += buf;
    last_y = y;
  }
  std::snprintf(buf, sizeof buf, " %.1f,%.1f", x_of(max_x), y_of(last_y));
  points += buf;
  out << "<polyline fill=\"none\" stroke=\"#2a6\" stroke-width=\"2\" points=\"" << points << "\"/>";
  std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%llu</text>", kLeft - 4,
                y_of(max_y) + 4, static_cast<unsigned long long>(max_y));
  out << buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">0</text>", kLeft - 4,
                kH - kBottom + 4);
  out << buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%llu</text>", x_of(max_x),
                kH - kBottom + 14, static_cast<unsigned long long>(max_x));
  out << buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">seeds</text>",
                x_of(max_x / 2), kH - 4);
  out << buf;
  // The name above the plot, where no curve can cross it.
  out << "<text x=\"" << kLeft << "\" y=\"" << kTop - 12 << "\" font-size=\"12\">" << html_escape(label) << "</text>";
  out << "</svg>";
  return out.str();
}

}  // namespace

std::string coverage_html(const json& summary) {
  const json v = coverage_view_json(summary);
  if (v.is_null()) return "";
  std::ostringstream out;
  const uint64_t seeds = v["seeds"].get<uint64_t>();
  const json& never = v["never_covered"];
  out << "<h2 id=\"coverage\">Coverage</h2>\n<p>What the " << seeds_word(seeds)
      << " exercised: script branches (the model's, or the lines of the pack's Lua), the replies scripts gave, "
         "the states locks were in, each fault crossed with what it hit, and the situations each property "
         "needs before it can fail. <b>"
      << never.size() << " item(s) never covered.</b></p>\n";
  out << "<table class=\"coverage\"><tr><th>category</th><th>covered</th><th>of</th><th>never covered</th></tr>\n";
  for (const std::string& cat : coverage_categories()) {
    const json& n = v["categories"][cat];
    const uint64_t covered = n["covered"].get<uint64_t>(), universe = n["universe"].get<uint64_t>();
    out << "<tr><td>" << html_escape(cat) << "</td><td>" << covered << "</td><td>" << universe << "</td><td"
        << (covered < universe ? " class=\"fail\"" : "") << ">" << universe - covered << "</td></tr>\n";
  }
  out << "<tr><td>abstract states</td><td>" << v["states"].get<uint64_t>() << "</td><td></td><td></td></tr>\n</table>\n";
  out << "<h3>Never covered</h3>\n";
  if (never.empty()) {
    out << "<p class=\"pass\">Every item of the universe was covered.</p>\n";
  } else {
    out << "<table class=\"never\"><tr><th>item</th><th>what it would have been</th></tr>\n";
    for (const json& n : never) {
      out << "<tr><td><code>" << html_escape(n["item"].get<std::string>()) << "</code></td><td>"
          << html_escape(n["words"].get<std::string>()) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  out << "<h3>Coverage over the seeds</h3>\n<div class=\"curves\">"
      << curve_svg(v["curve"], "items", "items covered", seeds) << " "
      << curve_svg(v["curve"], "states", "distinct abstract states", seeds) << "</div>\n";
  out << "<h3>Rarest covered</h3>\n<table><tr><th>item</th><th>seeds</th><th>first seed</th><th>what</th></tr>\n";
  for (const json& r : v["rarest"]) {
    out << "<tr><td><code>" << html_escape(r["item"].get<std::string>()) << "</code></td><td>" << r["runs"].get<uint64_t>()
        << "</td><td>" << r["first"].get<uint64_t>() << "</td><td>" << html_escape(r["words"].get<std::string>())
        << "</td></tr>\n";
  }
  out << "</table>\n<details><summary>Every covered item (" << v["covered"].size()
      << ")</summary>\n<table><tr><th>item</th><th>seeds</th><th>first seed</th></tr>\n";
  for (const json& c : v["covered"]) {
    out << "<tr><td><code>" << html_escape(c["item"].get<std::string>()) << "</code></td><td>" << c["runs"].get<uint64_t>()
        << "</td><td>" << c["first"].get<uint64_t>() << "</td></tr>\n";
  }
  out << "</table>\n</details>\n";
  return out.str();
}

}  // namespace locksim
