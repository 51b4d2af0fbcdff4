// The permit table (properties/permit_table.h): docs/properties.md shows the
// code's table; every checker's report carries a row of its own property,
// and its scope is what the row's class allows; a checker cannot widen a
// row that permits nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/scenario_check.h"
#include "sim/profiles.h"
#include "tests/lock_kind_of.h"

namespace locksim {
namespace {

TEST(PermitTable, ThePageIsTheCodesTable) {
  std::ifstream page(std::string(LOCKSIM_SOURCE_DIR) + "/docs/properties.md");
  ASSERT_TRUE(page.good());
  const std::regex row(R"(^\| `([a-z_]+)` \| (.+) \| (.+) \|$)");
  std::vector<std::string> shown;
  bool in_table = false;
  std::string line;
  while (std::getline(page, line)) {
    if (line == "| property | report | faults that may explain it |") in_table = true;
    if (!in_table) continue;
    if (line.empty()) break;
    std::smatch m;
    if (std::regex_match(line, m, row)) shown.push_back(std::string(m[1]) + " | " + std::string(m[2]) + " | " + std::string(m[3]));
  }
  std::vector<std::string> code;
  for (const PermitRow& r : permit_table())
    code.push_back(std::string(r.property) + " | " + std::string(r.report_text) + " | " + std::string(r.faults_text));
  EXPECT_EQ(shown, code);
}

// Each row's class and its words agree: "none" rows permit nothing.
TEST(PermitTable, NoneRowsSayNone) {
  for (const PermitRow& r : permit_table()) {
    SCOPED_TRACE(std::string(r.report_text));
    EXPECT_EQ(r.permits == Permits::None, r.faults_text == "none");
    EXPECT_EQ(permit_row(r.report).report_text, r.report_text);
  }
}

// A checker's report is bounded by its row: one that names a scope for a
// report whose row permits nothing is recorded with none; a server-only row
// drops the clients it named.
class ScopingChecker final : public Checker {
 public:
  ScopingChecker() : Checker(default_check_config()) {}
  std::string_view name() const override { return property::kFifoFairness; }
  void on_event(const Event&) override {
    for (Report kind : {Report::FifoStaleHead, Report::FifoRefusedPollMovedDeadline, Report::FifoPassedOrPurged}) {
      Violation v;
      v.scope.clients = FaultScope::Who::Listed;
      v.scope.client_list = {1};
      report(kind, std::move(v));
    }
  }
};

TEST(PermitTable, ARowBoundsTheCheckersScope) {
  ScopingChecker checker;
  checker.on_event(Event{});
  ASSERT_EQ(checker.violations().size(), 3u);
  EXPECT_FALSE(checker.violations()[0].scope.excusable());
  EXPECT_EQ(checker.violations()[0].report, Report::FifoStaleHead);
  EXPECT_EQ(checker.violations()[1].scope.clients, FaultScope::Who::None);
  EXPECT_TRUE(checker.violations()[1].scope.servers);
  EXPECT_EQ(checker.violations()[2].scope, FaultScope::any());
}

// Over hostile runs of every lock kind, every violation has its property's
// row and the scope its class allows.
TEST(PermitTable, EveryReportOfHostileRunsHasItsRow) {
  int seen = 0;
  for (const char* lock : {"rlock", "fair", "mixed", "multi", "redlock"}) {
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      Scenario s;
      s.seed = seed;
      s.clients = 4;
      s.locks = std::string(lock) == "mixed" ? 2 : 1;
      s.servers = std::string(lock) == "multi" || std::string(lock) == "redlock" ? 3 : 1;
      s.lock_kind = testing::lock_kind_of(lock);
      s.profile = Profile::named("hostile");
      for (const Violation& v : check_scenario(s).violations) {
        ++seen;
        SCOPED_TRACE(v.to_string());
        ASSERT_NE(v.report, Report::Unset);
        const PermitRow& row = permit_row(v.report);
        EXPECT_EQ(row.property, v.property);
        switch (row.permits) {
          case Permits::None: EXPECT_FALSE(v.scope.excusable()); break;
          case Permits::ServersOnly: EXPECT_EQ(v.scope.clients, FaultScope::Who::None); break;
          case Permits::Any: EXPECT_EQ(v.scope, FaultScope::any()); break;
          case Permits::Scoped: EXPECT_TRUE(v.scope.excusable()); break;
        }
      }
    }
  }
  EXPECT_GT(seen, 50);
}

}  // namespace
}  // namespace locksim
