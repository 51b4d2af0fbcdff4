// report.html as a reader uses it: the explorable timeline (its script and
// the SVG it works on), the plots' library and the data they draw (the run
// over simulated time, its faults), the failures linked to their sections,
// every event of the picture in a table row a click can reach; the page
// exercised in headless Chromium when it is installed (zoom by the wheel,
// plots drawn). And `locksim index` over runs directories.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

class ReportPage : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-report-page-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// The JSON block <script type="application/json" id="<id>"> of the page.
nlohmann::json data_block(const std::string& html, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
  const size_t at = html.find(open);
  if (at == std::string::npos) return nullptr;
  const size_t from = at + open.size();
  std::string text = html.substr(from, html.find("</script>", from) - from);
  for (size_t k = text.find("<\\/"); k != std::string::npos; k = text.find("<\\/", k)) text.replace(k, 3, "</");
  return nlohmann::json::parse(text, nullptr, false);
}

TEST_F(ReportPage, FailingCampaignPageIsExplorableAndPlotsTheRun) {
  const fs::path out = dir_ / "run";
  auto r = run_locksim("campaign --profile hostile --lock mixed --locks 2 --base-seed 9 --seeds 1 --out " +
                       out.string());
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::string html = read_file(out / "report.html");
  // The verdict is the campaign's own headline, first whether anything is unexplained.
  const std::string headline = r.out.substr(0, r.out.find('\n'));
  ASSERT_EQ(headline.rfind("FAILED: 0 unexplained; 1 seed with violations, all explained by faults the hostile", 0), 0u)
      << r.out;
  EXPECT_NE(html.find("<p class=\"fail\"><b>" + headline + "</b></p>"), std::string::npos) << headline;
  // One file: the chart library and the page's script are inlined, nothing is fetched.
  EXPECT_NE(html.find("Dygraph"), std::string::npos);
  EXPECT_NE(html.find("function setupTimeline"), std::string::npos);
  EXPECT_NE(html.find("port.addEventListener('wheel'"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("http://cdn"), std::string::npos);
  // The failure links to its section; the section holds the timeline, its subtitle, the plots.
  EXPECT_NE(html.find("<a href=\"#f0\">9</a>"), std::string::npos);
  EXPECT_NE(html.find("<h2 class=\"fail\" id=\"f0\">seed 9: fifo_fairness</h2>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"subtitle\">fifo_fairness [lsim:L1]:"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"timeline\" data-section=\"f0\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"plots\" data-plot=\"plot-9\">"), std::string::npos);
  // Every event the timeline names is a row the click reaches.
  const std::string svg = read_file(out / "timelines" / "9.svg");
  const std::regex id_re(R"re(class="[^"]*\be(\d+)\b)re");
  size_t events = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), id_re); it != std::sregex_iterator(); ++it, ++events)
    EXPECT_NE(html.find("<tr id=\"f0-e" + (*it)[1].str() + "\""), std::string::npos) << (*it)[1];
  EXPECT_GT(events, 10u);
  // The plots' data: the whole run in one-second buckets, its faults.
  const nlohmann::json data = data_block(html, "plot-9");
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data["bucket_s"], 1.0);
  EXPECT_GE(data["t"].size(), 59u);  // a 60 s run
  for (const char* series : {"acquired", "gave_up", "unknown", "unlocked", "unlock_refused", "polls",
                             "latency_p50_ms", "latency_max_ms"})
    EXPECT_EQ(data[series].size(), data["t"].size()) << series;
  ASSERT_GT(data["faults"].size(), 0u);  // hostile: faults to shade
  for (const auto& f : data["faults"]) {
    EXPECT_LE(f[0].get<double>(), f[1].get<double>());
    EXPECT_TRUE(f[2].is_string());
  }
  int64_t acquired = 0;
  for (const auto& n : data["acquired"]) acquired += n.get<int64_t>();
  EXPECT_GT(acquired, 0);
  // Deterministic: `locksim report` rebuilds the same page.
  fs::remove(out / "report.html");
  ASSERT_EQ(run_locksim("report " + out.string()).exit_code, 0);
  EXPECT_EQ(read_file(out / "report.html"), html);

  // In a browser: the wheel zooms the timeline and the three plots are drawn.
  if (std::system("command -v chromium > /dev/null 2>&1") != 0) GTEST_SKIP() << "chromium is not installed";
  const fs::path profile = dir_ / "chromium-profile";
  const fs::path dom = dir_ / "dom.html";
  const std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                          "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=" +
                          profile.string() + " --dump-dom 'file://" + (out / "report.html").string() +
                          "#selftest' > " + dom.string() + " 2> /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string page = read_file(dom);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(page, m, std::regex(R"re(data-selftest="timelines (\d+); zoom ([\d.]+) -&gt; ([\d.]+); plots (\d+)")re")))
      << page.substr(0, 300);
  EXPECT_EQ(m[1], "1");
  EXPECT_LT(std::stod(m[2]), std::stod(m[3])) << "the wheel zooms in";
  EXPECT_EQ(m[4], "3");
}

