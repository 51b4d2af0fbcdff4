// ScriptPack::load on hostile files: a script `file` that is a directory (or
// empty, naming the pack directory itself), a device, a manifest nested
// 100,000 levels deep, or non-string entries is rejected with the path named;
// nothing is read without a bound and no unvalidated value is dumped whole.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "impl/script_pack.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

class PackFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "locksim-pack-files-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
    for (const auto& entry : fs::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua")) {
      fs::copy_file(entry.path(), fs::path(dir_) / entry.path().filename());
    }
    std::ifstream in(dir_ + "/manifest.json");
    manifest_ = nlohmann::json::parse(in);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& file, const std::string& text) { std::ofstream(dir_ + "/" + file) << text; }
  std::string load_error_with_file(const std::string& file) {
    manifest_["scripts"]["rlock_acquire"]["file"] = file;
    write("manifest.json", manifest_.dump(2));
    return load_error();
  }
  std::string load_error() {
    try {
      ScriptPack::load(dir_);
    } catch (const ScriptPackError& e) {
      return e.what();
    }
    return "";
  }

  std::string dir_;
  nlohmann::json manifest_;
};

TEST_F(PackFiles, ScriptFileThatIsADirectoryIsRejected) {
  fs::create_directory(dir_ + "/sub");
  EXPECT_EQ(load_error_with_file("sub"), dir_ + "/manifest.json: script \"rlock_acquire\": " + dir_ +
                                             "/sub: the Lua file is a directory, not a file");
  EXPECT_EQ(load_error_with_file(""), dir_ + "/manifest.json: script \"rlock_acquire\": \"file\" is empty");
  EXPECT_EQ(load_error_with_file("."), dir_ + "/manifest.json: script \"rlock_acquire\": " + dir_ +
                                           "/.: the Lua file is a directory, not a file");
}

TEST_F(PackFiles, ScriptFileThatIsADeviceIsRejected) {
  ASSERT_EQ(::mkfifo((dir_ + "/pipe.lua").c_str(), 0600), 0);
  EXPECT_NE(load_error_with_file("pipe.lua").find("pipe.lua: the Lua file is not a regular file"), std::string::npos);
  // A device is reached only through a name that leads outside the pack.
  const std::string error = load_error_with_file("../../../../../../../../../../dev/zero");
  EXPECT_NE(error.find("script \"rlock_acquire\""), std::string::npos) << error;
  EXPECT_NE(error.find("lies outside the pack's directory"), std::string::npos) << error;
}

// Hardening, round 2, item 11: a pack reads only from its own directory
// tree and the "roots" its manifest declares, links resolved; nothing else
// is read, sent to a server or quoted in an error.
TEST_F(PackFiles, FilesOutsideThePackAreRefused) {
  const std::string passwd = load_error_with_file("../../../../../../../../etc/passwd");
  EXPECT_NE(passwd.find("\"../../../../../../../../etc/passwd\" lies outside the pack's directory"), std::string::npos)
      << passwd;
  EXPECT_EQ(passwd.find("root:"), std::string::npos) << passwd;
  fs::create_symlink("/etc/shadow", dir_ + "/shadow.lua");
  const std::string shadow = load_error_with_file("shadow.lua");
  EXPECT_NE(shadow.find("\"shadow.lua\" lies outside the pack's directory"), std::string::npos) << shadow;
  EXPECT_EQ(shadow.find("root:"), std::string::npos) << shadow;
  EXPECT_NE(load_error_with_file("/etc/passwd").find("must be relative to the pack's directory, got an absolute path"),
            std::string::npos);
  EXPECT_NE(load_error_with_file(std::string("rlock_acquire.lua\0x", 19)).find("a NUL in a file name is refused"),
            std::string::npos);
  // A link inside the pack to another of its files is fine.
  fs::create_symlink(dir_ + "/rlock_renew.lua", dir_ + "/renew_link.lua");
  EXPECT_EQ(load_error_with_file("renew_link.lua"), "");
}

