// Persistence: what a Redis server keeps across a restart. One type for the
// scenario's setting (sim/server_faults.h), the restart's Fault event
// (Event::persistence, which the trace writes as the detail "persistence
// always") and the checkers that judge what a restart lost.
//  Persistence::None    a restart loses every key (Redis without AOF or RDB).
//  Persistence::Always  append-only file with appendfsync always: a restart
//                       keeps every acknowledged write.
// The names ("none", "always") are those of the CLI and the trace header.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace locksim {

enum class Persistence : uint8_t { None, Always };

inline std::string_view persistence_name(Persistence p) { return p == Persistence::Always ? "always" : "none"; }
inline std::optional<Persistence> persistence_from_name(std::string_view name) {
  if (name == "none") return Persistence::None;
  if (name == "always") return Persistence::Always;
  return std::nullopt;
}

}  // namespace locksim
