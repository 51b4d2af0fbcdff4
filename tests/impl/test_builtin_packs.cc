// Built-in script packs (impl/builtin_packs.h): exactly the source tree's
// impl/lua, impl/mutants/ and impl/variants/ files, byte for byte; names
// resolve lexically and never reach the file system; every built-in pack
// loads and is, script for script, the pack of the same name on disk.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "impl/builtin_packs.h"
#include "impl/script_pack.h"
#include "model/variant.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = LOCKSIM_SOURCE_DIR;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every regular file under the source tree's pack folders, by path from the root.
std::map<std::string, std::string> source_pack_files() {
  std::map<std::string, std::string> out;
  for (const char* dir : {"impl/lua", "impl/mutants", "impl/variants", "impl/hunt"}) {
    for (const auto& e : fs::recursive_directory_iterator(kSource / dir)) {
      if (e.is_regular_file()) out[e.path().lexically_relative(kSource).string()] = read_bytes(e.path());
    }
  }
  return out;
}

TEST(BuiltinPacks, HoldExactlyTheSourceTreesPackFiles) {
  const auto expected = source_pack_files();
  ASSERT_FALSE(expected.empty());
  std::map<std::string, std::string> embedded;
  for (const BuiltinPackFile& f : builtin_pack_files()) embedded[std::string(f.path)] = std::string(f.bytes);
  EXPECT_EQ(embedded.size(), builtin_pack_files().size()) << "a path is embedded twice";
  for (const auto& [path, bytes] : expected) {
    ASSERT_TRUE(embedded.count(path)) << path << " is not built in";
    EXPECT_EQ(embedded.at(path), bytes) << path << " differs from the source tree";
  }
  for (const auto& [path, bytes] : embedded) EXPECT_TRUE(expected.count(path)) << path << " is not in the source tree";
}

TEST(BuiltinPacks, SortedByPathForLookup) {
  const auto files = builtin_pack_files();
  for (size_t i = 1; i < files.size(); ++i) EXPECT_LT(files[i - 1].path, files[i].path);
}

TEST(BuiltinPacks, NamesResolveLexicallyAndNeverReachTheFileSystem) {
  const auto manifest = builtin_file("builtin:impl/lua/manifest.json");
  ASSERT_TRUE(manifest.has_value());
  EXPECT_EQ(std::string(*manifest), read_bytes(kSource / "impl/lua/manifest.json"));
  // A mutant pack's manifest names our scripts as ../../lua/<file>.
  EXPECT_EQ(builtin_file("builtin:impl/mutants/release_no_publish/../../lua/rlock_renew.lua"),
            builtin_file("builtin:impl/lua/rlock_renew.lua"));
  // Files of the source tree that are not pack files are not found, even
  // though they exist on disk; nor are plain paths.
  ASSERT_TRUE(fs::exists(kSource / "CMakeLists.txt"));
  EXPECT_FALSE(builtin_file("builtin:impl/lua/../../CMakeLists.txt").has_value());
  EXPECT_FALSE(builtin_file("builtin:CMakeLists.txt").has_value());
  EXPECT_FALSE(builtin_file((kSource / "impl/lua/manifest.json").string()).has_value());
  EXPECT_FALSE(builtin_file("builtin:impl/lua").has_value());  // a directory is not a file
  // Resolving (what realpath is on disk) is lexical, and only for what is built in.
  EXPECT_EQ(builtin_resolved("builtin:impl/mutants/release_no_publish/../../lua"), "builtin:impl/lua");
  EXPECT_EQ(builtin_resolved("builtin:impl/lua/./manifest.json"), "builtin:impl/lua/manifest.json");
  EXPECT_FALSE(builtin_resolved("builtin:impl/lua/../../..").has_value());
  EXPECT_FALSE(builtin_resolved("builtin:impl/mutants/no_such_mutant").has_value());
  EXPECT_TRUE(builtin_is_dir("builtin:impl/mutants"));
  EXPECT_FALSE(builtin_is_dir("builtin:impl/lua/manifest.json"));
  EXPECT_FALSE(builtin_is_dir("builtin:impl/lu"));  // a prefix of a name is not a directory
  EXPECT_TRUE(builtin_pack_exists("builtin:impl/lua"));
  EXPECT_TRUE(builtin_pack_exists("builtin:impl/lua/"));
  EXPECT_FALSE(builtin_pack_exists("builtin:impl/mutants"));
  EXPECT_FALSE(builtin_pack_exists((kSource / "impl/lua").string()));
}

// Loaded from the library and from the source tree, a pack runs alike: the
// same Lua text and the same conventions, script for script.
void expect_same_pack(const std::string& builtin, const fs::path& on_disk) {
  const ScriptPack a = ScriptPack::load(builtin);
  const ScriptPack b = ScriptPack::load(on_disk.string());
  EXPECT_EQ(a.dir(), builtin);
  EXPECT_EQ(a.model_variant(), b.model_variant()) << builtin;
  for (ScriptKind kind : all_script_kinds()) {
    EXPECT_EQ(a.script(kind).source, b.script(kind).source) << builtin << " " << script_name(kind);
    EXPECT_EQ(a.script(kind).conventions_text(), b.script(kind).conventions_text()) << builtin;
  }
}

TEST(BuiltinPacks, EveryPackLoadsAsItsSourceTreeCopy) {
  expect_same_pack("builtin:impl/lua", kSource / "impl/lua");
  int packs = 0;
  for (ModelVariant v : all_variants()) {
    if (v == ModelVariant::Correct) continue;
    const std::string name = builtin_variant_pack(variant_name(v), is_design_variant(v));
    ASSERT_TRUE(builtin_pack_exists(name)) << name;
    expect_same_pack(name, kSource / name.substr(kBuiltinPrefix.size()));
    EXPECT_EQ(ScriptPack::load(name).model_variant(), v) << name;
    ++packs;
  }
  EXPECT_GT(packs, 0);
}

TEST(BuiltinPacks, AnUnknownBuiltinPackIsAClearError) {
  try {
    (void)ScriptPack::load("builtin:impl/mutants/no_such_mutant");
    FAIL() << "loaded";
  } catch (const ScriptPackError& e) {
    EXPECT_NE(std::string(e.what()).find("no such built-in script pack"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace locksim
