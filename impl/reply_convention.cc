#include "impl/reply_convention.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace locksim {

namespace {

constexpr std::array<std::pair<ReplyMeaning, std::string_view>, 7> kMeaningNames = {{
    {ReplyMeaning::Acquired, "acquired"},
    {ReplyMeaning::Refused, "refused"},
    {ReplyMeaning::Released, "released"},
    {ReplyMeaning::StillHeld, "still_held"},
    {ReplyMeaning::NotOwned, "not_owned"},
    {ReplyMeaning::Extended, "extended"},
    {ReplyMeaning::NotHeld, "not_held"},
}};

ReplyPattern parse_pattern(const nlohmann::json& v, const std::string& where) {
  ReplyPattern p;
  if (v.is_null()) return p;  // Nil
  if (v.is_number_integer()) {
    p.kind = ReplyPattern::Kind::Integer;
    p.integer = v.get<int64_t>();
    return p;
  }
  if (!v.is_string() || v.get<std::string>().empty()) {
    throw std::invalid_argument(where + " must be null, an integer, \"integer\" or a reply text such as \"OK\", got " +
                                v.dump().substr(0, 60));
  }
  const std::string s = v.get<std::string>();
  if (s == "nil") return p;
  if (s == "integer") {
    p.kind = ReplyPattern::Kind::AnyInteger;
    return p;
  }
  p.kind = ReplyPattern::Kind::Text;
  p.text = s.size() >= 2 && s.front() == '\'' && s.back() == '\'' ? s.substr(1, s.size() - 2) : s;
  return p;
}

// Our reply for a meaning of `kind`'s script; `raw` is the matched reply (a
// refusal keeps its TTL). "Not owned" is nil from a release, 0 from a renewal.
Reply ours(ScriptKind kind, ReplyMeaning m, const Reply& raw) {
  switch (m) {
    case ReplyMeaning::Acquired: return Reply::nil();
    case ReplyMeaning::Refused: return Reply::of_int(raw.is_int() ? raw.integer : -1);
    case ReplyMeaning::Released: return Reply::of_int(1);
    case ReplyMeaning::StillHeld: return Reply::of_int(0);
    case ReplyMeaning::NotOwned:
      return kind == ScriptKind::RlockRenew || kind == ScriptKind::FasterMultiRenew ? Reply::of_int(0) : Reply::nil();
    case ReplyMeaning::Extended: return Reply::of_int(1);
    case ReplyMeaning::NotHeld: return Reply::of_int(0);
  }
  return raw;
}

}  // namespace

bool ReplyPattern::matches(const Reply& r) const {
  switch (kind) {
    case Kind::Nil: return r.is_nil();
    case Kind::Integer: return r.is_int() && r.integer == integer;
    case Kind::AnyInteger: return r.is_int();
    case Kind::Text: return r.kind == Reply::Kind::Bulk && r.text == text;
  }
  return false;
}

std::string ReplyPattern::describe() const {
  switch (kind) {
    case Kind::Nil: return "nil";
    case Kind::Integer: return std::to_string(integer);
    case Kind::AnyInteger: return "integer";
    case Kind::Text: return "\"" + text + "\"";
  }
  return "?";
}

std::string_view reply_meaning_name(ReplyMeaning m) {
  for (const auto& [meaning, name] : kMeaningNames)
    if (meaning == m) return name;
  return "?";
}

std::vector<ReplyMeaning> meanings_of(ScriptKind kind) {
  switch (kind) {
    case ScriptKind::RlockAcquire:
    case ScriptKind::FairAcquire:
    case ScriptKind::FairTryOnce:
    case ScriptKind::FasterMultiAcquire: return {ReplyMeaning::Acquired, ReplyMeaning::Refused};
    case ScriptKind::RlockRelease:
    case ScriptKind::SpinRelease:
    case ScriptKind::FasterMultiRelease:
    case ScriptKind::FairRelease: return {ReplyMeaning::Released, ReplyMeaning::StillHeld, ReplyMeaning::NotOwned};
    case ScriptKind::RlockRenew:
    case ScriptKind::FasterMultiRenew: return {ReplyMeaning::Extended, ReplyMeaning::NotOwned};
    case ScriptKind::RlockForceRelease:
    case ScriptKind::SpinForceRelease:
    case ScriptKind::FasterMultiForceRelease:
    case ScriptKind::FairForceRelease: return {ReplyMeaning::Released, ReplyMeaning::NotHeld};
    case ScriptKind::FairAcquireFailed: return {};
  }
  return {};
}

