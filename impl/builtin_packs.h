// Built-in script packs: the files of impl/lua (our scripts), impl/mutants/
// and impl/variants/ as they were when the library was built, compiled into
// it (impl/embed_packs.cmake generates their bytes), so that a binary copied
// to another host, or installed, needs no source checkout.
//
// A built-in file or pack is named by its path in the source tree behind the
// prefix "builtin:": "builtin:impl/lua" is our pack, "builtin:impl/mutants/
// release_no_publish/manifest.json" one file of a mutant pack. Names are
// normalised lexically before lookup, so a manifest's "../../lua/x.lua"
// resolves inside the built-in tree.
//
// Contract:
//  - Lookups never touch the file system: a built-in name that is not
//    compiled in is simply not found.
//  - builtin_pack_files() is sorted by path, and the same for the same
//    build; nothing here has state.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace locksim {

inline constexpr std::string_view kBuiltinPrefix = "builtin:";
// Our pack, the default when $LOCKSIM_SCRIPTS is not set.
inline constexpr std::string_view kBuiltinOurPack = "builtin:impl/lua";

struct BuiltinPackFile {
  std::string_view path;   // relative to the source tree, e.g. "impl/lua/manifest.json"
  std::string_view bytes;  // the file's bytes
};

// Every embedded file, sorted by path (generated at build time).
std::span<const BuiltinPackFile> builtin_pack_files();

// True if `name` starts with "builtin:".
bool is_builtin_name(std::string_view name);
// The bytes of the built-in file `name` ("builtin:impl/lua/manifest.json");
// nullopt if `name` is not a built-in name or no such file is compiled in.
std::optional<std::string_view> builtin_file(std::string_view name);
// True if `name` is a built-in pack directory (it holds a manifest.json).
bool builtin_pack_exists(std::string_view name);
// `name` in normal form ("builtin:impl/mutants/x/../../lua" ->
// "builtin:impl/lua"), what resolving a path is on disk (built-in names
// have no links), if it names a built-in file or directory; else nullopt.
std::optional<std::string> builtin_resolved(std::string_view name);
// True if `name` is a built-in directory (some built-in file lies under it).
bool builtin_is_dir(std::string_view name);
// The built-in name of the pack a model variant was written from:
// "builtin:impl/mutants/<name>", or "builtin:impl/variants/<name>" for a
// design variant (the caller passes variant_name() and whether it is one).
std::string builtin_variant_pack(std::string_view variant, bool design_variant);

}  // namespace locksim
