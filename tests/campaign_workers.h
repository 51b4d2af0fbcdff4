// Test helpers for in-process campaigns: the options of a small campaign
// that runs every seed (keep going, no shrinking), and its workers, one
// backend source each, on the model or on a pack's Lua. Header-only, for
// tests only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "impl/builtin_packs.h"
#include "impl/script_pack.h"
#include "search/campaign.h"
#include "sim/lua_backend_source.h"
#include "sim/model_backend_source.h"
#include "tests/lock_kind_of.h"

namespace locksim::testing {

inline CampaignOptions every_seed_options(const std::string& profile, const std::string& lock, int seeds) {
  CampaignOptions o;
  o.seeds = seeds;
  o.scenario.profile = Profile::named(profile);
  o.scenario.lock_kind = lock_kind_of(lock);
  o.keep_going = true;
  o.shrink = false;
  return o;
}

inline std::vector<CampaignWorker> model_workers(int n) {
  std::vector<CampaignWorker> workers(static_cast<size_t>(n));
  for (CampaignWorker& w : workers) w.checked = std::make_unique<ModelBackendSource>();
  return workers;
}

// n workers on the lua backend, each with its own interpreter of `pack`.
inline std::vector<CampaignWorker> lua_workers(int n, std::string_view pack = kBuiltinOurPack) {
  std::vector<CampaignWorker> workers(static_cast<size_t>(n));
  for (CampaignWorker& w : workers) w.checked = std::make_unique<LuaBackendSource>(ScriptPack::load(std::string(pack)));
  return workers;
}

}  // namespace locksim::testing
