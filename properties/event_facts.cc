#include "properties/event_facts.h"

#include <array>
#include <utility>

namespace locksim {

namespace {

constexpr bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}
constexpr bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

struct NameFlags {
  bool fair_prefix = false;
  bool acquire_suffix = false;
  bool try_once_suffix = false;
  bool renew_suffix = false;
  bool release_suffix = false;
};
constexpr NameFlags flags_of(std::string_view s) {
  return NameFlags{starts_with(s, "fair_"), ends_with(s, "_acquire"), ends_with(s, "_try_once"),
                   ends_with(s, "_renew"), ends_with(s, "_release")};
}
// Each kind's flags, read from its name once (script_name is defined in
// another translation unit: calling it per event was most of facts_of).
std::array<NameFlags, kScriptKindCount> kind_flags() {
  std::array<NameFlags, kScriptKindCount> out{};
  for (int i = 0; i < kScriptKindCount; ++i) {
    out[static_cast<size_t>(i)] = flags_of(script_name(static_cast<ScriptKind>(i)));
  }
  return out;
}
// Immutable after static initialisation (script_name reads a constant table).
const std::array<NameFlags, kScriptKindCount> kKindFlags = kind_flags();

}  // namespace

EventFacts facts_of(const Event& e) {
  EventFacts f;
  if (!e.script.empty()) {
    const std::string_view s = e.script;
    f.script = script_from_name(s);
    // A known name's flags are read from its kind's name, once per kind.
    const NameFlags flags = f.script ? kKindFlags[static_cast<size_t>(*f.script)] : flags_of(s);
    f.fair_prefix = flags.fair_prefix;
    f.acquire_suffix = flags.acquire_suffix;
    f.try_once_suffix = flags.try_once_suffix;
    f.renew_suffix = flags.renew_suffix;
    f.release_suffix = flags.release_suffix;
  }
  f.reply_nil = e.reply.is_nil();
  if (e.reply.is_integer()) f.reply_integer = e.reply.integer;
  return f;
}

}  // namespace locksim
