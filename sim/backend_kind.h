// BackendKind: where a scenario's scripts run, parsed once from its name at
// the edge (the command line's --backend, a trace header's "backend") and
// passed inward as this type.
//   Model: the embedded C++ model (its variant stands for the pack).
//   Lua:   the pack's own Lua in process (sim/lua_backend.h).
//   Live:  the pack's own Lua on redis-servers in virtual time.
#pragma once

#include <optional>
#include <string_view>

namespace locksim {

enum class BackendKind { Model, Lua, Live };

inline std::optional<BackendKind> backend_kind_from_name(std::string_view name) {
  if (name == "model") return BackendKind::Model;
  if (name == "lua") return BackendKind::Lua;
  if (name == "live") return BackendKind::Live;
  return std::nullopt;
}

inline std::string_view backend_kind_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::Model: return "model";
    case BackendKind::Lua: return "lua";
    case BackendKind::Live: return "live";
  }
  return "model";
}

}  // namespace locksim
