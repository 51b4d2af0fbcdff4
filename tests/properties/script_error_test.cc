// ScriptErrorChecker: a script that answers an error fails script_error,
// naming the script, its caller and the error; an error the pack declares
// (the backend marks the event) does not; neither does a normal reply. The
// correct system on the model never answers one (every profile, both lock
// kinds); a broken live pack is in campaign_script_error_test.cc.
#include <gtest/gtest.h>

#include "properties/scenario_check.h"
#include "properties/script_error.h"
#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"
#include "tests/lock_kind_of.h"

namespace locksim {
namespace {

using testing::HistoryBuilder;
using testing::run_checker;

TEST(ScriptError, AnErrorReplyIsAViolation) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "rlock_acquire", "error: ERR Error running script: boom", {}, 1);
  h.script(2, 1, "rlock_acquire", "nil", {"c1:1"}, 1);
  const auto v = run_checker<ScriptErrorChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "script_error");
  EXPECT_EQ(v[0].event_ids, std::vector<uint64_t>{1});
  EXPECT_NE(v[0].message.find("rlock_acquire by c1:1 on server 0 answered an error: ERR Error running script: boom"),
            std::string::npos)
      << v[0].message;
}

TEST(ScriptError, DeclaredErrorsAndNormalRepliesPass) {
  HistoryBuilder h;
  h.script(1, 1, "fair_acquire_failed", "error: ERR locksim: fair_acquire_failed is absent from this script pack", {})
      .error_declared = true;
  h.script(2, 1, "rlock_acquire", "\"error: not an error, a bulk string\"", {"c1:1"});
  h.script(3, 1, "rlock_release", "1", {});
  EXPECT_TRUE(run_checker<ScriptErrorChecker>(h.events()).empty());
}

TEST(ScriptError, TheCorrectSystemNeverAnswersAnError) {
  for (const char* profile : {"safe", "hostile", "restarts", "failover", "server-clock"}) {
    for (const char* lock : {"rlock", "fair", "redlock"}) {
      for (uint64_t seed = 1; seed <= 4; ++seed) {
        Scenario s;
        s.seed = seed;
        s.profile = Profile::named(profile);
        s.lock_kind = testing::lock_kind_of(lock);
        s.servers = std::string(lock) == "redlock" ? 3 : 1;
        const ScenarioVerdict verdict = check_scenario(s);
        EXPECT_EQ(verdict.summary.script_errors, 0u) << profile << " " << lock << " " << seed;
        for (const Violation& v : verdict.violations) EXPECT_NE(v.property, "script_error") << v.to_string();
      }
    }
  }
}

}  // namespace
}  // namespace locksim
