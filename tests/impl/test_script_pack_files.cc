// ScriptPack::load on hostile files: a script `file` that is a directory (or
// empty, naming the pack directory itself), a device, a manifest nested
// 100,000 levels deep, or non-string entries is rejected with the path named;
// nothing is read without a bound and no unvalidated value is dumped whole.
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
  EXPECT_EQ(load_error_with_file(""), dir_ + "/manifest.json: script \"rlock_acquire\": " + dir_ +
                                          "/: the Lua file is a directory, not a file");
  EXPECT_EQ(load_error_with_file("."), dir_ + "/manifest.json: script \"rlock_acquire\": " + dir_ +
                                           "/.: the Lua file is a directory, not a file");
}

TEST_F(PackFiles, ScriptFileThatIsADeviceIsRejected) {
  const std::string error = load_error_with_file("../../../../../../../../../../dev/zero");
  EXPECT_NE(error.find("script \"rlock_acquire\""), std::string::npos) << error;
  EXPECT_NE(error.find("dev/zero: the Lua file is not a regular file"), std::string::npos) << error;
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
