// --memory-limit's text, parsed once at the edge (tools/cli/memory_limit_option.h).
#include "tools/cli/memory_limit_option.h"

#include <cctype>
#include <cstdint>

#include "sim/lua_backend.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

std::optional<uint64_t> parse_memory_size(const std::string& text) {
  constexpr uint64_t kSaturated = UINT64_MAX;
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    n = n > (kSaturated - digit) / 10 ? kSaturated : n * 10 + digit;
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
  if (n > (kSaturated >> shift)) return kSaturated;
  return n << shift;
}

void add_memory_limit_option(CLI::App* cmd, MemoryLimitFlag* flag) {
  cmd->add_option("--memory-limit", flag->text,
                  "Memory a lua-backend run may hold, its Lua heaps and key stores together: a whole number of "
                  "bytes or with K, M or G, from 16M to 1024G (default 1536M; explore's copies at most 128M; each of a campaign's workers its own); a run "
                  "that needs more stops with exit 2")
      ->type_name("SIZE")
      ->each([flag](const std::string&) { flag->given = true; });
}

LuaLimits validate_memory_limit(const MemoryLimitFlag& flag) {
  LuaLimits limits = LuaBackend::default_limits();
  if (!flag.given) return limits;
  const std::string& text = flag.text;
  const std::optional<uint64_t> bytes = parse_memory_size(text);
  if (!bytes) {
    throw UsageError("--memory-limit: '" + text +
                     "' is not a size (a whole number of bytes, or with a K, M or G suffix, e.g. 512M)");
  }
  if (*bytes < kMinMemoryLimitBytes || *bytes > kMaxMemoryLimitBytes) {
    throw UsageError("--memory-limit: '" + text + "' is outside 16M to 1024G");
  }
  limits.memory_bytes = static_cast<size_t>(*bytes);
  return limits;
}

}  // namespace locksim::cli
