// Redis commands over a Store (redis/store.h), as Redis 7.0 answers them:
// the commands a lock script pack calls, with Redis's argument parsing,
// option rules, error texts (WRONGTYPE, "ERR syntax error", ...) and RESP2
// reply shapes, written to a ReplySink (redis/reply_sink.h).
//
// find_redis_command() knows every command of Redis 7.0 (its name, arity and
// whether scripts may call it); `run` is null for a command this model does
// not implement. A handler may also throw UnsupportedCommand for an option it
// does not implement (e.g. ZRANGE ... BYLEX). Callers decide what an
// unimplemented command means: run_direct_command() (a client's command)
// and redis/lua_scripting.h (redis.call) both report it as an error naming
// the command and stop the run (never a silent wrong answer).
//
// Contract of a handler: it writes exactly one reply; every check that can
// fail (argument parsing, WRONGTYPE) happens before any write to the store
// or the sink, except where Redis itself writes first. Store errors
// (StoreError) become error replies with their text.
//
// Time: every command of one call sees ctx.now_ms (a script's frozen time).
// PUBLISH appends to the store's log and answers ctx.publish_receivers.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "redis/reply_sink.h"
#include "redis/store.h"

namespace locksim {

struct CommandContext {
  Store* store = nullptr;
  int64_t now_ms = 0;
  int64_t now_us = 0;             // TIME (now_ms == floor(now_us / 1000))
  int64_t publish_receivers = 0;  // what PUBLISH answers
};

// argv[0] is the command name as the caller spelled it.
using CommandArgs = std::span<const std::string_view>;
using CommandHandler = void (*)(CommandContext& ctx, CommandArgs argv, ReplySink& reply);

struct RedisCommand {
  std::string_view name;   // lower case, as COMMAND lists it
  int arity = 0;           // Redis's: n exactly n arguments, -n at least n (name included)
  bool noscript = false;   // scripts may not call it
  CommandHandler run = nullptr;  // null: not implemented here
};

// A command or option the model does not implement; what() names it.
struct UnsupportedCommand : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Any Redis 7.0 command by name, in any case; null if Redis has no such command.
const RedisCommand* find_redis_command(std::string_view name);
// Whether argc arguments (name included) satisfy the command's arity.
bool arity_ok(const RedisCommand& cmd, size_t argc);

// Runs an implemented command (cmd.run != null) after the caller's checks:
// StoreError becomes an error reply; UnsupportedCommand propagates.
void run_redis_command(const RedisCommand& cmd, CommandContext& ctx, CommandArgs argv, ReplySink& reply);

// A client's command, as Redis answers it outside a script: "ERR unknown
// command 'x', with args beginning with: ..." and "ERR wrong number of
// arguments for 'x' command". A command (or option) the model does not
// implement throws UnsupportedCommand.
void run_direct_command(CommandContext& ctx, CommandArgs argv, ReplySink& reply);

// "the Redis command HINCRBYFLOAT is not implemented by the lua backend
// (it runs a subset of Redis in memory): run this pack with --backend live"
std::string unsupported_command_text(std::string_view what);

}  // namespace locksim
