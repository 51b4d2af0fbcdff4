// The user documents: every relative link of README.md and docs/*.md leads
// to a file of the repository (and, into a Markdown file, to one of its
// headings), no link leaves the repository except to nothing, the README is
// a front page naming every property. That every command shown with its
// output prints what is shown is tests/tools/check_doc_outputs.py's
// (ctest Docs.ShownOutput.<document>).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "properties/violation.h"

namespace {

namespace fs = std::filesystem;
const fs::path kSource = LOCKSIM_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> documents() {
  std::vector<fs::path> out = {kSource / "README.md"};
  for (const auto& e : fs::directory_iterator(kSource / "docs")) {
    if (e.path().extension() == ".md") out.push_back(e.path());
  }
  return out;
}

// A heading's anchor as Markdown renderers make it: lower case, punctuation
// other than '-' and '_' dropped, spaces to '-'.
std::string slug(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      out += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

std::set<std::string> anchors(const fs::path& md) {
  std::set<std::string> out;
  std::istringstream in(read(md));
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.empty() || line[0] != '#') continue;
    const size_t text = line.find_first_not_of('#');
    if (text == std::string::npos) continue;
    out.insert(slug(line.substr(line.find_first_not_of(' ', text))));
  }
  return out;
}

TEST(Docs, EveryRelativeLinkResolvesAndNoneLeavesTheRepository) {
  const std::regex link(R"(\]\(([^)\s]+)\))");
  size_t checked = 0;
  for (const fs::path& doc : documents()) {
    const std::string text = read(doc);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[1];
      EXPECT_EQ(target.find("://"), std::string::npos) << doc << ": a link out of the repository: " << target;
      if (target.find("://") != std::string::npos) continue;
      const size_t hash = target.find('#');
      const std::string file = target.substr(0, hash);
      const fs::path resolved = file.empty() ? doc : fs::weakly_canonical(doc.parent_path() / file);
      EXPECT_TRUE(fs::exists(resolved)) << doc << ": " << target << " does not resolve";
      EXPECT_EQ(resolved.string().rfind(fs::weakly_canonical(kSource).string(), 0), 0u)
          << doc << ": " << target << " leaves the repository";
      if (hash != std::string::npos && resolved.extension() == ".md" && fs::exists(resolved)) {
        const std::set<std::string> names = anchors(resolved);
        EXPECT_TRUE(names.count(target.substr(hash + 1)) == 1) << doc << ": no heading for " << target;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 20u);
}

// The README is a front page (the manual lives in docs/): at most 12 KB,
// with exactly two set-up commands.
TEST(Docs, ReadmeIsAFrontPage) {
  const std::string readme = read(kSource / "README.md");
  EXPECT_LE(readme.size(), 12u * 1024u) << "README.md: move reference text into docs/";
  for (const char* marker : {"<!-- main-command -->", "<!-- test-command -->"}) {
    const size_t first = readme.find(marker);
    EXPECT_NE(first, std::string::npos) << marker;
    EXPECT_EQ(readme.find(marker, first + 1), std::string::npos) << marker;
  }
}

// Every property a campaign may report has its row in the README's table
// of what is checked ("divergence" too: a pair of backends').
TEST(Docs, ReadmeTableNamesEveryProperty) {
  const std::string readme = read(kSource / "README.md");
  std::vector<std::string> reported = locksim::all_properties();
  reported.push_back("divergence");
  for (const std::string& p : reported) {
    EXPECT_NE(readme.find("\n| `" + p + "`"), std::string::npos) << "README.md's table lacks " << p;
  }
}

}  // namespace
