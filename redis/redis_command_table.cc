// The command table: every command of Redis 7.0.15 (as its COMMAND lists
// them: name, arity, the noscript flag), each linked to its handler where the
// model implements it. Sorted by name for a binary search.
#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>
#include <string>

#include "redis/redis_command_util.h"
#include "redis/redis_number.h"

namespace locksim {

namespace {

constexpr RedisCommand kCommands[] = {
    {"acl", -2, false, nullptr},
    {"append", 3, false, redis_cmd::append},
    {"asking", 1, false, nullptr},
    {"auth", -2, true, nullptr},
    {"bgrewriteaof", 1, true, nullptr},
    {"bgsave", -1, true, nullptr},
    {"bitcount", -2, false, nullptr},
    {"bitfield", -2, false, nullptr},
    {"bitfield_ro", -2, false, nullptr},
    {"bitop", -4, false, nullptr},
    {"bitpos", -3, false, nullptr},
    {"blmove", 6, true, nullptr},
    {"blmpop", -5, false, nullptr},
    {"blpop", -3, true, nullptr},
    {"brpop", -3, true, nullptr},
    {"brpoplpush", 4, true, nullptr},
    {"bzmpop", -5, false, nullptr},
    {"bzpopmax", -3, true, nullptr},
    {"bzpopmin", -3, true, nullptr},
    {"client", -2, false, nullptr},
    {"cluster", -2, false, nullptr},
    {"command", -1, false, nullptr},
    {"config", -2, false, nullptr},
    {"copy", -3, false, nullptr},
    {"dbsize", 1, false, nullptr},
    {"debug", -2, true, nullptr},
    {"decr", 2, false, redis_cmd::decr},
    {"decrby", 3, false, redis_cmd::decrby},
    {"del", -2, false, redis_cmd::del},
    {"discard", 1, true, nullptr},
    {"dump", 2, false, nullptr},
    {"echo", 2, false, redis_cmd::echo},
    {"eval", -3, true, nullptr},
    {"eval_ro", -3, true, nullptr},
    {"evalsha", -3, true, nullptr},
    {"evalsha_ro", -3, true, nullptr},
    {"exec", 1, true, nullptr},
    {"exists", -2, false, redis_cmd::exists},
    {"expire", -3, false, redis_cmd::expire},
    {"expireat", -3, false, redis_cmd::expireat},
    {"expiretime", 2, false, redis_cmd::expiretime},
    {"failover", -1, true, nullptr},
    {"fcall", -3, true, nullptr},
    {"fcall_ro", -3, true, nullptr},
    {"flushall", -1, false, nullptr},
    {"flushdb", -1, false, nullptr},
    {"function", -2, false, nullptr},
    {"geoadd", -5, false, nullptr},
    {"geodist", -4, false, nullptr},
    {"geohash", -2, false, nullptr},
    {"geopos", -2, false, nullptr},
    {"georadius", -6, false, nullptr},
    {"georadius_ro", -6, false, nullptr},
    {"georadiusbymember", -5, false, nullptr},
    {"georadiusbymember_ro", -5, false, nullptr},
    {"geosearch", -7, false, nullptr},
    {"geosearchstore", -8, false, nullptr},
    {"get", 2, false, redis_cmd::get},
    {"getbit", 3, false, nullptr},
    {"getdel", 2, false, redis_cmd::getdel},
    {"getex", -2, false, nullptr},
    {"getrange", 4, false, nullptr},
    {"getset", 3, false, redis_cmd::getset},
    {"hdel", -3, false, redis_cmd::hdel},
    {"hello", -1, true, nullptr},
    {"hexists", 3, false, redis_cmd::hexists},
    {"hget", 3, false, redis_cmd::hget},
    {"hgetall", 2, false, redis_cmd::hgetall},
    {"hincrby", 4, false, redis_cmd::hincrby},
    {"hincrbyfloat", 4, false, nullptr},
    {"hkeys", 2, false, redis_cmd::hkeys},
    {"hlen", 2, false, redis_cmd::hlen},
    {"hmget", -3, false, redis_cmd::hmget},
    {"hmset", -4, false, redis_cmd::hmset},
    {"hrandfield", -2, false, nullptr},
    {"hscan", -3, false, nullptr},
    {"hset", -4, false, redis_cmd::hset},
    {"hsetnx", 4, false, redis_cmd::hsetnx},
    {"hstrlen", 3, false, redis_cmd::hstrlen},
    {"hvals", 2, false, redis_cmd::hvals},
    {"incr", 2, false, redis_cmd::incr},
    {"incrby", 3, false, redis_cmd::incrby},
    {"incrbyfloat", 3, false, nullptr},
    {"info", -1, false, nullptr},
    {"keys", 2, false, nullptr},
    {"lastsave", 1, false, nullptr},
    {"latency", -2, false, nullptr},
    {"lcs", -3, false, nullptr},
    {"lindex", 3, false, redis_cmd::lindex},
    {"linsert", 5, false, nullptr},
    {"llen", 2, false, redis_cmd::llen},
    {"lmove", 5, false, nullptr},
    {"lmpop", -4, false, nullptr},
    {"lolwut", -1, false, nullptr},
    {"lpop", -2, false, redis_cmd::lpop},
    {"lpos", -3, false, nullptr},
    {"lpush", -3, false, redis_cmd::lpush},
    {"lpushx", -3, false, redis_cmd::lpushx},
    {"lrange", 4, false, redis_cmd::lrange},
    {"lrem", 4, false, redis_cmd::lrem},
    {"lset", 4, false, redis_cmd::lset},
    {"ltrim", 4, false, redis_cmd::ltrim},
    {"memory", -2, false, nullptr},
    {"mget", -2, false, redis_cmd::mget},
    {"migrate", -6, false, nullptr},
    {"module", -2, false, nullptr},
    {"monitor", 1, true, nullptr},
    {"move", 3, false, nullptr},
    {"mset", -3, false, nullptr},
    {"msetnx", -3, false, nullptr},
    {"multi", 1, true, nullptr},
    {"object", -2, false, nullptr},
    {"persist", 2, false, redis_cmd::persist},
    {"pexpire", -3, false, redis_cmd::pexpire},
    {"pexpireat", -3, false, redis_cmd::pexpireat},
    {"pexpiretime", 2, false, redis_cmd::pexpiretime},
    {"pfadd", -2, false, nullptr},
    {"pfcount", -2, false, nullptr},
    {"pfdebug", 3, false, nullptr},
    {"pfmerge", -2, false, nullptr},
    {"pfselftest", 1, false, nullptr},
    {"ping", -1, false, redis_cmd::ping},
    {"psetex", 4, false, redis_cmd::psetex},
    {"psubscribe", -2, true, nullptr},
    {"psync", -3, true, nullptr},
    {"pttl", 2, false, redis_cmd::pttl},
    {"publish", 3, false, redis_cmd::publish},
    {"pubsub", -2, false, nullptr},
    {"punsubscribe", -1, true, nullptr},
    {"quit", -1, true, nullptr},
    {"randomkey", 1, false, nullptr},
    {"readonly", 1, false, nullptr},
    {"readwrite", 1, false, nullptr},
    {"rename", 3, false, nullptr},
    {"renamenx", 3, false, nullptr},
    {"replconf", -1, true, nullptr},
    {"replicaof", 3, true, nullptr},
    {"reset", 1, true, nullptr},
    {"restore", -4, false, nullptr},
    {"restore-asking", -4, false, nullptr},
    {"role", 1, true, nullptr},
    {"rpop", -2, false, redis_cmd::rpop},
    {"rpoplpush", 3, false, nullptr},
    {"rpush", -3, false, redis_cmd::rpush},
    {"rpushx", -3, false, redis_cmd::rpushx},
    {"sadd", -3, false, nullptr},
    {"save", 1, true, nullptr},
    {"scan", -2, false, nullptr},
    {"scard", 2, false, nullptr},
    {"script", -2, false, nullptr},
    {"sdiff", -2, false, nullptr},
    {"sdiffstore", -3, false, nullptr},
    {"select", 2, false, nullptr},
    {"set", -3, false, redis_cmd::set},
    {"setbit", 4, false, nullptr},
    {"setex", 4, false, redis_cmd::setex},
    {"setnx", 3, false, redis_cmd::setnx},
    {"setrange", 4, false, nullptr},
    {"shutdown", -1, true, nullptr},
    {"sinter", -2, false, nullptr},
    {"sintercard", -3, false, nullptr},
    {"sinterstore", -3, false, nullptr},
    {"sismember", 3, false, nullptr},
    {"slaveof", 3, true, nullptr},
    {"slowlog", -2, false, nullptr},
    {"smembers", 2, false, nullptr},
    {"smismember", -3, false, nullptr},
    {"smove", 4, false, nullptr},
    {"sort", -2, false, nullptr},
    {"sort_ro", -2, false, nullptr},
    {"spop", -2, false, nullptr},
    {"spublish", 3, false, redis_cmd::spublish},
    {"srandmember", -2, false, nullptr},
    {"srem", -3, false, nullptr},
    {"sscan", -3, false, nullptr},
    {"ssubscribe", -2, true, nullptr},
    {"strlen", 2, false, redis_cmd::strlen},
    {"subscribe", -2, true, nullptr},
    {"substr", 4, false, nullptr},
    {"sunion", -2, false, nullptr},
    {"sunionstore", -3, false, nullptr},
    {"sunsubscribe", -1, true, nullptr},
    {"swapdb", 3, false, nullptr},
    {"sync", 1, true, nullptr},
    {"time", 1, false, redis_cmd::time},
    {"touch", -2, false, nullptr},
    {"ttl", 2, false, redis_cmd::ttl},
    {"type", 2, false, redis_cmd::type},
    {"unlink", -2, false, redis_cmd::del},
    {"unsubscribe", -1, true, nullptr},
    {"unwatch", 1, true, nullptr},
    {"wait", 3, true, nullptr},
    {"watch", -2, true, nullptr},
    {"xack", -4, false, nullptr},
    {"xadd", -5, false, nullptr},
    {"xautoclaim", -6, false, nullptr},
    {"xclaim", -6, false, nullptr},
    {"xdel", -3, false, nullptr},
    {"xgroup", -2, false, nullptr},
    {"xinfo", -2, false, nullptr},
    {"xlen", 2, false, nullptr},
    {"xpending", -3, false, nullptr},
    {"xrange", -4, false, nullptr},
    {"xread", -4, false, nullptr},
    {"xreadgroup", -7, false, nullptr},
    {"xrevrange", -4, false, nullptr},
    {"xsetid", -3, false, nullptr},
    {"xtrim", -4, false, nullptr},
    {"zadd", -4, false, redis_cmd::zadd},
    {"zcard", 2, false, redis_cmd::zcard},
    {"zcount", 4, false, redis_cmd::zcount},
    {"zdiff", -3, false, nullptr},
    {"zdiffstore", -4, false, nullptr},
    {"zincrby", 4, false, redis_cmd::zincrby},
    {"zinter", -3, false, nullptr},
    {"zintercard", -3, false, nullptr},
    {"zinterstore", -4, false, nullptr},
    {"zlexcount", 4, false, nullptr},
    {"zmpop", -4, false, nullptr},
    {"zmscore", -3, false, redis_cmd::zmscore},
    {"zpopmax", -2, false, nullptr},
    {"zpopmin", -2, false, nullptr},
    {"zrandmember", -2, false, nullptr},
    {"zrange", -4, false, redis_cmd::zrange},
    {"zrangebylex", -4, false, nullptr},
    {"zrangebyscore", -4, false, redis_cmd::zrangebyscore},
    {"zrangestore", -5, false, nullptr},
    {"zrank", 3, false, redis_cmd::zrank},
    {"zrem", -3, false, redis_cmd::zrem},
    {"zremrangebylex", 4, false, nullptr},
    {"zremrangebyrank", 4, false, redis_cmd::zremrangebyrank},
    {"zremrangebyscore", 4, false, redis_cmd::zremrangebyscore},
    {"zrevrange", -4, false, redis_cmd::zrevrange},
    {"zrevrangebylex", -4, false, nullptr},
    {"zrevrangebyscore", -4, false, redis_cmd::zrevrangebyscore},
    {"zrevrank", 3, false, redis_cmd::zrevrank},
    {"zscan", -3, false, nullptr},
    {"zscore", 3, false, redis_cmd::zscore},
    {"zunion", -3, false, nullptr},
    {"zunionstore", -4, false, nullptr},
};

constexpr size_t kMaxNameLength = 32;

}  // namespace

const RedisCommand* find_redis_command(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return nullptr;
  char lower[kMaxNameLength];
  for (size_t i = 0; i < name.size(); ++i) {
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  const std::string_view key(lower, name.size());
  const auto* end = std::end(kCommands);
  const auto* it = std::lower_bound(std::begin(kCommands), end, key,
                                    [](const RedisCommand& c, std::string_view k) { return c.name < k; });
  if (it == end || it->name != key) return nullptr;
  return it;
}

bool arity_ok(const RedisCommand& cmd, size_t argc) {
  const auto n = static_cast<int64_t>(argc);
  return cmd.arity >= 0 ? n == cmd.arity : n >= -cmd.arity;
}

void run_redis_command(const RedisCommand& cmd, CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  assert(cmd.run != nullptr && ctx.store != nullptr && !argv.empty());
  try {
    cmd.run(ctx, argv, reply);
  } catch (const StoreError& e) {
    reply.error(e.what());
  }
}

void run_direct_command(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  assert(!argv.empty());
  const RedisCommand* cmd = find_redis_command(argv[0]);
  if (cmd == nullptr) {
    // Redis quotes the first arguments, each cut at 128 bytes, up to 128 bytes in all.
    std::string text = "ERR unknown command '" + std::string(argv[0].substr(0, 128)) + "', with args beginning with: ";
    for (size_t i = 1; i < argv.size() && text.size() < 128 + 64; ++i) {
      text += "'" + std::string(argv[i].substr(0, 128)) + "' ";
    }
    reply.error(text);
    return;
  }
  if (!arity_ok(*cmd, argv.size())) {
    redis_cmd::arity_error(cmd->name, reply);
    return;
  }
  if (cmd->run == nullptr) throw UnsupportedCommand(unsupported_command_text(argv[0]));
  run_redis_command(*cmd, ctx, argv, reply);
}

std::string unsupported_command_text(std::string_view what) {
  std::string upper(what);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "the Redis command " + upper +
         " is not implemented by the lua backend (it runs a subset of Redis in memory): run this pack with "
         "--backend live";
}

namespace redis_cmd {

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

bool int_arg(std::string_view text, int64_t* out, ReplySink& reply, const char* error) {
  if (redis_string_to_int64(text, out)) return true;
  reply.error(error);
  return false;
}

bool double_arg(std::string_view text, double* out, ReplySink& reply) {
  if (redis_string_to_double(text, out)) return true;
  reply.error(kNotFloat);
  return false;
}

void arity_error(std::string_view name, ReplySink& reply) {
  reply.error("ERR wrong number of arguments for '" + std::string(name) + "' command");
}

void expire_time_error(std::string_view name, ReplySink& reply) {
  reply.error("ERR invalid expire time in '" + std::string(name) + "' command");
}

bool clip_range(int64_t size, int64_t* start, int64_t* stop) {
  if (*start < 0) *start += size;
  if (*stop < 0) *stop += size;
  if (*start < 0) *start = 0;
  if (*start > *stop || *start >= size) return false;
  if (*stop >= size) *stop = size - 1;
  return true;
}

}  // namespace redis_cmd

}  // namespace locksim
