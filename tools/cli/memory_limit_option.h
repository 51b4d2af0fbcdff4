// --memory-limit: the one limit on the memory a lua-backend run holds (its
// Lua heaps and key stores together; sim/lua_backend.h), on every command
// that runs a pack's Lua in process. SIZE is a whole number of bytes, or
// of KiB, MiB, GiB with a K, M or G suffix (KB, MB, GB, KiB, MiB, GiB
// read the same); from 16M to 1T. Bad text: one line naming the option,
// exit 2 (main's ParseError handler).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "model/lua_scripting.h"
#include "sim/lua_backend.h"

namespace locksim::cli {

inline constexpr size_t kMinMemoryLimitBytes = size_t{16} << 20;
inline constexpr size_t kMaxMemoryLimitBytes = size_t{1} << 40;

// The bytes `text` names, or nullopt.
inline std::optional<size_t> parse_memory_size(const std::string& text) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (n > (uint64_t{1} << 50)) return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(text[i] - '0');
    ++i;
  }
  if (i == 0) return std::nullopt;
  std::string unit = text.substr(i);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (unit.empty() || unit == "B") {
    shift = 0;
  } else if (unit == "K" || unit == "KB" || unit == "KIB") {
    shift = 10;
  } else if (unit == "M" || unit == "MB" || unit == "MIB") {
    shift = 20;
  } else if (unit == "G" || unit == "GB" || unit == "GIB") {
    shift = 30;
  } else {
    return std::nullopt;
  }
  if (n > (uint64_t{1} << (62 - shift))) return std::nullopt;
  return static_cast<size_t>(n << shift);
}

struct MemoryLimitOption {
  std::string text;  // as typed
  size_t bytes = LuaBackend::kDefaultRunMemoryBytes;
  LuaLimits limits() const { return LuaLimits{LuaLimits{}.step_budget, bytes}; }
};

inline void add_memory_limit_option(CLI::App* cmd, MemoryLimitOption* out) {
  cmd->add_option("--memory-limit", out->text,
                  "Memory a lua-backend run may hold, its Lua heaps and key stores together (e.g. 512M, 2G; "
                  "default 1536M, explore at most 128M); a run that needs more stops with exit 2")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            const std::optional<size_t> bytes = parse_memory_size(value);
            if (!bytes) return "'" + value + "' is not a size (a number of bytes, or with K, M or G)";
            if (*bytes < kMinMemoryLimitBytes || *bytes > kMaxMemoryLimitBytes) {
              return "'" + value + "' is outside [16M, 1024G]";
            }
            return "";
          },
          "SIZE"))
      ->each([out](const std::string& value) { out->bytes = *parse_memory_size(value); });
}

}  // namespace locksim::cli
