// --memory-limit: the one limit on the memory a lua-backend run holds (its
// Lua heaps and key stores together; sim/lua_backend.h), on every command
// that runs a pack's Lua in process (run, campaign, replay, diff, explore,
// check, pack check).
//
// The flag is read as text (add_memory_limit_option) and parsed by the
// command's validate function (validate_memory_limit): SIZE is a whole
// number of bytes, or of KiB, MiB, GiB with a K, M or G suffix (KB, MB, GB,
// KiB, MiB, GiB read the same, any case), from 16M to 1024G. Anything else
// (0, a negative number, a fraction, a size past the range, a word) is a
// UsageError of one line naming the flag: exit 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "redis/lua_scripting.h"
#include "sim/lua_backend.h"

namespace locksim::cli {

inline constexpr size_t kMinMemoryLimitBytes = size_t{16} << 20;
inline constexpr size_t kMaxMemoryLimitBytes = size_t{1} << 40;

// The bytes `text` names (a whole number with an optional unit; past 2^64:
// UINT64_MAX), or nullopt when it is not such a number.
std::optional<uint64_t> parse_memory_size(const std::string& text);

// --memory-limit as typed.
struct MemoryLimitFlag {
  std::string text;
  bool given = false;  // an empty text given ('--memory-limit ""') is refused, not the default
};

// Registers --memory-limit on `cmd`, into `*flag`.
void add_memory_limit_option(CLI::App* cmd, MemoryLimitFlag* flag);

// The lua backend's limits for `flag` (not given: the default,
// LuaBackend::kDefaultRunMemoryBytes). Throws UsageError.
LuaLimits validate_memory_limit(const MemoryLimitFlag& flag);

}  // namespace locksim::cli