TEST_F(ReportPage, IndexListsRunsWithTheirVerdicts) {
  ASSERT_EQ(run_locksim("campaign --seeds 3 --profile safe --out " + (dir_ / "20250101T000000Z-safe-rlock").string())
                .exit_code,
            0);
  ASSERT_EQ(run_locksim("campaign --seeds 3 --mutant unlock_no_wake --out " +
                        (dir_ / "20250102T000000Z-safe-rlock").string())
                .exit_code,
            1);
  fs::create_directories(dir_ / "not-a-run");
  fs::create_directory_symlink("20250101T000000Z-safe-rlock", dir_ / "latest");
  auto r = run_locksim("index " + dir_.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = read_file(dir_ / "index.html");
  const size_t newer = html.find("<a href=\"./20250102T000000Z-safe-rlock/report.html\">");
  const size_t older = html.find("<a href=\"./20250101T000000Z-safe-rlock/report.html\">");
  ASSERT_NE(newer, std::string::npos);
  ASSERT_NE(older, std::string::npos);
  EXPECT_LT(newer, older);  // newest first
  EXPECT_NE(html.find("2 runs in"), std::string::npos);  // not the link, not the directory without a summary
  EXPECT_NE(html.find("verdict-fail\">FAIL</td><td>safe</td><td>rlock (mutant unlock_no_wake)"), std::string::npos);
  EXPECT_NE(html.find("verdict-pass\">PASS"), std::string::npos);
  EXPECT_NE(html.find("<td>liveness</td>"), std::string::npos);
  for (const std::string& bad : {std::string("/nonexistent-runs"), (dir_ / "not-a-run").string()}) {
    r = run_locksim("index " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << r.out;
  }
}

// A runs directory's name is data: one named like a script URL (or holding
// ';', '#', '?', quotes) becomes a relative link to its own report, never a
// link with a scheme; in Chromium, every link of the page resolves under
// the index's own directory.
TEST_F(ReportPage, IndexNeverLinksAScheme) {
  const std::string name = "javascript:document.title='pwned';void(0)";
  const fs::path runs = dir_ / "runs";
  fs::create_directories(runs / name);
  ASSERT_EQ(run_locksim("campaign --seeds 2 --profile safe --out " + (dir_ / "one").string()).exit_code, 0);
  fs::copy_file(dir_ / "one" / "summary.json", runs / name / "summary.json");
  const auto r = run_locksim("index " + runs.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = read_file(runs / "index.html");
  const std::regex href_re("href=\"([^\"]*)\"");
  size_t links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href_re); it != std::sregex_iterator(); ++it, ++links) {
    const std::string href = (*it)[1].str();
    EXPECT_EQ(href.rfind("./", 0), 0u) << href;
    EXPECT_EQ(href.find(':'), std::string::npos) << href;
  }
  EXPECT_EQ(links, 2u);
  EXPECT_NE(html.find("href=\"./javascript%3Adocument.title%3D%27pwned%27%3Bvoid%280%29/report.html\""), std::string::npos);
  if (std::system("command -v chromium > /dev/null 2>&1") != 0) GTEST_SKIP() << "chromium is not installed";
  // The links as the browser resolves them: all file: URLs inside runs/.
  const fs::path page = dir_ / "links.html";
  std::string probe = html;
  probe.replace(probe.find("</body>"), 7,
                "<script>document.body.setAttribute('data-links', Array.from(document.links).map(a => a.href)"
                ".join(' '));</script></body>");
  {
    std::FILE* f = std::fopen(page.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(probe.c_str(), f);
    std::fclose(f);
  }
  fs::copy_file(page, runs / "links.html");
  const fs::path dom = dir_ / "dom.html";
  const std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
                          "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=" +
                          (dir_ / "chromium-profile").string() + " --dump-dom 'file://" + (runs / "links.html").string() +
                          "' > " + dom.string() + " 2> /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string dumped = read_file(dom);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dumped, m, std::regex("data-links=\"([^\"]*)\""))) << dumped.substr(0, 300);
  const std::string base = "file://" + runs.string() + "/";
  size_t resolved = 0;
  std::istringstream each(m[1].str());
  for (std::string link; each >> link; ++resolved) EXPECT_EQ(link.rfind(base, 0), 0u) << link;
  EXPECT_EQ(resolved, 2u) << m[1];
}

}  // namespace
