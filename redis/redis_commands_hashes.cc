// Hash commands (redis/redis_commands.h). Fields come back in insertion
// order, as Redis keeps a small hash (a listpack).
#include <optional>
#include <string>

#include "redis/redis_command_util.h"

namespace locksim::redis_cmd {

namespace {

// HSET / HMSET: field-value pairs; an odd count is an arity error.
bool hset_pairs(CommandContext& ctx, CommandArgs argv, ReplySink& reply, int64_t* created) {
  if (argv.size() % 2 == 1) {
    arity_error(argv.size() > 0 && ieq(argv[0], "hmset") ? "hmset" : "hset", reply);
    return false;
  }
  Store& s = *ctx.store;
  (void)s.hash_ref(argv[1], ctx.now_ms);  // WRONGTYPE before any write
  *created = 0;
  for (size_t i = 2; i + 1 < argv.size(); i += 2) *created += s.hset(argv[1], argv[i], argv[i + 1], ctx.now_ms);
  return true;
}

}  // namespace

void hset(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t created = 0;
  if (hset_pairs(ctx, argv, reply, &created)) reply.integer(created);
}

void hmset(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t created = 0;
  if (hset_pairs(ctx, argv, reply, &created)) reply.status("OK");
}

void hsetnx(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  Store& s = *ctx.store;
  if (s.hexists(argv[1], argv[2], ctx.now_ms)) {
    reply.integer(0);
    return;
  }
  s.hset(argv[1], argv[2], argv[3], ctx.now_ms);
  reply.integer(1);
}

void hget(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const std::optional<std::string> v = ctx.store->hget(argv[1], argv[2], ctx.now_ms);
  v ? reply.bulk(*v) : reply.nil();
}

void hmget(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const Store::HashFields* hash = ctx.store->hash_ref(argv[1], ctx.now_ms);
  reply.array(argv.size() - 2);
  for (size_t i = 2; i < argv.size(); ++i) {
    const HashFields::Entry* e = hash == nullptr ? nullptr : hash->find(argv[i]);
    e ? reply.bulk(e->value) : reply.nil();
  }
}

void hdel(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  Store& s = *ctx.store;
  (void)s.hash_ref(argv[1], ctx.now_ms);  // WRONGTYPE
  int64_t n = 0;
  for (size_t i = 2; i < argv.size(); ++i) n += s.hdel(argv[1], argv[i], ctx.now_ms);
  reply.integer(n);
}

void hexists(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  reply.integer(ctx.store->hexists(argv[1], argv[2], ctx.now_ms) ? 1 : 0);
}

void hlen(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const Store::HashFields* hash = ctx.store->hash_ref(argv[1], ctx.now_ms);
  reply.integer(hash == nullptr ? 0 : static_cast<int64_t>(hash->size()));
}

void hstrlen(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const std::optional<std::string> v = ctx.store->hget(argv[1], argv[2], ctx.now_ms);
  reply.integer(v ? static_cast<int64_t>(v->size()) : 0);
}

void hkeys(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const Store::HashFields* hash = ctx.store->hash_ref(argv[1], ctx.now_ms);
  reply.array(hash == nullptr ? 0 : hash->size());
  if (hash != nullptr) {
    for (const HashFields::Entry& e : *hash) reply.bulk(e.field);
  }
}

void hvals(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const Store::HashFields* hash = ctx.store->hash_ref(argv[1], ctx.now_ms);
  reply.array(hash == nullptr ? 0 : hash->size());
  if (hash != nullptr) {
    for (const HashFields::Entry& e : *hash) reply.bulk(e.value);
  }
}

void hgetall(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const Store::HashFields* hash = ctx.store->hash_ref(argv[1], ctx.now_ms);
  reply.array(hash == nullptr ? 0 : 2 * hash->size());
  if (hash != nullptr) {
    for (const HashFields::Entry& e : *hash) {
      reply.bulk(e.field);
      reply.bulk(e.value);
    }
  }
}

void hincrby(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t by = 0;
  if (!int_arg(argv[3], &by, reply)) return;
  reply.integer(ctx.store->hincrby(argv[1], argv[2], by, ctx.now_ms));
}

}  // namespace locksim::redis_cmd