Reply ReplyConventions::read(Reply raw) const {
  if (raw.is_error()) return raw;
  for (const auto& [meaning, pattern] : rules)
    if (pattern.matches(raw)) return ours(kind, meaning, raw);
  return Reply::error("ERR locksim: " + std::string(script_name(kind)) + " answered " + raw.to_string() +
                      ", which is none of its declared replies (" + describe() + ")");
}

std::string ReplyConventions::describe() const {
  std::string out;
  for (const auto& [meaning, pattern] : rules)
    out += (out.empty() ? "" : ", ") + std::string(reply_meaning_name(meaning)) + " " + pattern.describe();
  return out;
}

bool ReplyConventions::is_ours() const {
  for (const auto& [meaning, pattern] : rules) {
    const Reply example = pattern.kind == ReplyPattern::Kind::AnyInteger ? Reply::of_int(7)
                          : pattern.kind == ReplyPattern::Kind::Integer  ? Reply::of_int(pattern.integer)
                          : pattern.kind == ReplyPattern::Kind::Nil      ? Reply::nil()
                                                                         : Reply::bulk(pattern.text);
    if (ours(kind, meaning, example) != example) return false;
  }
  return true;
}

ReplyConventions parse_reply_conventions(ScriptKind kind, const nlohmann::json& j, bool reentrant) {
  const std::vector<ReplyMeaning> meanings = meanings_of(kind);
  if (meanings.empty()) throw std::invalid_argument("this script's reply is not read, so it takes no \"replies\"");
  std::string known;
  for (ReplyMeaning m : meanings) known += (known.empty() ? "" : ", ") + std::string(reply_meaning_name(m));
  if (!j.is_object()) throw std::invalid_argument("must be an object of meanings (" + known + ") to replies");
  ReplyConventions out;
  out.kind = kind;
  for (const auto& [key, value] : j.items()) {
    const auto it = std::find_if(meanings.begin(), meanings.end(),
                                 [&name = key](ReplyMeaning m) { return reply_meaning_name(m) == name; });
    if (it == meanings.end()) {
      throw std::invalid_argument("unknown meaning \"" + key.substr(0, 40) + "\" for " +
                                  std::string(script_name(kind)) + " (known: " + known + ")");
    }
    if (*it == ReplyMeaning::StillHeld && !reentrant) {
      throw std::invalid_argument("\"still_held\": only a reentrant lock answers that a release left it held "
                                  "(the design says \"reentrant\": false)");
    }
    out.rules.emplace_back(*it, parse_pattern(value, "\"" + key + "\""));
  }
  for (ReplyMeaning m : meanings) {
    if (m == ReplyMeaning::StillHeld && !reentrant) continue;
    const bool declared = std::any_of(out.rules.begin(), out.rules.end(), [m](const auto& r) { return r.first == m; });
    if (!declared) throw std::invalid_argument("\"" + std::string(reply_meaning_name(m)) + "\" is missing");
  }
  // The same reply cannot mean two things.
  for (size_t a = 0; a < out.rules.size(); ++a) {
    for (size_t b = a + 1; b < out.rules.size(); ++b) {
      const ReplyPattern& x = out.rules[a].second;
      const ReplyPattern& y = out.rules[b].second;
      const bool overlap = (x.kind == y.kind && x.integer == y.integer && x.text == y.text) ||
                           (x.kind == ReplyPattern::Kind::AnyInteger && y.kind == ReplyPattern::Kind::Integer) ||
                           (y.kind == ReplyPattern::Kind::AnyInteger && x.kind == ReplyPattern::Kind::Integer);
      if (overlap) {
        throw std::invalid_argument("\"" + std::string(reply_meaning_name(out.rules[a].first)) + "\" and \"" +
                                    std::string(reply_meaning_name(out.rules[b].first)) + "\" both match " +
                                    (x.kind == ReplyPattern::Kind::AnyInteger ? y.describe() : x.describe()));
      }
    }
  }
  return out;
}

}  // namespace locksim
