#include "impl/script_pack.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "impl/builtin_packs.h"
#include "model/scripts.h"
#include "traces/bounded_json.h"

namespace locksim {

namespace {

constexpr const char* kFormatName = "locksim-script-pack";
constexpr size_t kMaxFileBytes = 1 << 20;  // a lock script is a few KB

// Reads a whole regular file of at most kMaxFileBytes (never more than that
// is read: a FIFO or device never gets this far); nullopt if it does not
// exist or cannot be opened. Throws ScriptPackError naming the path when it
// is a directory or another non-regular file, or too large. A "builtin:"
// path is read from the built-in packs (impl/builtin_packs.h), never from
// the file system.
std::optional<std::string> read_file(const std::string& path, const std::string& what) {
  if (is_builtin_name(path)) {
    const auto bytes = builtin_file(path);
    if (!bytes) return std::nullopt;
    return std::string(*bytes);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  if (S_ISDIR(st.st_mode)) throw ScriptPackError(path + ": " + what + " is a directory, not a file");
  if (!S_ISREG(st.st_mode)) throw ScriptPackError(path + ": " + what + " is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text;
  char chunk[64 * 1024];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) {
      throw ScriptPackError(path + ": " + what + " is larger than " + std::to_string(kMaxFileBytes) +
                            " bytes");
    }
  }
  if (in.bad()) throw ScriptPackError(path + ": cannot read " + what);
  return text;
}

int line_of_byte(const std::string& text, size_t byte) {
  int line = 1;
  for (size_t i = 0; i < text.size() && i + 1 < byte; ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

std::vector<PackExpr> parse_expr_list(const nlohmann::json& entry, const char* field,
                                      const std::string& where) {
  const std::string here = where + ": \"" + field + "\"";
  if (!entry.contains(field)) throw ScriptPackError(here + " is missing");
  const auto& list = entry.at(field);
  if (!list.is_array()) throw ScriptPackError(here + " must be a list of expressions");
  std::vector<PackExpr> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& item = list[i];
    const std::string item_where = here + "[" + std::to_string(i) + "]";
    if (item.is_number_integer()) {
      out.push_back(parse_pack_expr(std::to_string(item.get<int64_t>()), item_where));
    } else if (item.is_string()) {
      out.push_back(parse_pack_expr(item.get<std::string>(), item_where));
    } else {
      throw ScriptPackError(item_where + ": expected a string expression, got " + describe_json_value(item));
    }
  }
  return out;
}

bool is_release(ScriptKind kind) {
  return kind == ScriptKind::RlockRelease || kind == ScriptKind::RlockForceRelease ||
         kind == ScriptKind::FairRelease || kind == ScriptKind::FairForceRelease ||
         kind == ScriptKind::FasterMultiRelease || kind == ScriptKind::FasterMultiForceRelease;
}

bool is_fair(ScriptKind kind) {
  return kind == ScriptKind::FairAcquire || kind == ScriptKind::FairTryOnce || kind == ScriptKind::FairRelease ||
         kind == ScriptKind::FairAcquireFailed || kind == ScriptKind::FairForceRelease;
}

// A pack without the spin lock's or the faster multi-lock's scripts (every
// pack written before them) provides every other kind; the lock kind that
// needs them refuses it, naming them.
bool optional_script(ScriptKind kind) {
  return kind == ScriptKind::FairAcquireFailed || kind == ScriptKind::RlockForceRelease ||
         kind == ScriptKind::FairForceRelease || is_optional_script(kind);
}

// Whether one of the kinds `design` provides runs `kind`'s script: the
// reentrant lock, multi-lock and RedLock (whose members are that lock) run
// rlock_acquire, rlock_release and rlock_renew; the fair lock its own
// acquire, try and release, and rlock_renew (its watchdog).
bool needed_by_kinds(ScriptKind kind, const LockDesign& design) {
  const bool plain = design.provides(DesignKind::Rlock) || design.provides(DesignKind::Multi) ||
                     design.provides(DesignKind::Redlock);
  const bool fair = design.provides(DesignKind::Fair);
  switch (kind) {
    case ScriptKind::RlockAcquire:
    case ScriptKind::RlockRelease: return plain;
    case ScriptKind::RlockRenew: return plain || fair;
    case ScriptKind::FairAcquire:
    case ScriptKind::FairTryOnce:
    case ScriptKind::FairRelease: return fair;
    default: return false;
  }
}

bool may_be_absent(ScriptKind kind, const LockDesign& design) {
  return optional_script(kind) || !needed_by_kinds(kind, design);
}

constexpr const char* kWaiter = "waiter";

// A Redis command name: letters, digits, '_' and '-', at most 64 characters.
bool is_command_name(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-';
    if (!ok) return false;
  }
  return true;
}

std::vector<ReplyAdapter> parse_reply_field(const nlohmann::json& v, const std::string& where) {
  const std::string here = where + ": \"reply\"";
  auto one = [&](const nlohmann::json& item, const std::string& at) {
    if (!item.is_string()) {
      throw ScriptPackError(at + ": expected a reply adapter name (" + reply_adapter_names() + "), got " +
                            describe_json_value(item));
    }
    const auto a = reply_adapter_from_name(item.get<std::string>());
    if (!a) {
      throw ScriptPackError(at + ": unknown reply adapter " + describe_json_value(item) + " (known: " +
                            reply_adapter_names() + ")");
    }
    return *a;
  };
  std::vector<ReplyAdapter> out;
  if (v.is_array()) {
    if (v.empty()) throw ScriptPackError(here + ": an empty list; leave \"reply\" out for the reply as is");
    for (size_t i = 0; i < v.size(); ++i) out.push_back(one(v[i], here + "[" + std::to_string(i) + "]"));
  } else {
    out.push_back(one(v, here));
  }
  return out;
}

// The directories a pack may read its files from: its own and the roots
// its manifest declares, each resolved (symbolic links followed).
struct PackRoots {
  std::vector<std::string> resolved;
  // Whether `path`, resolved, lies in one of them.
  bool contain(const std::string& resolved_path) const {
    for (const std::string& root : resolved) {
      if (resolved_path == root) return true;
      const std::string prefix = root == "/" ? root : root + "/";
      if (resolved_path.compare(0, prefix.size(), prefix) == 0) return true;
    }
    return false;
  }
};

std::optional<std::string> resolved_path(const std::string& path) {
  if (is_builtin_name(path)) return builtin_resolved(path);  // no links: resolved lexically
  char* r = ::realpath(path.c_str(), nullptr);
  if (r == nullptr) return std::nullopt;
  std::string out(r);
  std::free(r);
  return out;
}

// "settings": what the lock this pack implements fixes, each an override
// of a scenario default the command line can still override in turn.
//   fair_slot_ms: every fair-lock slot this long whatever the caller's wait
//                 (0: the wait), as --fair-slot-ms.
PackSettings parse_settings(const nlohmann::json& doc, const std::string& manifest_path) {
  if (!doc.is_object()) throw ScriptPackError(manifest_path + ": \"settings\" must be an object");
  PackSettings settings;
  for (const auto& [key, value] : doc.items()) {
    if (key == "fair_slot_ms") {
      if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > kMaxPackFairSlotMs) {
        throw ScriptPackError(manifest_path + ": \"settings\": \"fair_slot_ms\" must be an integer in [0, " +
                              std::to_string(kMaxPackFairSlotMs) + "], got " + describe_json_value(value));
      }
      settings.fair_slot_ms = value.get<int64_t>();
    } else {
      throw ScriptPackError(manifest_path + ": \"settings\": unknown setting \"" + key.substr(0, 40) +
                            "\" (known: fair_slot_ms)");
    }
  }
  return settings;
}

// "roots": relative directories, beside the pack's own, that its files may
// come from (a mutant pack reuses its parent's scripts: ["../../lua"]).
PackRoots parse_roots(const nlohmann::json& doc, const std::string& dir, const std::string& manifest_path) {
  PackRoots roots;
  const auto own = resolved_path(dir);
  if (!own) throw ScriptPackError(dir + ": cannot resolve the pack's directory");
  roots.resolved.push_back(*own);
  if (!doc.contains("roots")) return roots;
  const auto& list = doc["roots"];
  const std::string here = manifest_path + ": \"roots\"";
  if (!list.is_array()) throw ScriptPackError(here + " must be a list of directories relative to the pack's");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = here + "[" + std::to_string(i) + "]";
    if (!list[i].is_string() || list[i].get<std::string>().empty()) {
      throw ScriptPackError(at + ": expected a directory name, got " + describe_json_value(list[i]));
    }
    const std::string root = list[i].get<std::string>();
    if (root.find('\0') != std::string::npos) throw ScriptPackError(at + ": a NUL in a directory name is refused");
    if (root.front() == '/') throw ScriptPackError(at + ": must be relative to the pack's directory, got an absolute path");
    const auto resolved = resolved_path(dir + "/" + root);
    struct stat st {};
    const bool is_dir = resolved && (is_builtin_name(*resolved)
                                         ? builtin_is_dir(*resolved)
                                         : ::stat(resolved->c_str(), &st) == 0 && S_ISDIR(st.st_mode));
    if (!is_dir) {
      throw ScriptPackError(at + ": \"" + root + "\" is not a directory beside the pack");
    }
    roots.resolved.push_back(*resolved);
  }
  return roots;
}

