// CampaignBackend: where a campaign runs its seeds, parsed once from
// `--backend` at the command line.
//   checked:   every seed runs here; its history is checked and a failing
//              property shrunk here. Model: the embedded model, with the
//              model variant of the pack (the model must stand for the
//              pack). Lua: the pack's own Lua in process (sim/lua_backend.h).
//              Live: real redis-servers in virtual time, running the pack's
//              own Lua.
//   reference: none, or a second backend every seed runs on first; the two
//              histories must be equal event for event, and the first
//              difference fails the seed as a divergence. A model reference
//              is the correct model (--match-variant: the pack's variant).
// BackendKind (one side): sim/backend_kind.h.
// Names: "model", "lua", "live"; "both" (live checked against the model, as
// `locksim diff` compares); "A,B" for any two different backends (A checked
// against B, e.g. "lua,live").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/backend_kind.h"

namespace locksim {

struct CampaignBackend {
  BackendKind checked = BackendKind::Model;
  std::optional<BackendKind> reference;
  bool operator==(const CampaignBackend&) const = default;
};

inline constexpr CampaignBackend kBothBackends{BackendKind::Live, BackendKind::Model};

inline std::optional<CampaignBackend> campaign_backend_from_name(std::string_view name) {
  if (name == "both") return kBothBackends;
  const size_t comma = name.find(',');
  if (comma == std::string_view::npos) {
    const auto one = backend_kind_from_name(name);
    if (!one) return std::nullopt;
    return CampaignBackend{*one, std::nullopt};
  }
  const auto checked = backend_kind_from_name(name.substr(0, comma));
  const auto reference = backend_kind_from_name(name.substr(comma + 1));
  if (!checked || !reference || *checked == *reference) return std::nullopt;
  return CampaignBackend{*checked, *reference};
}

inline std::string campaign_backend_name(const CampaignBackend& backend) {
  if (backend == kBothBackends) return "both";
  std::string name(backend_kind_name(backend.checked));
  if (backend.reference) name += "," + std::string(backend_kind_name(*backend.reference));
  return name;
}

// Whether some seed runs the model with the pack's variant standing for the
// pack (the model alone); otherwise the pack's own Lua runs (lua, live), and
// a model reference needs no variant of the pack.
inline bool runs_model_only(const CampaignBackend& backend) {
  return backend.checked == BackendKind::Model && !backend.reference;
}

inline bool uses(const CampaignBackend& backend, BackendKind kind) {
  return backend.checked == kind || backend.reference == kind;
}

}  // namespace locksim
