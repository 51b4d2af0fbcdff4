#include "sim/lua_backend.h"

#include <algorithm>
#include <cassert>
#include <set>
#include <utility>

#include "redis/redis_commands.h"

namespace locksim {

namespace {

// A plain-command script must be one this backend runs.
void check_command(const PackScript& script) {
  const RedisCommand* cmd = find_redis_command(script.command);
  if (cmd == nullptr) return;  // unknown to Redis too: it answers Redis's error, as live does
  if (cmd->run == nullptr) {
    throw ScriptPackError(std::string(script_name(script.kind)) + " (" + script.describe() +
                          "): " + unsupported_command_text(script.command));
  }
}

int compile(LuaScripting& lua, const PackScript& script) {
  try {
    return lua.load(script.source);
  } catch (const LuaCompileError& e) {
    throw ScriptPackError(script.path + ": Redis rejected the script: " + e.what());
  }
}

constexpr const char* kWrongTypeText = "WRONGTYPE Operation against a key holding the wrong kind of value";

}  // namespace

LuaBackend::LuaBackend(int server_count, ScriptPack pack, LuaAllocation allocation, LuaLimits limits)
    : LuaBackend(server_count, std::move(pack), allocation, limits, nullptr) {}

LuaBackend::LuaBackend(int server_count, ScriptPack pack, LuaAllocation allocation, LuaLimits limits,
                       MemoryAccount* shared)
    : pack_(std::move(pack)), allocation_(allocation), limits_(limits), lines_(server_count) {
  assert(server_count >= 1);
  if (shared == nullptr) {
    own_memory_ = std::make_unique<MemoryAccount>(limits_.memory_bytes);
    memory_ = own_memory_.get();
  } else {
    memory_ = shared;
  }
  servers_.resize(static_cast<size_t>(server_count));
  for (Server& s : servers_) {
    s.store.set_memory_account(memory_);
    s.lua = std::make_unique<LuaScripting>(limits_, allocation_, memory_);
    for (ScriptKind kind : all_script_kinds()) {
      const PackScript& script = pack_.script(kind);
      if (script.form == PackForm::Command) check_command(script);
      if (script.form != PackForm::Lua) continue;
      s.script_id[static_cast<size_t>(kind)] = compile(*s.lua, script);
    }
    if (const PackScript* read = pack_.holder_script()) s.holder_script_id = compile(*s.lua, *read);
  }
}

LuaBackend::Server& LuaBackend::at(int server) {
  assert(server >= 0 && server < server_count());
  return servers_[static_cast<size_t>(server)];
}

ExecResult LuaBackend::execute(int server, const ScriptCall& call, int64_t server_now_us) {
  return execute_without_token(*this, server, call, server_now_us);
}

void LuaBackend::execute_into(int server, const ScriptCall& call, int64_t server_now_us, ExecResult* out) {
  assert(out != nullptr);
  const uint64_t held_token = out->line_token;  // the caller's hint (line_cache.h)
  Server& s = at(server);
  const int64_t now_ms = server_ms_of_us(server_now_us);
  s.store.sweep_expired(now_ms);
  CommandContext ctx;
  ctx.store = &s.store;
  ctx.now_ms = now_ms;
  ctx.now_us = server_now_us;
  ctx.publish_receivers = 1;
  const PackScript& script = pack_.script(call.kind);
  pack_.build_args_into(call, &args_);
  try {
    if (script.form == PackForm::Lua) {
      ReplyBuilder builder;
      s.lua->run(s.script_id[static_cast<size_t>(call.kind)], args_.keys, args_.argv, ctx, builder);
      out->reply = builder.take();
    } else if (script.form == PackForm::Command) {
      command_.clear();
      command_.push_back(script.command);
      command_.insert(command_.end(), args_.keys.begin(), args_.keys.end());
      command_.insert(command_.end(), args_.argv.begin(), args_.argv.end());
      ReplyBuilder builder;
      run_direct_command(ctx, command_, builder);
      out->reply = builder.take();
    } else {
      out->reply = ScriptPack::absent_reply(call.kind);
    }
  } catch (const LuaScriptAbort& e) {
    s.store.take_published();
    throw LuaScriptAbort(stop_text(call.kind, e.what()));
  } catch (const UnsupportedCommand& e) {
    s.store.take_published();
    throw LuaScriptAbort(stop_text(call.kind, e.what()));
  } catch (const StoreMemoryError&) {  // a plain command's write
    s.store.take_published();
    throw LuaScriptAbort(stop_text(call.kind, "the run needed more than " + std::to_string(memory_->limit_bytes() >> 20) +
                                                  " MiB of memory (Lua heaps and key stores together), the lua "
                                                  "backend's limit (--memory-limit)"));
  }
  out->reply = pack_.adapt_reply(call.kind, std::move(out->reply));
  out->error_declared = pack_.declares_error(call.kind, out->reply);
  s.store.take_published_into(&out->published);
  for (Published& p : out->published) p = pack_.canonical_published(call, std::move(p));
  try {
    read_holders(s, call, ctx, &out->holders_after);
  } catch (const HolderReadError& e) {
    throw LuaScriptAbort("pack " + pack_.dir() + ": after " + std::string(script_name(call.kind)) + ": " + e.what());
  } catch (const LuaScriptAbort& e) {  // the holder read script stopped
    throw LuaScriptAbort("pack " + pack_.dir() + ": the holder read script " + pack_.holder_script()->path + ": " +
                         e.what());
  }
  out->line_known = false;
  lines_.fill(server, s.store, call, now_ms, held_token, out);
  output_budget_.charge(*out, script_name(call.kind));  // a pack that answers megabytes stops the run
}

void LuaBackend::read_holders(Server& s, const ScriptCall& call, CommandContext& ctx, std::vector<std::string>* out) {
  const std::string& lock = call.params.lock;
  switch (pack_.design().holders) {
    case HolderRead::HashFields: {
      // HKEYS's answer without building it, unless it is WRONGTYPE.
      const auto type = s.store.type(lock, ctx.now_ms);
      if (type && *type != Store::Type::Hash) pack_.read_holders(lock, Reply::error(kWrongTypeText), out);
      s.store.holders_into(lock, ctx.now_ms, out);
      return;
    }
    case HolderRead::StringValue: {
      const std::string_view get[] = {"GET", lock};
      ReplyBuilder builder;
      run_direct_command(ctx, get, builder);
      pack_.read_holders(lock, builder.take(), out);
      return;
    }
    case HolderRead::Script: {
      const PackScript& read = *pack_.holder_script();
      ScriptArgs args;
      for (const PackExpr& k : read.keys) args.keys.push_back(k.evaluate(call.params));
      for (const PackExpr& a : read.argv) args.argv.push_back(a.evaluate(call.params));
      // Read-only, as live runs it (EVALSHA_RO): a write is the pack's mistake.
      StateDigest before;
      s.store.digest(ctx.now_ms, &before);
      ReplyBuilder builder;
      s.lua->run(s.holder_script_id, args.keys, args.argv, ctx, builder);
      StateDigest after;
      s.store.digest(ctx.now_ms, &after);
      if (before.value() != after.value() || s.store.published_pending() > 0) {
        throw LuaScriptAbort("it wrote or published: it must only read");
      }
      pack_.read_holders(lock, builder.take(), out);
      return;
    }
  }
}

std::vector<KeyState> LuaBackend::snapshot(int server, int64_t server_now_us) {
  return at(server).store.snapshot(server_ms_of_us(server_now_us));
}

void LuaBackend::restart(int server) {
  Server& s = at(server);
  s.store.clear();
  s.lua->reset();
}

// The Lua state itself (math.random's sequence) is not part of the digest.
bool LuaBackend::digest(int server, int64_t server_now_us, StateDigest* out) {
  at(server).store.digest(server_ms_of_us(server_now_us), out);
  return true;
}

std::unique_ptr<Backend> LuaBackend::new_replicas() const {
  return std::unique_ptr<Backend>(new LuaBackend(server_count(), pack_, allocation_, limits_, memory_));
}

std::string LuaBackend::stop_text(ScriptKind kind, const std::string& why) const {
  return "pack " + pack_.dir() + ": " + std::string(script_name(kind)) + " (" + pack_.script(kind).describe() +
         "): " + why;
}

void LuaBackend::wipe() {
  output_budget_.reset();  // a new run
  for (int i = 0; i < server_count(); ++i) {
    restart(i);
    at(i).lua->clear_line_coverage();
  }
}

void LuaBackend::script_coverage(const std::vector<ScriptKind>& kinds, std::vector<std::string>* covered,
                                 std::vector<std::string>* universe) const {
  std::set<std::string> files_done;
  std::vector<std::string> seen, all;
  for (ScriptKind kind : kinds) {
    const PackScript& script = pack_.script(kind);
    if (script.form != PackForm::Lua || !files_done.insert(script.file).second) continue;
    const int id = servers_.front().script_id[static_cast<size_t>(kind)];
    std::set<int> run;
    for (const Server& s : servers_) {
      const std::vector<int> lines = s.lua->lines_run(s.script_id[static_cast<size_t>(kind)]);
      run.insert(lines.begin(), lines.end());
    }
    for (int line : servers_.front().lua->code_lines(id)) {
      const std::string name = script.file + ":" + std::to_string(line);
      all.push_back(name);
      if (run.count(line) != 0) seen.push_back(name);
    }
  }
  std::sort(seen.begin(), seen.end());
  std::sort(all.begin(), all.end());
  if (covered != nullptr) covered->insert(covered->end(), seen.begin(), seen.end());
  if (universe != nullptr) universe->insert(universe->end(), all.begin(), all.end());
}

}  // namespace locksim
