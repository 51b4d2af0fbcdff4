#include "impl/script_pack.h"

#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "traces/bounded_json.h"

namespace locksim {

namespace {

constexpr const char* kFormatName = "locksim-script-pack";
constexpr size_t kMaxFileBytes = 1 << 20;  // a lock script is a few KB

std::string trim(const std::string& s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}

bool parse_int64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return false;
  }
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

// Reads a whole regular file of at most kMaxFileBytes (never more than that
// is read: a FIFO or device never gets this far); nullopt if it does not
// exist or cannot be opened. Throws ScriptPackError naming the path when it
// is a directory or another non-regular file, or too large.
std::optional<std::string> read_file(const std::string& path, const std::string& what) {
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

}  // namespace

PackExpr parse_pack_expr(const std::string& text, const std::string& where) {
  PackExpr expr;
  expr.text = text;
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t plus = text.find('+', start);
    parts.push_back(trim(text.substr(start, plus == std::string::npos ? std::string::npos : plus - start)));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  const bool is_sum = parts.size() > 1;
  for (const std::string& part : parts) {
    if (part.empty()) {
      throw ScriptPackError(where + ": empty term in expression \"" + text + "\"");
    }
    PackExpr::Term term;
    if (parse_int64(part, &term.literal)) {
      expr.terms.push_back(term);
      continue;
    }
    bool known = false;
    for (const auto& name : param_names()) known = known || name == part;
    if (!known) {
      std::string names;
      for (const auto& name : param_names()) names += (names.empty() ? "" : ", ") + name;
      throw ScriptPackError(where + ": unknown parameter \"" + part + "\" in expression \"" + text +
                            "\" (known: " + names + ")");
    }
    if (is_sum && !param_is_integer(part)) {
      throw ScriptPackError(where + ": parameter \"" + part +
                            "\" is not an integer and cannot be used in the sum \"" + text + "\"");
    }
    term.param = part;
    expr.terms.push_back(term);
  }
  assert(!expr.terms.empty());
  return expr;
}

std::string PackExpr::evaluate(const ScriptParams& params) const {
  assert(!terms.empty());
  if (terms.size() == 1 && !terms[0].param.empty()) {
    auto v = param_value(params, terms[0].param);
    assert(v.has_value());  // names were validated at load time
    return *v;
  }
  int64_t sum = 0;
  for (const Term& t : terms) {
    if (t.param.empty()) {
      sum += t.literal;
    } else {
      auto v = param_integer(params, t.param);
      assert(v.has_value());  // sums hold integer parameters only
      sum += *v;
    }
  }
  return std::to_string(sum);
}

std::string ScriptPack::default_dir() {
  const char* env = std::getenv("LOCKSIM_SCRIPTS");
  if (env != nullptr && env[0] != '\0') return env;
  return std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";
}

ScriptPack ScriptPack::load(const std::string& dir) {
  ScriptPack pack;
  pack.dir_ = dir;
  const std::string manifest_path = dir + "/manifest.json";
  const auto text = read_file(manifest_path, "the manifest");
  if (!text) {
    throw ScriptPackError(manifest_path + ": cannot read the manifest (is \"" + dir +
                          "\" a script pack directory?)");
  }
  nlohmann::json doc;
  try {
    doc = parse_bounded_json(*text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    throw ScriptPackError(manifest_path + ": invalid JSON at line " +
                          std::to_string(line_of_byte(*text, e.byte)) + ": " + what);
  } catch (const nlohmann::json::out_of_range&) {
    throw ScriptPackError(manifest_path + ": invalid JSON: a number is out of range");
  } catch (const JsonTooDeep& e) {
    throw ScriptPackError(manifest_path + ": " + e.what());
  }
  if (!doc.is_object()) throw ScriptPackError(manifest_path + ": the manifest must be a JSON object");
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
  if (!doc.contains("scripts") || !doc["scripts"].is_object()) {
    throw ScriptPackError(manifest_path + ": \"scripts\" is missing or not an object");
  }
  std::array<bool, kScriptKindCount> seen{};
  for (const auto& [name, entry] : doc["scripts"].items()) {
    const auto kind = script_from_name(name);
    const std::string where = manifest_path + ": script \"" + name + "\"";
    if (!kind) throw ScriptPackError(where + ": unknown script name");
    if (!entry.is_object()) throw ScriptPackError(where + ": entry must be an object");
    if (!entry.contains("file") || !entry["file"].is_string()) {
      throw ScriptPackError(where + ": \"file\" is missing or not a string");
    }
    PackScript script;
    script.kind = *kind;
    script.file = entry["file"].get<std::string>();
    script.path = dir + "/" + script.file;
    script.keys = parse_expr_list(entry, "keys", where);
    script.argv = parse_expr_list(entry, "argv", where);
    std::optional<std::string> source;
    try {
      source = read_file(script.path, "the Lua file");
    } catch (const ScriptPackError& e) {
      throw ScriptPackError(where + ": " + e.what());
    }
    if (!source) throw ScriptPackError(where + ": cannot read Lua file " + script.path);
    script.source = *source;
    const auto i = static_cast<size_t>(*kind);
    seen[i] = true;
    pack.scripts_[i] = std::move(script);
  }
  for (ScriptKind kind : all_script_kinds()) {
    if (!seen[static_cast<size_t>(kind)]) {
      throw ScriptPackError(manifest_path + ": script \"" + std::string(script_name(kind)) +
                            "\" is missing from \"scripts\"");
    }
  }
  return pack;
}

std::vector<std::string> ScriptPack::files() const {
  std::vector<std::string> out = {dir_ + "/manifest.json"};
  for (const PackScript& s : scripts_) out.push_back(s.path);
  return out;
}

const PackScript& ScriptPack::script(ScriptKind kind) const {
  const auto i = static_cast<size_t>(kind);
  assert(i < scripts_.size());
  return scripts_[i];
}

ScriptArgs ScriptPack::build_args(const ScriptCall& call) const {
  const PackScript& s = script(call.kind);
  ScriptArgs out;
  out.keys.reserve(s.keys.size());
  out.argv.reserve(s.argv.size());
  for (const auto& e : s.keys) out.keys.push_back(e.evaluate(call.params));
  for (const auto& e : s.argv) out.argv.push_back(e.evaluate(call.params));
  return out;
}

}  // namespace locksim