// One entry of "scripts" (already known to be an object).
PackScript parse_script_entry(ScriptKind kind, const nlohmann::json& entry, const std::string& dir,
                              const PackRoots& roots, const LockDesign& design, const std::string& where) {
  PackScript script;
  script.kind = kind;
  static const char* const kFields[] = {"file", "command", "absent", "keys", "argv", "reply", "replies", "message",
                                        "wake_channel", "errors"};
  for (const auto& [field, value] : entry.items()) {
    (void)value;
    bool known = false;
    for (const char* f : kFields) known = known || field == f;
    if (!known) {
      throw ScriptPackError(where + ": unknown field \"" + field +
                            "\" (known: file, command, absent, keys, argv, reply, replies, message, wake_channel, "
                            "errors)");
    }
  }
  const int forms = static_cast<int>(entry.contains("file")) + static_cast<int>(entry.contains("command")) +
                    static_cast<int>(entry.contains("absent"));
  if (forms != 1) {
    throw ScriptPackError(where + ": needs exactly one of \"file\" (a Lua script), \"command\" (one Redis "
                                  "command) or \"absent\": true");
  }
  if (entry.contains("absent")) {
    if (entry["absent"] != true) throw ScriptPackError(where + ": \"absent\" must be true");
    if (!may_be_absent(kind, design)) {
      throw ScriptPackError(where + ": \"absent\": this script cannot be absent: the lock kinds the pack provides (" +
                            design_kinds_text(design) +
                            ") run it (fair_acquire_failed, rlock_force_release and fair_force_release can always "
                            "be absent; declare the kinds in \"design\": \"kinds\")");
    }
    if (entry.size() != 1) {
      throw ScriptPackError(where + ": an absent script takes no other field");
    }
    script.form = PackForm::Absent;
    return script;
  }
  if (entry.contains("file")) {
    if (!entry["file"].is_string()) throw ScriptPackError(where + ": \"file\" is missing or not a string");
    script.form = PackForm::Lua;
    script.file = entry["file"].get<std::string>();
    const std::string& file = script.file;
    if (file.empty()) throw ScriptPackError(where + ": \"file\" is empty");
    if (file.find('\0') != std::string::npos) throw ScriptPackError(where + ": \"file\": a NUL in a file name is refused");
    if (file.front() == '/') {
      throw ScriptPackError(where + ": \"file\" must be relative to the pack's directory, got an absolute path "
                                    "(declare other directories in \"roots\")");
    }
    script.path = dir + "/" + file;
    // Only inside the pack's directory tree or a declared root, links
    // resolved: nothing else is read (or sent to a server, or quoted in an error).
    if (const auto resolved = resolved_path(script.path); resolved && !roots.contain(*resolved)) {
      throw ScriptPackError(where + ": \"file\" \"" + file + "\" lies outside the pack's directory" +
                            (roots.resolved.size() > 1 ? " and its \"roots\"" : "") +
                            " (declare its directory in \"roots\", relative to the pack)");
    }
  } else {
    const auto& c = entry["command"];
    if (!c.is_string() || !is_command_name(c.get<std::string>())) {
      throw ScriptPackError(where + ": \"command\" must be one Redis command name such as \"PEXPIRE\" (letters, "
                                    "digits, '_', '-'), got " + describe_json_value(c));
    }
    script.form = PackForm::Command;
    script.command = c.get<std::string>();
  }
  script.keys = parse_expr_list(entry, "keys", where);
  script.argv = parse_expr_list(entry, "argv", where);
  if (entry.contains("reply")) script.reply = parse_reply_field(entry["reply"], where);
  if (entry.contains("replies")) {
    try {
      script.replies = parse_reply_conventions(kind, entry["replies"], design.reentrant);
      if (script.replies->is_ours()) script.replies.reset();  // ours declared: as if not declared
    } catch (const std::invalid_argument& e) {
      throw ScriptPackError(where + ": \"replies\": " + e.what());
    }
  }
  if (entry.contains("errors")) {
    const auto& list = entry["errors"];
    const std::string here = where + ": \"errors\"";
    if (!list.is_array() || list.empty()) {
      throw ScriptPackError(here + " must be a non-empty list of error reply prefixes (e.g. [\"ERR lock busy\"])");
    }
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string() || list[i].get<std::string>().empty()) {
        throw ScriptPackError(here + "[" + std::to_string(i) + "]: expected a non-empty text, got " +
                              describe_json_value(list[i]));
      }
      script.errors.push_back(list[i].get<std::string>());
    }
  }
  for (const char* field : {"message", "wake_channel"}) {
    if (entry.contains(field) && !is_release(kind)) {
      throw ScriptPackError(where + ": \"" + field +
                            "\" is only for the scripts that publish the unlock message (rlock_release, "
                            "rlock_force_release, fair_release, fair_force_release, faster_multi_release, "
                            "faster_multi_force_release)");
    }
  }
  if (entry.contains("message")) {
    const auto& m = entry["message"];
    if (m.is_number_integer()) {
      script.message = std::to_string(m.get<int64_t>());
    } else if (m.is_string() && !m.get<std::string>().empty()) {
      script.message = m.get<std::string>();
    } else {
      throw ScriptPackError(where + ": \"message\" must be a non-empty string or an integer, got " +
                            describe_json_value(m));
    }
  }
  if (entry.contains("wake_channel")) {
    const auto& w = entry["wake_channel"];
    const std::string here = where + ": \"wake_channel\"";
    if (!w.is_string()) throw ScriptPackError(here + ": expected a string expression, got " + describe_json_value(w));
    const bool fair = is_fair(kind);
    PackExpr e = fair ? parse_pack_expr(w.get<std::string>(), here, {kWaiter}) : parse_pack_expr(w.get<std::string>(), here);
    if (e.op == PackExpr::Op::Sum) throw ScriptPackError(here + ": a channel name is text, not a sum");
    if (fair) {
      int waiters = 0;
      for (const auto& t : e.terms) waiters += t.kind == PackExpr::Term::Kind::Extra ? 1 : 0;
      if (waiters != 1) {
        throw ScriptPackError(here + ": a fair-lock wake-up channel must name the woken waiter exactly once "
                                     "(e.g. \"channel_prefix .. ':' .. waiter\"), got \"" + e.text + "\"");
      }
    }
    script.wake_channel = std::move(e);
  }
  if (script.form == PackForm::Lua) {
    std::optional<std::string> source;
    try {
      source = read_file(script.path, "the Lua file");
    } catch (const ScriptPackError& e) {
      throw ScriptPackError(where + ": " + e.what());
    }
    if (!source) throw ScriptPackError(where + ": cannot read Lua file " + script.path);
    script.source = *source;
  }
  return script;
}

