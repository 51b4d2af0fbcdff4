// LuaBackend (sim/lua_backend.h) without a server: its load-time checks
// (a Lua file that does not compile, a plain command it does not run), a
// run stopped mid-script naming the script and its file, wipe() as a new
// backend, and replicas that start empty and run the same pack.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "impl/script_pack.h"
#include "redis/lua_scripting.h"
#include "model/script_cases.h"
#include "sim/lua_backend.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

const fs::path kOurs = fs::path(LOCKSIM_SOURCE_DIR) / "impl" / "lua";

// A copy of our pack with `file` replaced by `text` (and the manifest's
// entry for `script` by `entry` when given).
fs::path pack_with(const std::string& name, const std::string& file, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "locksim_test_sim" / ("lua_backend_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kOurs, dir, fs::copy_options::recursive);
  std::ofstream(dir / file, std::ios::trunc) << text;
  return dir;
}

TEST(LuaBackend, ALuaFileThatDoesNotCompileIsRejectedAtLoadNamingIt) {
  const fs::path dir = pack_with("syntax", "rlock_renew.lua", "if redis.call('exists', KEYS[1] then return 1 end\n");
  try {
    LuaBackend backend(1, ScriptPack::load(dir.string()));
    ADD_FAILURE() << "compiled";
  } catch (const ScriptPackError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rlock_renew.lua: Redis rejected the script: ERR Error compiling script"), std::string::npos)
        << what;
  }
}

TEST(LuaBackend, APlainCommandItDoesNotRunIsRejectedAtLoad) {
  const fs::path dir = pack_with("command", "manifest.json", [] {
    std::ifstream in(kOurs / "manifest.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = R"("rlock_renew": {"file": "rlock_renew.lua", "keys": ["lock"], "argv": ["lease_ms", "owner"],)";
    const size_t at = text.find(from);
    if (at != std::string::npos) {
      text.replace(at, from.size(), R"("rlock_renew": {"command": "OBJECT", "keys": ["lock"], "argv": ["lease_ms"],)");
    }
    return text;
  }());
  const ScriptPack pack = ScriptPack::load(dir.string());
  ASSERT_EQ(pack.script(ScriptKind::RlockRenew).form, PackForm::Command);
  try {
    LuaBackend backend(1, pack);
    ADD_FAILURE() << "accepted";
  } catch (const ScriptPackError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rlock_renew"), std::string::npos) << what;
    EXPECT_NE(what.find("OBJECT"), std::string::npos) << what;
    EXPECT_NE(what.find("--backend live"), std::string::npos) << what;
  }
}

TEST(LuaBackend, AStoppedRunNamesTheScriptAndItsFile) {
  const fs::path dir = pack_with("unsupported", "rlock_renew.lua", "return redis.call('hincrbyfloat', KEYS[1], 'f', 1)\n");
  LuaBackend backend(1, ScriptPack::load(dir.string()));
  try {
    backend.execute(0, cases::renew(cases::kA), cases::kT * 1000);
    ADD_FAILURE() << "ran";
  } catch (const LuaScriptAbort& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rlock_renew (the Lua file "), std::string::npos) << what;
    EXPECT_NE(what.find("rlock_renew.lua"), std::string::npos) << what;
    EXPECT_NE(what.find("HINCRBYFLOAT"), std::string::npos) << what;
  }
  // The backend goes on after a stopped run.
  EXPECT_TRUE(backend.execute(0, cases::acquire(cases::kA), cases::kT * 1000).reply.is_nil());
}

TEST(LuaBackend, WipeIsANewBackendAndReplicasStartEmpty) {
  const ScriptPack pack = ScriptPack::load(kOurs.string());
  LuaBackend backend(2, pack);
  EXPECT_EQ(backend.name(), "lua");
  const int64_t t = cases::kT * 1000;
  const ExecResult a = backend.execute(0, cases::acquire(cases::kA), t);
  EXPECT_TRUE(a.reply.is_nil());
  EXPECT_EQ(a.holders_after, (std::vector<std::string>{cases::kA}));
  EXPECT_EQ(backend.execute(0, cases::acquire(cases::kB), t).reply, Reply::of_int(cases::kLease));
  EXPECT_TRUE(backend.execute(1, cases::acquire(cases::kB), t).reply.is_nil());  // servers are separate
  std::unique_ptr<Backend> replicas = backend.new_replicas();
  ASSERT_NE(replicas, nullptr);
  EXPECT_EQ(replicas->server_count(), 2);
  EXPECT_TRUE(replicas->snapshot(0, t).empty());
  backend.restart(1);
  EXPECT_TRUE(backend.snapshot(1, t).empty());
  EXPECT_EQ(backend.snapshot(0, t).size(), 1u);
  backend.wipe();
  EXPECT_TRUE(backend.snapshot(0, t).empty());
  EXPECT_TRUE(backend.execute(0, cases::acquire(cases::kB), t).reply.is_nil());
}

}  // namespace
}  // namespace locksim
