#include "properties/event_facts.h"

#include <array>
#include <charconv>
#include <utility>

namespace locksim {

namespace {

constexpr std::array<std::pair<std::string_view, OpName>, 9> kOpNames = {{
    {"lock", OpName::Lock},
    {"try_lock", OpName::TryLock},
    {"unlock", OpName::Unlock},
    {"force_unlock", OpName::ForceUnlock},
    {"renew", OpName::Renew},
    {"acquire_failed", OpName::AcquireFailed},
    {"hold_lost", OpName::HoldLost},
    {"watchdog_stop", OpName::WatchdogStop},
    {"validity_end", OpName::ValidityEnd},
}};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Same answer as script_from_name, without comparing every name: the
// length and the last byte rule out all but one or two.
std::optional<ScriptKind> script_kind_of(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (int i = 0; i < kScriptKindCount; ++i) {
    const auto kind = static_cast<ScriptKind>(i);
    const std::string_view known = script_name(kind);
    if (known.size() == name.size() && known.back() == name.back() && known == name) return kind;
  }
  return std::nullopt;
}

}  // namespace

OpName op_name_of(std::string_view op) {
  if (op.empty()) return OpName::Other;
  for (const auto& [name, value] : kOpNames) {
    if (name.size() == op.size() && name.front() == op.front() && name == op) return value;
  }
  return OpName::Other;
}

EventFacts facts_of(const Event& e) {
  EventFacts f;
  f.op = op_name_of(e.op);
  if (!e.script.empty()) {
    const std::string_view s = e.script;
    f.script = script_kind_of(s);
    f.fair_prefix = starts_with(s, "fair_");
    f.acquire_suffix = ends_with(s, "_acquire");
    f.try_once_suffix = ends_with(s, "_try_once");
    f.renew_suffix = ends_with(s, "_renew");
    f.release_suffix = ends_with(s, "_release");
  }
  if (!e.reply.empty()) {
    f.reply_nil = e.reply == "nil";
    int64_t value = 0;
    const char* end = e.reply.data() + e.reply.size();
    const auto [ptr, ec] = std::from_chars(e.reply.data(), end, value);
    if (ec == std::errc() && ptr == end) f.reply_integer = value;
  }
  return f;
}

}  // namespace locksim
