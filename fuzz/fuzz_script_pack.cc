// libFuzzer target: the script-pack manifest loader (impl/script_pack.h).
// Each input is written as manifest.json into a pack directory that holds
// our nine Lua files (also reachable as ../../lua/<file>, the mutant-pack
// layout) and a subdirectory; ScriptPack::load must either load it or throw
// ScriptPackError: never crash, overflow the stack or read without bound.
// A pack that loads must build arguments for every script, and read replies
// and published messages through its conventions.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "impl/script_pack.h"

namespace {

namespace fs = std::filesystem;

// <tmp>/lua/*.lua, <tmp>/mutants/pack/{*.lua, sub/}: made once per process
// under $TMPDIR (fuzz/run_fuzz.sh points it into its work dir and removes it).
const std::string& pack_dir() {
  static const std::string dir = [] {
    std::string templ = (fs::temp_directory_path() / "locksim-fuzz-pack-XXXXXX").string();
    const fs::path root = ::mkdtemp(templ.data());
    const fs::path pack = root / "mutants" / "pack";
    fs::create_directories(root / "lua");
    fs::create_directories(pack / "sub");
    for (const auto& entry : fs::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua")) {
      if (entry.path().extension() != ".lua") continue;
      fs::copy_file(entry.path(), root / "lua" / entry.path().filename());
      fs::copy_file(entry.path(), pack / entry.path().filename());
    }
    return pack.string();
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = pack_dir();
  {
    std::ofstream out(dir + "/manifest.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const locksim::ScriptPack pack = locksim::ScriptPack::load(dir);
    for (locksim::ScriptKind kind : locksim::all_script_kinds()) {
      locksim::ScriptCall call;
      call.kind = kind;
      call.params.lock = "L";
      call.params.owner = "A:1";
      call.params.lease_ms = 30000;
      call.params.wait_ms = 5000;
      call.params.now_ms = 1700000000000;
      (void)pack.build_args(call);
      locksim::Reply list;
      list.kind = locksim::Reply::Kind::Array;
      list.elements = {locksim::Reply::of_int(1)};
      (void)pack.adapt_reply(kind, list);
      (void)pack.adapt_reply(kind, locksim::Reply::nil());
      (void)pack.canonical_published(call, locksim::Published{"old_L", "unlocked"});
      (void)pack.canonical_published(call, locksim::Published{"/", "1"});
    }
  } catch (const locksim::ScriptPackError&) {
  }
  return 0;
}
