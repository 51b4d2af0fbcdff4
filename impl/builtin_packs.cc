#include "impl/builtin_packs.h"

#include <algorithm>
#include <filesystem>

namespace locksim {

namespace {

// "builtin:a/b/../c" -> "a/c"; nullopt if not a built-in name.
std::optional<std::string> tree_path(std::string_view name) {
  if (!is_builtin_name(name)) return std::nullopt;
  std::string rest = std::filesystem::path(name.substr(kBuiltinPrefix.size())).lexically_normal().string();
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  return rest;
}

}  // namespace

bool is_builtin_name(std::string_view name) { return name.starts_with(kBuiltinPrefix); }

std::optional<std::string_view> builtin_file(std::string_view name) {
  const auto path = tree_path(name);
  if (!path) return std::nullopt;
  const auto files = builtin_pack_files();
  const auto it = std::lower_bound(files.begin(), files.end(), *path,
                                   [](const BuiltinPackFile& f, const std::string& p) { return f.path < p; });
  if (it == files.end() || it->path != *path) return std::nullopt;
  return it->bytes;
}

bool builtin_is_dir(std::string_view name) {
  const auto path = tree_path(name);
  if (!path || path->empty() || *path == ".") return false;
  const std::string prefix = *path + "/";
  const auto files = builtin_pack_files();
  const auto it = std::lower_bound(files.begin(), files.end(), prefix,
                                   [](const BuiltinPackFile& f, const std::string& p) { return f.path < p; });
  return it != files.end() && it->path.starts_with(prefix);
}

std::optional<std::string> builtin_resolved(std::string_view name) {
  const auto path = tree_path(name);
  if (!path) return std::nullopt;
  const std::string normal = std::string(kBuiltinPrefix) + *path;
  if (builtin_file(normal) || builtin_is_dir(normal)) return normal;
  return std::nullopt;
}

bool builtin_pack_exists(std::string_view name) {
  return is_builtin_name(name) && builtin_file(std::string(name) + "/manifest.json").has_value();
}

std::string builtin_variant_pack(std::string_view variant, bool design_variant) {
  return std::string(kBuiltinPrefix) + (design_variant ? "impl/variants/" : "impl/mutants/") + std::string(variant);
}

}  // namespace locksim
