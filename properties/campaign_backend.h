// CampaignBackend: where a campaign runs its seeds, parsed once from
// `--backend` at the command line.
//   Model: the embedded model, with the model variant of the pack (the
//          model must stand for the pack).
//   Live:  real redis-servers in virtual time, running the pack's own Lua.
//   Both:  every seed on live and on the correct model (as `locksim diff`
//          compares); the two histories must be equal event for event, and
//          the first difference fails the seed as a divergence.
#pragma once

#include <optional>
#include <string_view>

namespace locksim {

enum class CampaignBackend { Model, Live, Both };

inline std::optional<CampaignBackend> campaign_backend_from_name(std::string_view name) {
  if (name == "model") return CampaignBackend::Model;
  if (name == "live") return CampaignBackend::Live;
  if (name == "both") return CampaignBackend::Both;
  return std::nullopt;
}

inline std::string_view campaign_backend_name(CampaignBackend backend) {
  switch (backend) {
    case CampaignBackend::Model: return "model";
    case CampaignBackend::Live: return "live";
    case CampaignBackend::Both: return "both";
  }
  return "model";
}

// Whether the seeds' scripts run on live redis-servers.
inline bool runs_live(CampaignBackend backend) { return backend != CampaignBackend::Model; }

}  // namespace locksim
