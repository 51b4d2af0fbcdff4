// ScriptPack loader: the shipped packs load; build_args follows the manifest
// (including sums and reordered layouts); every kind of broken pack is
// rejected with a message naming the file and the problem.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "impl/script_pack.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

const std::string kOurs = std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";
const std::string kReordered = std::string(LOCKSIM_SOURCE_DIR) + "/tests/impl/packs/reordered";

// A copy of our pack in a fresh temporary directory, removed at the end.
class TempPack {
 public:
  TempPack() {
    std::string templ = (fs::temp_directory_path() / "locksim-pack-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
    for (const auto& entry : fs::directory_iterator(kOurs)) {
      fs::copy_file(entry.path(), fs::path(dir_) / entry.path().filename());
    }
    std::ifstream in(dir_ + "/manifest.json");
    manifest_ = nlohmann::json::parse(in);
  }
  ~TempPack() { fs::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  nlohmann::json& manifest() { return manifest_; }
  void write_manifest() { write("manifest.json", manifest_.dump(2)); }
  void write(const std::string& file, const std::string& text) {
    std::ofstream out(dir_ + "/" + file, std::ios::trunc);
    out << text;
  }

 private:
  std::string dir_;
  nlohmann::json manifest_;
};

// Loads `dir` and returns the error message ("" if it loaded).
std::string load_error(const std::string& dir) {
  try {
    ScriptPack::load(dir);
  } catch (const ScriptPackError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

ScriptCall sample_call(ScriptKind kind) {
  ScriptCall c;
  c.kind = kind;
  c.params.lock = "L";
  c.params.owner = "A:1";
  c.params.channel = "ch";
  c.params.channel_prefix = "chp";
  c.params.line = "q";
  c.params.deadlines = "t";
  c.params.latch = "latch";
  c.params.message = "0";
  c.params.lease_ms = 30000;
  c.params.wait_ms = 5000;
  c.params.now_ms = 1700000000000;
  c.params.latch_ttl_ms = 10000;
  return c;
}

TEST(ScriptPack, OursLoadsEveryScript) {
  const ScriptPack pack = ScriptPack::load(kOurs);
  EXPECT_FALSE(pack.model_variant().has_value());
  for (ScriptKind kind : all_script_kinds()) {
    const PackScript& s = pack.script(kind);
    EXPECT_EQ(s.kind, kind);
    EXPECT_EQ(s.file, std::string(script_name(kind)) + ".lua");
    EXPECT_FALSE(s.source.empty()) << s.file;
  }
}

TEST(ScriptPack, BuildArgsFollowsTheManifest) {
  const ScriptPack pack = ScriptPack::load(kOurs);
  const ScriptArgs acquire = pack.build_args(sample_call(ScriptKind::RlockAcquire));
  EXPECT_EQ(acquire.keys, (std::vector<std::string>{"L"}));
  EXPECT_EQ(acquire.argv, (std::vector<std::string>{"30000", "A:1"}));
  const ScriptArgs release = pack.build_args(sample_call(ScriptKind::FairRelease));
  EXPECT_EQ(release.keys, (std::vector<std::string>{"L", "q", "t", "chp", "latch"}));
  EXPECT_EQ(release.argv, (std::vector<std::string>{"0", "30000", "A:1", "1700000000000", "10000"}));
}

TEST(ScriptPack, ReorderedPackPrecomputesSums) {
  const ScriptPack pack = ScriptPack::load(kReordered);
  const ScriptArgs a = pack.build_args(sample_call(ScriptKind::FairAcquire));
  EXPECT_EQ(a.keys, (std::vector<std::string>{"L", "q", "t"}));
  EXPECT_EQ(a.argv, (std::vector<std::string>{"A:1", "1700000000000", "1700000005000", "30000"}));
  const ScriptArgs r = pack.build_args(sample_call(ScriptKind::RlockRelease));
  EXPECT_EQ(r.keys, (std::vector<std::string>{"L", "latch"}));
  EXPECT_EQ(r.argv, (std::vector<std::string>{"A:1", "ch", "0", "10000", "30000"}));
}

TEST(ScriptPack, MutantPacksNameTheirModelVariant) {
  for (ModelVariant v : mutant_variants()) {
    const std::string dir = std::string(LOCKSIM_SOURCE_DIR) + "/impl/mutants/" + std::string(variant_name(v));
    const ScriptPack pack = ScriptPack::load(dir);
    ASSERT_TRUE(pack.model_variant().has_value()) << dir;
    EXPECT_EQ(*pack.model_variant(), v);
  }
}

// Design variants live in impl/variants/<name>, never among the mutants.
TEST(ScriptPack, DesignVariantPacksNameTheirModelVariant) {
  for (ModelVariant v : design_variants()) {
    const std::string name(variant_name(v));
    const std::string dir = std::string(LOCKSIM_SOURCE_DIR) + "/impl/variants/" + name;
    const ScriptPack pack = ScriptPack::load(dir);
    ASSERT_TRUE(pack.model_variant().has_value()) << dir;
    EXPECT_EQ(*pack.model_variant(), v);
    EXPECT_FALSE(std::filesystem::exists(std::string(LOCKSIM_SOURCE_DIR) + "/impl/mutants/" + name)) << name;
  }
}

TEST(ScriptPack, Expressions) {
  ScriptParams p;
  p.now_ms = 100;
  p.wait_ms = 7;
  p.owner = "A:1";
  EXPECT_EQ(parse_pack_expr("now_ms + wait_ms", "m").evaluate(p), "107");
  EXPECT_EQ(parse_pack_expr("now_ms+wait_ms+ -1", "m").evaluate(p), "106");
  EXPECT_EQ(parse_pack_expr(" owner ", "m").evaluate(p), "A:1");
  EXPECT_EQ(parse_pack_expr("42", "m").evaluate(p), "42");
  EXPECT_THROW(parse_pack_expr("now_ms +", "m"), ScriptPackError);
  EXPECT_THROW(parse_pack_expr("", "m"), ScriptPackError);
}

TEST(ScriptPackErrors, MissingManifest) {
  TempPack pack;
  fs::remove(pack.dir() + "/manifest.json");
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "manifest.json")) << e;
  EXPECT_TRUE(contains(e, "cannot read")) << e;
}

TEST(ScriptPackErrors, BadJsonNamesTheLine) {
  TempPack pack;
  pack.write("manifest.json", "{\n  \"format\": \"locksim-script-pack\",\n  \"version\": 1,\n  oops\n}\n");
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "manifest.json: invalid JSON at line 4")) << e;
}

