// String commands (redis/redis_commands.h).
#include <limits>
#include <optional>
#include <string>

#include "redis/redis_command_util.h"

namespace locksim::redis_cmd {

namespace {

enum SetFlags : unsigned {
  kNx = 1, kXx = 2, kGet = 4, kKeepTtl = 8, kEx = 16, kPx = 32, kExAt = 64, kPxAt = 128,
};

// Redis 7.0's parseExtendedStringArgumentsOrReply for SET (arguments from
// index 3): the same acceptance rules, option by option.
bool parse_set_options(CommandArgs argv, unsigned* flags, const std::string_view** expire, ReplySink& reply) {
  for (size_t j = 3; j < argv.size(); ++j) {
    std::string_view opt = argv[j];
    const bool has_next = j + 1 < argv.size();
    const unsigned f = *flags;
    if (ieq(opt, "nx") && !(f & kXx)) {
      *flags |= kNx;
    } else if (ieq(opt, "xx") && !(f & kNx)) {
      *flags |= kXx;
    } else if (ieq(opt, "get")) {
      *flags |= kGet;
    } else if (ieq(opt, "keepttl") && !(f & (kEx | kExAt | kPx | kPxAt))) {
      *flags |= kKeepTtl;
    } else if (ieq(opt, "ex") && !(f & (kKeepTtl | kExAt | kPx | kPxAt)) && has_next) {
      *flags |= kEx;
      *expire = &argv[++j];
    } else if (ieq(opt, "px") && !(f & (kKeepTtl | kEx | kExAt | kPxAt)) && has_next) {
      *flags |= kPx;
      *expire = &argv[++j];
    } else if (ieq(opt, "exat") && !(f & (kKeepTtl | kEx | kPx | kPxAt)) && has_next) {
      *flags |= kExAt;
      *expire = &argv[++j];
    } else if (ieq(opt, "pxat") && !(f & (kKeepTtl | kEx | kExAt | kPx)) && has_next) {
      *flags |= kPxAt;
      *expire = &argv[++j];
    } else {
      reply.error(kSyntax);
      return false;
    }
  }
  return true;
}

// Redis 7.0's setGenericCommand: the expiry (getExpireMillisecondsOrReply),
// GET's old value, the NX / XX condition, then the write.
void set_generic(CommandContext& ctx, const std::string& name, std::string_view key, std::string_view value,
                 unsigned flags, const std::string_view* expire, ReplySink& reply, bool ok_as_one = false) {
  Store& s = *ctx.store;
  std::optional<int64_t> expire_at;
  if (expire != nullptr) {
    int64_t ms = 0;
    if (!int_arg(*expire, &ms, reply)) return;
    const bool secs = (flags & (kEx | kExAt)) != 0;
    if (ms <= 0 || (secs && ms > std::numeric_limits<int64_t>::max() / 1000)) {
      expire_time_error(name, reply);
      return;
    }
    if (secs) ms *= 1000;
    if (flags & (kEx | kPx)) {
      if (__builtin_add_overflow(ms, ctx.now_ms, &ms) || ms <= 0) {
        expire_time_error(name, reply);
        return;
      }
    }
    expire_at = ms;
  }
  std::optional<std::string> old;
  if (flags & kGet) {
    if (const std::string* v = s.get_ref(key, ctx.now_ms)) old = *v;  // throws WRONGTYPE
  }
  const bool found = s.exists(key, ctx.now_ms);
  if (((flags & kNx) && found) || ((flags & kXx) && !found)) {
    if (flags & kGet) {
      old ? reply.bulk(*old) : reply.nil();
    } else {
      ok_as_one ? reply.integer(0) : reply.nil();
    }
    return;
  }
  s.set_at(key, value, expire_at, (flags & kKeepTtl) != 0, ctx.now_ms);
  if (flags & kGet) {
    old ? reply.bulk(*old) : reply.nil();
  } else {
    ok_as_one ? reply.integer(1) : reply.status("OK");
  }
}

// INCR / DECR / INCRBY / DECRBY: the value must be an integer (string2ll);
// the result keeps the key's expiry.
void incr_by(CommandContext& ctx, std::string_view key, int64_t by, ReplySink& reply) {
  Store& s = *ctx.store;
  int64_t value = 0;
  if (const std::string* v = s.get_ref(key, ctx.now_ms)) {  // throws WRONGTYPE
    if (!int_arg(*v, &value, reply)) return;
  }
  int64_t next = 0;
  if (__builtin_add_overflow(value, by, &next)) {
    reply.error("ERR increment or decrement would overflow");
    return;
  }
  s.set_at(key, std::to_string(next), std::nullopt, true, ctx.now_ms);
  reply.integer(next);
}

}  // namespace

void get(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const std::string* v = ctx.store->get_ref(argv[1], ctx.now_ms);
  v ? reply.bulk(*v) : reply.nil();
}

void set(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  unsigned flags = 0;
  const std::string_view* expire = nullptr;
  if (!parse_set_options(argv, &flags, &expire, reply)) return;
  set_generic(ctx, "set", argv[1], argv[2], flags, expire, reply);
}

void setnx(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  set_generic(ctx, "setnx", argv[1], argv[2], kNx, nullptr, reply, /*ok_as_one=*/true);
}

void setex(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  set_generic(ctx, "setex", argv[1], argv[3], kEx, &argv[2], reply);
}

void psetex(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  set_generic(ctx, "psetex", argv[1], argv[3], kPx, &argv[2], reply);
}

void getset(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  set_generic(ctx, "getset", argv[1], argv[2], kGet, nullptr, reply);
}

void getdel(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const std::string* v = ctx.store->get_ref(argv[1], ctx.now_ms);
  if (v == nullptr) {
    reply.nil();
    return;
  }
  const std::string old = *v;
  ctx.store->del(argv[1], ctx.now_ms);
  reply.bulk(old);
}

void mget(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  reply.array(argv.size() - 1);
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::optional<Store::Type> t = ctx.store->type(argv[i], ctx.now_ms);
    if (t == Store::Type::String) {
      reply.bulk(*ctx.store->get_ref(argv[i], ctx.now_ms));
    } else {
      reply.nil();
    }
  }
}

void strlen(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const std::string* v = ctx.store->get_ref(argv[1], ctx.now_ms);
  reply.integer(v == nullptr ? 0 : static_cast<int64_t>(v->size()));
}

void append(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  reply.integer(ctx.store->append(argv[1], argv[2], ctx.now_ms));
}

void incr(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { incr_by(ctx, argv[1], 1, reply); }
void decr(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { incr_by(ctx, argv[1], -1, reply); }

void incrby(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t by = 0;
  if (!int_arg(argv[2], &by, reply)) return;
  incr_by(ctx, argv[1], by, reply);
}

void decrby(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t by = 0;
  if (!int_arg(argv[2], &by, reply)) return;
  if (by == std::numeric_limits<int64_t>::min()) {
    reply.error("ERR decrement would overflow");
    return;
  }
  incr_by(ctx, argv[1], -by, reply);
}

}  // namespace locksim::redis_cmd
