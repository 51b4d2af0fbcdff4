// Runs the shared case table (script_cases.h) on the model: every step's reply
// and publishes, then the full final snapshot. Variant cases marked
// differs_from_correct must fail under the Correct scripts.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "model/scripts.h"
#include "model/script_cases.h"

namespace locksim {
namespace {

using cases::ScriptCase;

// Runs `c` with `variant`; returns "" if every expectation holds, else the
// first mismatch.
std::string run_case(const ScriptCase& c, ModelVariant variant) {
  Store store;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const auto& st = c.steps[i];
    const ExecResult r = run_script(store, st.call, st.server_now_ms, variant);
    std::ostringstream where;
    where << "step " << i << " (" << script_name(st.call.kind) << " by '" << st.call.params.owner << "'): ";
    if (!cases::reply_matches(st.expected, r.reply)) {
      return where.str() + "reply " + r.reply.to_string() + ", expected " + st.expected.to_string();
    }
    if (r.published != st.published) {
      std::string got;
      for (const auto& p : r.published) got += "[" + p.channel + " " + p.payload + "]";
      return where.str() + "published " + (got.empty() ? "nothing" : got);
    }
    if (r.holders_after != store.holders(st.call.params.lock, st.server_now_ms)) {
      return where.str() + "holders_after disagrees with the store";
    }
  }
  if (c.final_state) {
    const auto got = store.snapshot(c.final_state->server_now_ms);
    if (got != c.final_state->keys) {
      std::string text;
      for (const auto& k : got) {
        text += "\n  " + k.key + " " + k.type + " [" + k.value + "] pttl " + std::to_string(k.pttl_ms);
      }
      return "final state differs; got:" + (text.empty() ? std::string(" (empty)") : text);
    }
  }
  return "";
}

class ScriptCaseTest : public ::testing::TestWithParam<ScriptCase> {};

TEST_P(ScriptCaseTest, MeetsExpectations) {
  const ScriptCase& c = GetParam();
  EXPECT_EQ(run_case(c, c.variant), "");
}

class DistinguishingCaseTest : public ::testing::TestWithParam<ScriptCase> {};

TEST_P(DistinguishingCaseTest, FailsUnderCorrectScripts) {
  const ScriptCase& c = GetParam();
  ASSERT_NE(c.variant, ModelVariant::Correct);
  EXPECT_NE(run_case(c, ModelVariant::Correct), "");
}

std::vector<ScriptCase> distinguishing_cases() {
  std::vector<ScriptCase> out;
  for (auto& c : cases::all_cases()) {
    if (c.differs_from_correct) out.push_back(std::move(c));
  }
  for (auto& c : cases::design_variant_cases()) {
    if (c.differs_from_correct) out.push_back(std::move(c));
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<ScriptCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Table, ScriptCaseTest, ::testing::ValuesIn(cases::all_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Design, ScriptCaseTest, ::testing::ValuesIn(cases::design_variant_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Table, DistinguishingCaseTest, ::testing::ValuesIn(distinguishing_cases()), case_name);

TEST(ScriptCaseTable, NamesUniqueAndEveryScriptAndVariantCovered) {
  std::set<std::string> names;
  std::set<ScriptKind> kinds;
  std::set<ModelVariant> distinguished;
  for (const auto& c : cases::all_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_FALSE(c.steps.empty()) << c.name;
    EXPECT_TRUE(c.final_state.has_value()) << c.name;
    for (const auto& s : c.steps) kinds.insert(s.call.kind);
    if (c.differs_from_correct) distinguished.insert(c.variant);
  }
  EXPECT_EQ(kinds.size(), static_cast<size_t>(kScriptKindCount));
  for (ModelVariant v : mutant_variants()) {
    EXPECT_TRUE(distinguished.count(v)) << variant_name(v) << " has no distinguishing case";
  }
  EXPECT_EQ(faster_multi_mutant_variants().size(), 3u);
  for (ModelVariant v : faster_multi_mutant_variants()) {
    EXPECT_TRUE(distinguished.count(v)) << variant_name(v) << " has no distinguishing case";
  }
  // Design variants: their own table, every case of it for a design variant.
  std::set<ModelVariant> designs;
  for (const auto& c : cases::design_variant_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_TRUE(is_design_variant(c.variant)) << c.name;
    EXPECT_TRUE(c.final_state.has_value()) << c.name;
    if (c.differs_from_correct) designs.insert(c.variant);
  }
  for (ModelVariant v : design_variants()) {
    EXPECT_TRUE(designs.count(v)) << variant_name(v) << " has no distinguishing case";
  }
}

TEST(ScriptCaseTable, AnErrorExpectationMatchesOnlyErrors) {
  EXPECT_TRUE(cases::reply_matches(Reply::error("x"), Reply::error("other text")));
  EXPECT_FALSE(cases::reply_matches(Reply::error("x"), Reply::nil()));
  EXPECT_FALSE(cases::reply_matches(Reply::of_int(0), Reply::nil()));
  EXPECT_TRUE(cases::reply_matches(Reply::of_int(3), Reply::of_int(3)));
}

}  // namespace
}  // namespace locksim