// The design's holder read script: a Lua script entry with "file", "keys"
// and "argv" only. Its reply is the list of holders.
PackScript parse_holder_script(const nlohmann::json& entry, const std::string& dir, const PackRoots& roots,
                               const LockDesign& design, const std::string& where) {
  for (const auto& [field, value] : entry.items()) {
    (void)value;
    if (field != "file" && field != "keys" && field != "argv") {
      throw ScriptPackError(where + ": unknown field \"" + field.substr(0, 40) +
                            "\" (a holder read script takes file, keys and argv)");
    }
  }
  if (!entry.contains("file")) throw ScriptPackError(where + ": a holder read script needs \"file\" (a Lua script)");
  // Parsed as a script that takes no conventions of its own.
  return parse_script_entry(ScriptKind::RlockRenew, entry, dir, roots, design, where);
}

std::string exprs_line(const char* name, const std::vector<PackExpr>& exprs) {
  std::string out = name;
  for (const PackExpr& e : exprs) out += "\t" + e.text;
  return out + "\n";
}

}  // namespace

std::string PackScript::conventions_text() const {
  std::string out;
  switch (form) {
    case PackForm::Lua: out += "form lua\n"; break;
    case PackForm::Command: out += "form command " + command + "\n"; break;
    case PackForm::Absent: return "form absent\n";
  }
  out += exprs_line("keys", keys);
  out += exprs_line("argv", argv);
  out += "reply";
  for (ReplyAdapter a : reply) out += "\t" + std::string(reply_adapter_name(a));
  out += "\n";
  if (replies) out += "replies\t" + replies->describe() + "\n";
  if (message) out += "message\t" + *message + "\n";
  if (wake_channel) out += "wake_channel\t" + wake_channel->text + "\n";
  for (const std::string& e : errors) out += "error\t" + e + "\n";
  return out;
}

