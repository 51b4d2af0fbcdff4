// Keyspace, expiry, pub/sub and connection commands (redis/redis_commands.h).
#include <cctype>
#include <limits>
#include <optional>
#include <string>

#include "redis/redis_command_util.h"

namespace locksim::redis_cmd {

namespace {

const char* type_text(Store::Type t) {
  switch (t) {
    case Store::Type::String: return "string";
    case Store::Type::Hash: return "hash";
    case Store::Type::List: return "list";
    case Store::Type::ZSet: return "zset";
  }
  return "none";
}

// Redis's ttlGenericCommand: -2 no key, -1 no expiry; else the remaining
// time (or the absolute expiry), in ms or rounded to seconds.
void ttl_reply(CommandContext& ctx, CommandArgs argv, ReplySink& reply, bool ms, bool absolute) {
  Store& s = *ctx.store;
  if (!s.exists(argv[1], ctx.now_ms)) {
    reply.integer(-2);
    return;
  }
  const std::optional<int64_t> at = s.expire_at_ms(argv[1], ctx.now_ms);
  if (!at) {
    reply.integer(-1);
    return;
  }
  int64_t t = absolute ? *at : *at - ctx.now_ms;
  if (t < 0) t = 0;
  reply.integer(ms ? t : (t + 500) / 1000);
}

// Redis 7.0's expireGenericCommand: options first (NX XX GT LT), then the
// time, its overflow checks, the key, the option conditions, and a time
// already due deletes the key.
void expire_generic(CommandContext& ctx, CommandArgs argv, ReplySink& reply, int64_t basetime_ms, bool seconds) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t j = 3; j < argv.size(); ++j) {
    std::string_view opt = argv[j];
    if (ieq(opt, "nx")) {
      nx = true;
    } else if (ieq(opt, "xx")) {
      xx = true;
    } else if (ieq(opt, "gt")) {
      gt = true;
    } else if (ieq(opt, "lt")) {
      lt = true;
    } else {
      reply.error("ERR Unsupported option " + std::string(opt));
      return;
    }
  }
  if ((nx && xx) || (nx && gt) || (nx && lt)) {
    reply.error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return;
  }
  if (gt && lt) {
    reply.error("ERR GT and LT options at the same time are not compatible");
    return;
  }
  int64_t when = 0;
  if (!int_arg(argv[2], &when, reply)) return;
  const std::string name = [&] {
    std::string n(argv[0]);
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return n;
  }();
  if (seconds) {
    if (when > std::numeric_limits<int64_t>::max() / 1000 || when < std::numeric_limits<int64_t>::min() / 1000) {
      expire_time_error(name, reply);
      return;
    }
    when *= 1000;
  }
  if (when > std::numeric_limits<int64_t>::max() - basetime_ms) {
    expire_time_error(name, reply);
    return;
  }
  when += basetime_ms;
  Store& s = *ctx.store;
  if (!s.exists(argv[1], ctx.now_ms)) {
    reply.integer(0);
    return;
  }
  if (nx || xx || gt || lt) {
    const std::optional<int64_t> current = s.expire_at_ms(argv[1], ctx.now_ms);
    if ((nx && current) || (xx && !current) || (gt && (!current || when <= *current)) ||
        (lt && current && when >= *current)) {
      reply.integer(0);
      return;
    }
  }
  if (when <= ctx.now_ms) {
    s.del(argv[1], ctx.now_ms);
  } else {
    s.set_expire_at(argv[1], when, ctx.now_ms);
  }
  reply.integer(1);
}

}  // namespace

void del(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t n = 0;
  for (size_t i = 1; i < argv.size(); ++i) n += ctx.store->del(argv[i], ctx.now_ms);
  reply.integer(n);
}

void exists(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t n = 0;
  for (size_t i = 1; i < argv.size(); ++i) n += ctx.store->exists(argv[i], ctx.now_ms) ? 1 : 0;
  reply.integer(n);
}

void type(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const std::optional<Store::Type> t = ctx.store->type(argv[1], ctx.now_ms);
  reply.status(t ? type_text(*t) : "none");
}

void pttl(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { ttl_reply(ctx, argv, reply, true, false); }
void ttl(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { ttl_reply(ctx, argv, reply, false, false); }
void pexpiretime(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  ttl_reply(ctx, argv, reply, true, true);
}
void expiretime(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  ttl_reply(ctx, argv, reply, false, true);
}

void pexpire(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  expire_generic(ctx, argv, reply, ctx.now_ms, false);
}
void expire(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  expire_generic(ctx, argv, reply, ctx.now_ms, true);
}
void pexpireat(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { expire_generic(ctx, argv, reply, 0, false); }
void expireat(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { expire_generic(ctx, argv, reply, 0, true); }

void persist(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  Store& s = *ctx.store;
  if (!s.expire_at_ms(argv[1], ctx.now_ms)) {
    reply.integer(0);
    return;
  }
  s.set_expire_at(argv[1], std::nullopt, ctx.now_ms);
  reply.integer(1);
}

void publish(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  ctx.store->publish(argv[1], argv[2]);
  reply.integer(ctx.publish_receivers);
}

// Sharded pub/sub: only SSUBSCRIBErs receive it, and the harness has none
// (the live backend listens with PSUBSCRIBE, which never sees it).
void spublish(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  (void)ctx;
  (void)argv;
  reply.integer(0);
}

void ping(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  (void)ctx;
  if (argv.size() > 2) {
    arity_error("ping", reply);
  } else if (argv.size() == 2) {
    reply.bulk(argv[1]);
  } else {
    reply.status("PONG");
  }
}

void echo(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  (void)ctx;
  reply.bulk(argv[1]);
}

void time(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  (void)argv;
  int64_t secs = ctx.now_us / 1'000'000;
  int64_t us = ctx.now_us % 1'000'000;
  if (us < 0) {
    us += 1'000'000;
    --secs;
  }
  reply.array(2);
  reply.bulk(std::to_string(secs));
  reply.bulk(std::to_string(us));
}

}  // namespace locksim::redis_cmd
