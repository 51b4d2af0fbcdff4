// The design-variant case table (model/script_cases.h,
// design_variant_cases()) replayed on a live redis-server through
// LiveBackend: each design variant's pack in impl/variants/<name> gives
// exactly the replies, publishes and final keys its model variant is held to,
// and the distinguishing cases fail on our pack.
#include <gtest/gtest.h>

#include <string>

#include "impl/script_pack.h"
#include "sim/live_backend.h"
#include "model/script_cases.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

const std::string kOurs = std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";

std::string design_pack_dir(ModelVariant v) {
  return std::string(LOCKSIM_SOURCE_DIR) + "/impl/variants/" + std::string(variant_name(v));
}

// Runs one case on `live` (wiped first); "" if every expectation holds.
std::string run_live_case(LiveBackend& live, const cases::ScriptCase& c) {
  live.wipe();
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const cases::CaseStep& s = c.steps[i];
    const ExecResult r = live.execute(0, s.call, s.server_now_ms * 1000);
    const std::string where = "step " + std::to_string(i + 1) + " (" + std::string(script_name(s.call.kind)) + ")";
    if (!cases::reply_matches(s.expected, r.reply)) {
      return where + ": reply " + r.reply.to_string() + ", expected " + s.expected.to_string();
    }
    if (r.published != s.published) return where + ": published " + std::to_string(r.published.size()) + " message(s)";
  }
  if (c.final_state && live.snapshot(0, c.final_state->server_now_ms * 1000) != c.final_state->keys) {
    return "final state differs";
  }
  return "";
}

TEST(DiffDesignVariants, CasesHoldOnTheVariantPackAndDistinguishItFromOurs) {
  RedisServer server;
  const auto table = cases::design_variant_cases();
  ASSERT_FALSE(table.empty());
  LiveBackend ours(std::vector<ServerControl*>{&server}, ScriptPack::load(kOurs), "");
  for (const auto& c : table) {
    ASSERT_TRUE(is_design_variant(c.variant)) << c.name;
    LiveBackend variant(std::vector<ServerControl*>{&server}, ScriptPack::load(design_pack_dir(c.variant)), "");
    EXPECT_EQ(run_live_case(variant, c), "") << c.name << " on " << design_pack_dir(c.variant);
    if (c.differs_from_correct) {
      EXPECT_NE(run_live_case(ours, c), "") << c.name << " passes on our pack";
    }
  }
}

}  // namespace
}  // namespace locksim
