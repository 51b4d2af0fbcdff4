// LuaBackendSource: the BackendSource (sim/backend_source.h) of the lua
// backend (sim/lua_backend.h): one script pack's own Lua, in process.
// fresh() wipes and reuses the backend of the previous run when the number
// of servers is the same (the Lua states and their compiled scripts stay,
// their random generators restart), else builds a new one. make_copyable()
// builds (compiles) a new one each time, whose Lua states allocate through
// operator new, so that an explorer's arena holds them. One source per campaign
// worker (a LuaBackend is used by one thread at a time).
#pragma once

#include <algorithm>
#include <memory>
#include <string>

#include "impl/script_pack.h"
#include "sim/backend_source.h"
#include "sim/lua_backend.h"

namespace locksim {

class LuaBackendSource final : public BackendSource {
 public:
  // Compiles the pack's scripts at once (ScriptPackError, as LuaBackend).
  // Copyable backends live in a snapshot arena of 256 MiB: their memory
  // limit is at most kCopyableMemoryBytes.
  static constexpr size_t kCopyableMemoryBytes = size_t{128} << 20;

  explicit LuaBackendSource(ScriptPack pack, LuaLimits limits = LuaBackend::default_limits())
      : pack_(std::move(pack)),
        limits_(limits),
        backend_(std::make_unique<LuaBackend>(1, pack_, LuaAllocation::Malloc, limits_)) {}
  std::string kind() const override { return "lua"; }
  Backend& fresh(const Scenario& scenario) override {
    if (backend_->server_count() == scenario.servers) {
      backend_->wipe();
    } else {
      backend_ = std::make_unique<LuaBackend>(scenario.servers, pack_, LuaAllocation::Malloc, limits_);
    }
    return *backend_;
  }
  // A new backend of the caller's own (compiles the pack's scripts again).
  std::unique_ptr<Backend> make_copyable(const Scenario& scenario) override {
    LuaLimits copyable = limits_;
    copyable.memory_bytes = std::min(copyable.memory_bytes, kCopyableMemoryBytes);
    return std::make_unique<LuaBackend>(scenario.servers, pack_, LuaAllocation::OperatorNew, copyable);
  }

 private:
  ScriptPack pack_;
  LuaLimits limits_;
  std::unique_ptr<LuaBackend> backend_;
};

}  // namespace locksim
