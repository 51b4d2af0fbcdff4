// Shared pieces of the command handlers (model/redis_commands_*.cc): Redis's
// argument parsers, each replying Redis's error text and returning false on
// bad input, and the handler declarations the command table links to.
// Internal to model/; callers use redis/redis_commands.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "redis/redis_commands.h"

namespace locksim::redis_cmd {

inline constexpr const char* kNotInteger = "ERR value is not an integer or out of range";
inline constexpr const char* kNotFloat = "ERR value is not a valid float";
inline constexpr const char* kSyntax = "ERR syntax error";

// ASCII case-insensitive equality (strcasecmp).
bool ieq(std::string_view a, std::string_view b);
// getLongLongFromObjectOrReply: `error` (default kNotInteger) on bad input.
bool int_arg(std::string_view text, int64_t* out, ReplySink& reply, const char* error = kNotInteger);
// getDoubleFromObjectOrReply.
bool double_arg(std::string_view text, double* out, ReplySink& reply);
// "ERR wrong number of arguments for '<name>' command" (name lower case).
void arity_error(std::string_view name, ReplySink& reply);
// "ERR invalid expire time in '<name>' command".
void expire_time_error(std::string_view name, ReplySink& reply);
// Redis's list/rank range rule: negative indexes count from the end; false
// for an empty range, else [*start, *stop] clipped to [0, size).
bool clip_range(int64_t size, int64_t* start, int64_t* stop);

// ---- handlers (one file per kind: keys, strings, hashes, lists, zsets) ----
#define LOCKSIM_REDIS_HANDLER(fn) void fn(CommandContext& ctx, CommandArgs argv, ReplySink& reply)
// keys, pub/sub, connection
LOCKSIM_REDIS_HANDLER(del);
LOCKSIM_REDIS_HANDLER(exists);
LOCKSIM_REDIS_HANDLER(type);
LOCKSIM_REDIS_HANDLER(pttl);
LOCKSIM_REDIS_HANDLER(ttl);
LOCKSIM_REDIS_HANDLER(pexpiretime);
LOCKSIM_REDIS_HANDLER(expiretime);
LOCKSIM_REDIS_HANDLER(pexpire);
LOCKSIM_REDIS_HANDLER(expire);
LOCKSIM_REDIS_HANDLER(pexpireat);
LOCKSIM_REDIS_HANDLER(expireat);
LOCKSIM_REDIS_HANDLER(persist);
LOCKSIM_REDIS_HANDLER(publish);
LOCKSIM_REDIS_HANDLER(spublish);
LOCKSIM_REDIS_HANDLER(ping);
LOCKSIM_REDIS_HANDLER(echo);
LOCKSIM_REDIS_HANDLER(time);
// strings
LOCKSIM_REDIS_HANDLER(get);
LOCKSIM_REDIS_HANDLER(set);
LOCKSIM_REDIS_HANDLER(setnx);
LOCKSIM_REDIS_HANDLER(setex);
LOCKSIM_REDIS_HANDLER(psetex);
LOCKSIM_REDIS_HANDLER(getset);
LOCKSIM_REDIS_HANDLER(getdel);
LOCKSIM_REDIS_HANDLER(mget);
LOCKSIM_REDIS_HANDLER(strlen);
LOCKSIM_REDIS_HANDLER(append);
LOCKSIM_REDIS_HANDLER(incr);
LOCKSIM_REDIS_HANDLER(decr);
LOCKSIM_REDIS_HANDLER(incrby);
LOCKSIM_REDIS_HANDLER(decrby);
// hashes
LOCKSIM_REDIS_HANDLER(hset);
LOCKSIM_REDIS_HANDLER(hmset);
LOCKSIM_REDIS_HANDLER(hsetnx);
LOCKSIM_REDIS_HANDLER(hget);
LOCKSIM_REDIS_HANDLER(hmget);
LOCKSIM_REDIS_HANDLER(hdel);
LOCKSIM_REDIS_HANDLER(hexists);
LOCKSIM_REDIS_HANDLER(hlen);
LOCKSIM_REDIS_HANDLER(hstrlen);
LOCKSIM_REDIS_HANDLER(hkeys);
LOCKSIM_REDIS_HANDLER(hvals);
LOCKSIM_REDIS_HANDLER(hgetall);
LOCKSIM_REDIS_HANDLER(hincrby);
// lists
LOCKSIM_REDIS_HANDLER(lpush);
LOCKSIM_REDIS_HANDLER(rpush);
LOCKSIM_REDIS_HANDLER(lpushx);
LOCKSIM_REDIS_HANDLER(rpushx);
LOCKSIM_REDIS_HANDLER(lpop);
LOCKSIM_REDIS_HANDLER(rpop);
LOCKSIM_REDIS_HANDLER(lindex);
LOCKSIM_REDIS_HANDLER(lrange);
LOCKSIM_REDIS_HANDLER(lrem);
LOCKSIM_REDIS_HANDLER(llen);
LOCKSIM_REDIS_HANDLER(lset);
LOCKSIM_REDIS_HANDLER(ltrim);
// sorted sets
LOCKSIM_REDIS_HANDLER(zadd);
LOCKSIM_REDIS_HANDLER(zincrby);
LOCKSIM_REDIS_HANDLER(zrem);
LOCKSIM_REDIS_HANDLER(zscore);
LOCKSIM_REDIS_HANDLER(zmscore);
LOCKSIM_REDIS_HANDLER(zcard);
LOCKSIM_REDIS_HANDLER(zcount);
LOCKSIM_REDIS_HANDLER(zrank);
LOCKSIM_REDIS_HANDLER(zrevrank);
LOCKSIM_REDIS_HANDLER(zrange);
LOCKSIM_REDIS_HANDLER(zrevrange);
LOCKSIM_REDIS_HANDLER(zrangebyscore);
LOCKSIM_REDIS_HANDLER(zrevrangebyscore);
LOCKSIM_REDIS_HANDLER(zremrangebyscore);
LOCKSIM_REDIS_HANDLER(zremrangebyrank);
#undef LOCKSIM_REDIS_HANDLER

}  // namespace locksim::redis_cmd