std::string PackScript::describe() const {
  switch (form) {
    case PackForm::Lua: return "the Lua file " + path;
    case PackForm::Command: return "the command " + command;
    case PackForm::Absent: return "absent";
  }
  return "?";
}

std::string ScriptPack::default_dir() {
  const char* env = std::getenv("LOCKSIM_SCRIPTS");
  if (env != nullptr && env[0] != '\0') return env;
  return std::string(kBuiltinOurPack);
}

ScriptPack ScriptPack::load(const std::string& dir) {
  ScriptPack pack;
  pack.dir_ = dir;
  const std::string manifest_path = dir + "/manifest.json";
  {
    const auto own = resolved_path(dir);
    const auto resolved = resolved_path(manifest_path);
    if (own && resolved && resolved->compare(0, own->size() + 1, *own + "/") != 0) {
      throw ScriptPackError(manifest_path + ": the manifest is a link to a file outside the pack's directory");
    }
  }
  const auto text = read_file(manifest_path, "the manifest");
  if (!text) {
    if (is_builtin_name(dir)) {
      throw ScriptPackError(manifest_path + ": no such built-in script pack (built in: builtin:impl/lua, "
                                            "builtin:impl/mutants/<mutant>, builtin:impl/variants/<variant>)");
    }
    throw ScriptPackError(manifest_path + ": cannot read the manifest (is \"" + dir +
                          "\" a script pack directory?)");
  }
  nlohmann::json doc;
  try {
    doc = parse_bounded_json(*text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    // The parser quotes what it last read: the file's own bytes stay out of
    // the message.
    if (const size_t quoted = what.find("; last read"); quoted != std::string::npos) what.resize(quoted);
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    throw ScriptPackError(manifest_path + ": invalid JSON at line " +
                          std::to_string(line_of_byte(*text, e.byte)) + ": " + what);
  } catch (const nlohmann::json::out_of_range&) {
    throw ScriptPackError(manifest_path + ": invalid JSON: a number is out of range");
  } catch (const JsonRefused& e) {
    throw ScriptPackError(manifest_path + ": " + e.what());
  }
  if (!doc.is_object()) throw ScriptPackError(manifest_path + ": the manifest must be a JSON object");
  for (const auto& [key, value] : doc.items()) {
    (void)value;
    if (key != "format" && key != "version" && key != "model_variant" && key != "scripts" && key != "roots" &&
        key != "settings" && key != "design") {
      throw ScriptPackError(manifest_path + ": unknown key \"" + key.substr(0, 40) +
                            "\" (known: format, version, model_variant, design, roots, scripts, settings)");
    }
  }
  if (!doc.contains("format") || doc["format"] != kFormatName) {
    throw ScriptPackError(manifest_path + ": \"format\" must be \"" + kFormatName + "\"");
  }
  if (!doc.contains("version") || !doc["version"].is_number_integer()) {
    throw ScriptPackError(manifest_path + ": \"version\" is missing or not an integer");
  }
  if (doc["version"].get<int64_t>() != kFormatVersion) {
    throw ScriptPackError(manifest_path + ": unsupported version " + describe_json_value(doc["version"]) +
                          " (this build reads version " + std::to_string(kFormatVersion) + ")");
  }
  if (doc.contains("model_variant")) {
    const auto& v = doc["model_variant"];
    std::optional<ModelVariant> variant;
    if (v.is_string()) variant = variant_from_name(v.get<std::string>());
    if (!variant) {
      std::string names;
      for (ModelVariant m : all_variants()) names += (names.empty() ? "" : ", ") + std::string(variant_name(m));
      throw ScriptPackError(manifest_path + ": unknown \"model_variant\" " + describe_json_value(v) + " (known: " +
                            names + ")");
    }
    pack.model_variant_ = variant;
  }
  if (doc.contains("settings")) pack.settings_ = parse_settings(doc["settings"], manifest_path);
  if (!doc.contains("scripts") || !doc["scripts"].is_object()) {
    throw ScriptPackError(manifest_path + ": \"scripts\" is missing or not an object");
  }
  const PackRoots roots = parse_roots(doc, dir, manifest_path);
  const bool has_design = doc.contains("design");
  if (has_design) {
    const std::string where = manifest_path + ": \"design\"";
    try {
      pack.design_ = design_from_json(doc["design"], true);
    } catch (const DesignError& e) {
      throw ScriptPackError(where + ": " + e.what());
    }
    if (pack.design_.holders == HolderRead::Script) {
      pack.holder_script_ = parse_holder_script(doc["design"]["holders"], dir, roots, pack.design_,
                                                where + ": \"holders\"");
    }
  }
  std::array<bool, kScriptKindCount> seen{};
  for (const auto& [name, entry] : doc["scripts"].items()) {
    const auto kind = script_from_name(name);
    const std::string where = manifest_path + ": script \"" + name + "\"";
    if (!kind) throw ScriptPackError(where + ": unknown script name");
    if (!entry.is_object()) throw ScriptPackError(where + ": entry must be an object");
    PackScript script = parse_script_entry(*kind, entry, dir, roots, pack.design_, where);
    const auto i = static_cast<size_t>(*kind);
    seen[i] = true;
    pack.scripts_[i] = std::move(script);
  }
  for (ScriptKind kind : all_script_kinds()) {
    const auto i = static_cast<size_t>(kind);
    if (seen[i]) continue;
    // Left out: absent (the spin lock's and the faster multi-lock's scripts
    // with or without a design).
    if ((has_design && may_be_absent(kind, pack.design_)) || is_optional_script(kind)) {
      pack.scripts_[i].kind = kind;
      pack.scripts_[i].form = PackForm::Absent;
      continue;
    }
    throw ScriptPackError(manifest_path + ": script \"" + std::string(script_name(kind)) +
                          "\" is missing from \"scripts\"" +
                          (has_design ? " (the lock kinds the pack provides, " + design_kinds_text(pack.design_) +
                                            ", run it)"
                                      : ""));
  }
  return pack;
}

std::vector<std::string> ScriptPack::files() const {
  std::vector<std::string> out = {dir_ + "/manifest.json"};
  for (const PackScript& s : scripts_) {
    if (s.form == PackForm::Lua) out.push_back(s.path);
  }
  if (holder_script_) out.push_back(holder_script_->path);
  return out;
}

std::string ScriptPack::holder_read_text() const {
  switch (design_.holders) {
    case HolderRead::HashFields: return "HKEYS";
    case HolderRead::StringValue: return "GET";
    case HolderRead::Script: return "the holder read script " + holder_script_->path;
  }
  return "?";
}

void ScriptPack::read_holders(const std::string& lock, const Reply& raw, std::vector<std::string>* out) const {
  out->clear();
  auto fail = [&](const std::string& why) {
    throw HolderReadError("reading the holders of " + lock + " with " + holder_read_text() + ": " + why +
                          " (the pack's \"design\" declares its holders as " +
                          std::string(holder_read_name(design_.holders)) + ")");
  };
  if (raw.is_error()) fail("it answered " + raw.to_string());
  switch (design_.holders) {
    case HolderRead::HashFields:
      if (raw.kind != Reply::Kind::Array) fail("expected a list of fields, got " + raw.to_string());
      for (const Reply& h : raw.elements) out->push_back(h.text);
      break;
    case HolderRead::StringValue:
      if (raw.is_nil()) return;
      if (raw.kind != Reply::Kind::Bulk) fail("expected a string value or nil, got " + raw.to_string());
      out->push_back(raw.text);
      return;
    case HolderRead::Script:
      if (raw.is_nil()) return;
      if (raw.kind != Reply::Kind::Array) fail("expected a list of holders (or nil), got " + raw.to_string());
      for (const Reply& h : raw.elements) {
        if (h.kind != Reply::Kind::Bulk) fail("expected a list of texts, got the element " + h.to_string());
        out->push_back(h.text);
      }
      break;
  }
  std::sort(out->begin(), out->end());
}

const PackScript& ScriptPack::script(ScriptKind kind) const {
  const auto i = static_cast<size_t>(kind);
  assert(i < scripts_.size());
  return scripts_[i];
}

ScriptArgs ScriptPack::build_args(const ScriptCall& call) const {
  ScriptArgs out;
  build_args_into(call, &out);
  return out;
}

bool ScriptPack::declares_error(ScriptKind kind, const Reply& reply) const {
  if (!reply.is_error()) return false;
  const PackScript& s = script(kind);
  if (s.form == PackForm::Absent) return true;
  for (const std::string& prefix : s.errors)
    if (reply.text.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

void ScriptPack::build_args_into(const ScriptCall& call, ScriptArgs* out) const {
  const PackScript& s = script(call.kind);
  if (s.form == PackForm::Absent) {
    out->keys.clear();
    out->argv.clear();
    return;
  }
  const ScriptParams* params = &call.params;
  ScriptParams with_message;
  if (s.message) {
    with_message = call.params;
    with_message.message = *s.message;
    params = &with_message;
  }
  out->keys.resize(s.keys.size());
  out->argv.resize(s.argv.size());
  for (size_t i = 0; i < s.keys.size(); ++i) s.keys[i].evaluate_into(*params, &out->keys[i]);
  for (size_t i = 0; i < s.argv.size(); ++i) s.argv[i].evaluate_into(*params, &out->argv[i]);
}

Reply ScriptPack::adapt_reply(ScriptKind kind, Reply raw) const {
  const PackScript& s = script(kind);
  Reply adapted = apply_reply_adapters(s.reply, std::move(raw));
  return s.replies ? s.replies->read(std::move(adapted)) : adapted;
}

Published ScriptPack::canonical_published(const ScriptCall& call, Published raw) const {
  const PackScript& s = script(call.kind);
  if (s.message && raw.payload == *s.message) raw.payload = call.params.message;
  if (!s.wake_channel) return raw;
  const PackExpr& tmpl = *s.wake_channel;
  if (!tmpl.uses_extra()) {  // the reentrant lock: one channel per lock
    if (raw.channel == tmpl.evaluate(call.params)) raw.channel = call.params.channel;
    return raw;
  }
  // The fair lock: <text before waiter><waiter><text after waiter>.
  std::string before;
  std::string after;
  bool seen = false;
  for (const PackExpr::Term& t : tmpl.terms) {
    PackExpr one;
    one.terms = {t};
    if (t.kind == PackExpr::Term::Kind::Extra) {
      seen = true;
    } else {
      (seen ? after : before) += one.evaluate(call.params);
    }
  }
  const std::string& c = raw.channel;
  if (c.size() > before.size() + after.size() && c.compare(0, before.size(), before) == 0 &&
      c.compare(c.size() - after.size(), after.size(), after) == 0) {
    const std::string waiter = c.substr(before.size(), c.size() - before.size() - after.size());
    raw.channel = call.params.channel_prefix + ":" + waiter;
  }
  return raw;
}

Reply ScriptPack::absent_reply(ScriptKind kind) { return absent_script_reply(kind); }

}  // namespace locksim