TEST(ScriptPackErrors, WrongFormatOrVersion) {
  TempPack pack;
  pack.manifest()["version"] = 2;
  pack.write_manifest();
  std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "unsupported version 2")) << e;
  pack.manifest()["version"] = 1;
  pack.manifest()["format"] = "something-else";
  pack.write_manifest();
  e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "\"format\" must be")) << e;
}

TEST(ScriptPackErrors, UnknownScriptName) {
  TempPack pack;
  pack.manifest()["scripts"]["rlock_steal"] = pack.manifest()["scripts"]["rlock_renew"];
  pack.write_manifest();
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "script \"rlock_steal\": unknown script name")) << e;
}

TEST(ScriptPackErrors, MissingScript) {
  TempPack pack;
  pack.manifest()["scripts"].erase("fair_try_once");
  pack.write_manifest();
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "script \"fair_try_once\" is missing")) << e;
}

TEST(ScriptPackErrors, UnknownParameter) {
  TempPack pack;
  pack.manifest()["scripts"]["rlock_acquire"]["argv"] = {"lease_ms", "ownr"};
  pack.write_manifest();
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "script \"rlock_acquire\"")) << e;
  EXPECT_TRUE(contains(e, "unknown parameter \"ownr\"")) << e;
}

TEST(ScriptPackErrors, NonIntegerParameterInSum) {
  TempPack pack;
  pack.manifest()["scripts"]["fair_acquire"]["argv"] = {"lease_ms", "owner + wait_ms", "wait_ms", "now_ms"};
  pack.write_manifest();
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "\"owner\" is not an integer")) << e;
}

TEST(ScriptPackErrors, MissingLuaFile) {
  TempPack pack;
  fs::remove(pack.dir() + "/rlock_renew.lua");
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "cannot read Lua file")) << e;
  EXPECT_TRUE(contains(e, "rlock_renew.lua")) << e;
}

TEST(ScriptPackErrors, UnknownModelVariant) {
  TempPack pack;
  pack.manifest()["model_variant"] = "no_such_bug";
  pack.write_manifest();
  const std::string e = load_error(pack.dir());
  EXPECT_TRUE(contains(e, "unknown \"model_variant\"")) << e;
}

TEST(ScriptPack, DefaultDirHonoursEnvironment) {
  ::unsetenv("LOCKSIM_SCRIPTS");
  EXPECT_EQ(ScriptPack::default_dir(), "builtin:impl/lua");  // compiled in, never the source tree
  ::setenv("LOCKSIM_SCRIPTS", "/some/pack", 1);
  EXPECT_EQ(ScriptPack::default_dir(), "/some/pack");
  ::unsetenv("LOCKSIM_SCRIPTS");
}

}  // namespace
}  // namespace locksim
