// List commands (redis/redis_commands.h), with Redis 7.0's order of checks
// (which argument is parsed before the key is looked up matters for which
// error a bad call gets).
#include <algorithm>
#include <optional>
#include <string>

#include "redis/redis_command_util.h"

namespace locksim::redis_cmd {

namespace {

void push(CommandContext& ctx, CommandArgs argv, ReplySink& reply, bool left, bool only_if_exists) {
  Store& s = *ctx.store;
  const Store::List* list = s.list_ref(argv[1], ctx.now_ms);  // WRONGTYPE
  if (only_if_exists && list == nullptr) {
    reply.integer(0);
    return;
  }
  int64_t length = 0;
  for (size_t i = 2; i < argv.size(); ++i) {
    length = left ? s.lpush(argv[1], argv[i], ctx.now_ms) : s.rpush(argv[1], argv[i], ctx.now_ms);
  }
  reply.integer(length);
}

// LPOP / RPOP key [count] (Redis 7.0's popGenericCommand).
void pop(CommandContext& ctx, CommandArgs argv, ReplySink& reply, bool left) {
  if (argv.size() > 3) {
    arity_error(left ? "lpop" : "rpop", reply);
    return;
  }
  int64_t count = 0;
  const bool has_count = argv.size() == 3;
  if (has_count) {
    const char* msg = "ERR value is out of range, must be positive";
    if (!int_arg(argv[2], &count, reply, msg)) return;
    if (count < 0) {
      reply.error(msg);
      return;
    }
  }
  Store& s = *ctx.store;
  const Store::List* list = s.list_ref(argv[1], ctx.now_ms);  // WRONGTYPE
  if (list == nullptr) {
    has_count ? reply.null_array() : reply.nil();
    return;
  }
  if (!has_count) {
    const std::optional<std::string> v = left ? s.lpop(argv[1], ctx.now_ms) : s.rpop(argv[1], ctx.now_ms);
    reply.bulk(*v);
    return;
  }
  const int64_t n = std::min<int64_t>(count, static_cast<int64_t>(list->size()));
  reply.array(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const std::optional<std::string> v = left ? s.lpop(argv[1], ctx.now_ms) : s.rpop(argv[1], ctx.now_ms);
    reply.bulk(*v);
  }
}

}  // namespace

void lpush(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { push(ctx, argv, reply, true, false); }
void rpush(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { push(ctx, argv, reply, false, false); }
void lpushx(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { push(ctx, argv, reply, true, true); }
void rpushx(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { push(ctx, argv, reply, false, true); }
void lpop(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { pop(ctx, argv, reply, true); }
void rpop(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { pop(ctx, argv, reply, false); }

void lindex(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  Store& s = *ctx.store;
  if (s.list_ref(argv[1], ctx.now_ms) == nullptr) {  // the key first, then the index
    reply.nil();
    return;
  }
  int64_t index = 0;
  if (!int_arg(argv[2], &index, reply)) return;
  const std::string* v = s.lindex_ref(argv[1], index, ctx.now_ms);
  v ? reply.bulk(*v) : reply.nil();
}

void lrange(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t start = 0, stop = 0;
  if (!int_arg(argv[2], &start, reply) || !int_arg(argv[3], &stop, reply)) return;
  const Store::List* list = ctx.store->list_ref(argv[1], ctx.now_ms);
  if (list == nullptr || !clip_range(static_cast<int64_t>(list->size()), &start, &stop)) {
    reply.array(0);
    return;
  }
  reply.array(static_cast<size_t>(stop - start + 1));
  for (int64_t i = start; i <= stop; ++i) reply.bulk((*list)[static_cast<size_t>(i)]);
}

void lrem(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t count = 0;
  if (!int_arg(argv[2], &count, reply)) return;
  reply.integer(ctx.store->lrem(argv[1], count, argv[3], ctx.now_ms));
}

void llen(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  reply.integer(ctx.store->llen(argv[1], ctx.now_ms));
}

void lset(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  Store& s = *ctx.store;
  if (s.list_ref(argv[1], ctx.now_ms) == nullptr) {
    reply.error("ERR no such key");
    return;
  }
  int64_t index = 0;
  if (!int_arg(argv[2], &index, reply)) return;
  if (!s.lset(argv[1], index, argv[3], ctx.now_ms)) {
    reply.error("ERR index out of range");
    return;
  }
  reply.status("OK");
}

void ltrim(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t start = 0, stop = 0;
  if (!int_arg(argv[2], &start, reply) || !int_arg(argv[3], &stop, reply)) return;
  ctx.store->ltrim(argv[1], start, stop, ctx.now_ms);
  reply.status("OK");
}

}  // namespace locksim::redis_cmd