TEST_F(PackFiles, DeclaredRootsAreReadable) {
  fs::create_directories(dir_ + "/pack");
  nlohmann::json m = manifest_;
  for (auto& [name, entry] : m["scripts"].items()) entry["file"] = "../" + entry["file"].get<std::string>();
  std::ofstream(dir_ + "/pack/manifest.json") << m.dump(2);
  auto error_of = [&] {
    try {
      ScriptPack::load(dir_ + "/pack");
    } catch (const ScriptPackError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of().find("lies outside the pack's directory (declare its directory in \"roots\""), std::string::npos);
  m["roots"] = {".."};
  std::ofstream(dir_ + "/pack/manifest.json") << m.dump(2);
  EXPECT_EQ(error_of(), "");
  m["roots"] = {"/etc"};
  std::ofstream(dir_ + "/pack/manifest.json") << m.dump(2);
  EXPECT_NE(error_of().find("\"roots\"[0]: must be relative"), std::string::npos);
  m["roots"] = {"missing"};
  std::ofstream(dir_ + "/pack/manifest.json") << m.dump(2);
  EXPECT_NE(error_of().find("\"roots\"[0]: \"missing\" is not a directory beside the pack"), std::string::npos);
}

// An unknown top-level key is refused with the key named, never ignored.
TEST_F(PackFiles, UnknownManifestKeysAreRefused) {
  manifest_["fair_slot_ms"] = 5000;
  write("manifest.json", manifest_.dump(2));
  EXPECT_NE(load_error().find("unknown key \"fair_slot_ms\""), std::string::npos) << load_error();
}

TEST_F(PackFiles, ManifestThatIsADirectoryIsRejected) {
  fs::remove(dir_ + "/manifest.json");
  fs::create_directory(dir_ + "/manifest.json");
  EXPECT_EQ(load_error(), dir_ + "/manifest.json: the manifest is a directory, not a file");
}

TEST_F(PackFiles, DeeplyNestedManifestIsRejected) {
  write("manifest.json", std::string(100'000, '[') + std::string(100'000, ']'));
  EXPECT_EQ(load_error(), dir_ + "/manifest.json: JSON nested deeper than 64 levels");
  manifest_["scripts"]["rlock_acquire"]["argv"] = nlohmann::json::array({nlohmann::json::array()});
  manifest_["model_variant"] = nlohmann::json::array();
  write("manifest.json", manifest_.dump().replace(manifest_.dump().find("\"model_variant\":[]"),
                                                   std::string("\"model_variant\":[]").size(),
                                                   "\"model_variant\":" + std::string(60, '[') + std::string(60, ']')));
  const std::string error = load_error();
  EXPECT_NE(error.find("unknown \"model_variant\" [...]"), std::string::npos) << error;
}

TEST_F(PackFiles, NonStringExpressionIsDescribedNotDumped) {
  manifest_["scripts"]["rlock_acquire"]["argv"] = nlohmann::json::array({nlohmann::json{{"a", {1, 2, 3}}}});
  write("manifest.json", manifest_.dump());
  const std::string error = load_error();
  EXPECT_NE(error.find("\"argv\"[0]: expected a string expression, got {...}"), std::string::npos) << error;
}

TEST_F(PackFiles, NumberOverflowIsRejected) {
  write("manifest.json", R"({"format": "locksim-script-pack", "version": 1e400})");
  EXPECT_EQ(load_error(), dir_ + "/manifest.json: invalid JSON: a number is out of range");
}

TEST_F(PackFiles, OversizedScriptIsRejected) {
  write("big.lua", std::string((1 << 20) + 1, '-'));
  const std::string error = load_error_with_file("big.lua");
  EXPECT_NE(error.find("big.lua: the Lua file is larger than 1048576 bytes"), std::string::npos) << error;
}

}  // namespace
}  // namespace locksim
