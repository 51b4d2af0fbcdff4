// A script's Lua result as its RESP2 reply (Redis 7.0's luaReplyToRedisReply)
// and a failed run's error text (luaCallFunction's error branch).
#include <cmath>
#include <string>

#include "redis/lua_state.h"
#include "redis/redis_number.h"

namespace locksim::lua_detail {

namespace {


void map_newlines(std::string* s) {
  for (char& c : *s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
}

// Field `name` of `table` as text. Redis reads a reply's fields raw and
// only as strings; an error's fields through metamethods, numbers too.
enum class FieldRead { RawString, StringOrNumber };
std::string field_string(lua_State* L, int table, const char* name, bool* present,
                         FieldRead how = FieldRead::RawString) {
  if (how == FieldRead::RawString) {
    lua_pushstring(L, name);
    lua_rawget(L, table);
    *present = lua_type(L, -1) == LUA_TSTRING;
  } else {
    lua_getfield(L, table, name);
    *present = lua_isstring(L, -1) != 0;
  }
  std::string out;
  if (*present) {
    size_t len = 0;
    const char* p = lua_tolstring(L, -1, &len);
    out.assign(p, len);
  }
  lua_pop(L, 1);
  return out;
}

void to_reply(lua_State* L, int idx, ReplySink& reply, int depth);

// The elements 1..n of table `t` up to the first nil.
void array_reply(lua_State* L, int t, ReplySink& reply, int depth) {
  size_t n = 0;
  while (true) {
    lua_rawgeti(L, t, static_cast<int>(n + 1));
    const bool end = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (end) break;
    ++n;
  }
  reply.array(n);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, t, static_cast<int>(i));
    to_reply(L, lua_gettop(L), reply, depth + 1);
    lua_pop(L, 1);
  }
}

// {map = t} (keys and values) or {set = t} (keys): RESP2 flattens both to
// an array, in lua_next order.
void pairs_reply(lua_State* L, int t, ReplySink& reply, int depth, bool with_values) {
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    lua_pop(L, 1);
    ++n;
  }
  reply.array(with_values ? 2 * n : n);
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    to_reply(L, lua_gettop(L) - 1, reply, depth + 1);
    if (with_values) to_reply(L, lua_gettop(L), reply, depth + 1);
    lua_pop(L, 1);
  }
}

void table_reply(lua_State* L, int t, ReplySink& reply, int depth) {
  bool present = false;
  std::string err = field_string(L, t, "err", &present);
  if (present) {
    // "-<err>": trailing CR/LF trimmed, the others become spaces.
    while (!err.empty() && (err.back() == '\r' || err.back() == '\n')) err.pop_back();
    map_newlines(&err);
    reply.error(err);
    return;
  }
  std::string ok = field_string(L, t, "ok", &present);
  if (present) {
    map_newlines(&ok);
    reply.status(ok);
    return;
  }
  lua_pushstring(L, "double");
  lua_rawget(L, t);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    const double d = lua_tonumber(L, -1);
    lua_pop(L, 1);
    // Redis prints a double with printf, which shows NaN's sign: 0/0 is "-nan".
    reply.bulk(std::isnan(d) ? (std::signbit(d) ? "-nan" : "nan") : redis_double_text(d));
    return;
  }
  lua_pop(L, 1);
  std::string big = field_string(L, t, "big_number", &present);
  if (present) {
    map_newlines(&big);
    reply.bulk(big);
    return;
  }
  lua_pushstring(L, "verbatim_string");
  lua_rawget(L, t);
  if (lua_type(L, -1) == LUA_TTABLE) {
    const int v = lua_gettop(L);
    bool has_format = false, has_string = false;
    field_string(L, v, "format", &has_format);
    const std::string text = field_string(L, v, "string", &has_string);
    if (has_format && has_string) {
      lua_pop(L, 1);
      reply.bulk(text);
      return;
    }
  }
  lua_pop(L, 1);
  for (const char* kind : {"map", "set"}) {
    lua_pushstring(L, kind);
    lua_rawget(L, t);
    if (lua_type(L, -1) == LUA_TTABLE) {
      pairs_reply(L, lua_gettop(L), reply, depth, kind[0] == 'm');
      lua_pop(L, 1);
      return;
    }
    lua_pop(L, 1);
  }
  array_reply(L, t, reply, depth);
}

void to_reply(lua_State* L, int idx, ReplySink& reply, int depth) {
  // As Redis's luaReplyToRedisReply: each nested table holds one more
  // stack slot; where the C stack limit leaves fewer than 4, the reply at
  // that depth is this error (about 7,990 tables deep, as on Redis 7.0.15).
  (void)depth;
  if (!lua_checkstack(L, 4)) {
    reply.error("ERR reached lua stack limit");
    return;
  }
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* p = lua_tolstring(L, idx, &len);
      // The reply is a copy outside the Lua heap: past the memory limit the
      // run stops (the caller sees over_memory) instead of making it.
      if (len > 4096 && !memory_room_for(L, len)) {
        run_state(L)->over_memory = true;
        reply.nil();
        return;
      }
      reply.bulk(std::string_view(p, len));
      return;
    }
    case LUA_TBOOLEAN:
      lua_toboolean(L, idx) ? reply.integer(1) : reply.nil();
      return;
    case LUA_TNUMBER:
      reply.integer(lua_number_to_reply_int(lua_tonumber(L, idx)));
      return;
    case LUA_TTABLE:
      table_reply(L, idx, reply, depth);
      return;
    default:
      reply.nil();
      return;
  }
}

}  // namespace

void lua_value_to_reply(lua_State* L, int idx, ReplySink& reply) {
  to_reply(L, idx < 0 ? lua_gettop(L) + idx + 1 : idx, reply, 0);
}

std::string failed_run_text(lua_State* L, const std::string& sha) {
  const int e = lua_gettop(L);
  std::string text;
  if (!lua_istable(L, e)) {
    // No handler ran (out of memory, an error in the handler).
    const char* msg = lua_isstring(L, e) ? lua_tostring(L, e) : "execution failure";
    text = "Error running script " + sha + ", " + std::string(msg).substr(0, 100);
  } else {
    auto field = [&](const char* name, bool* present) {
      return field_string(L, e, name, present, FieldRead::StringOrNumber);
    };
    bool has_err = false, has_source = false, has_line = false;
    text = field("err", &has_err);
    if (!has_err) text = "ERR (an error without a message)";  // live Redis 7.0.15 crashes here
    const std::string source = field("source", &has_source);
    const std::string line = field("line", &has_line);
    if (has_source && has_line) text += " script: " + sha + ", on " + source + ":" + line + ".";
  }
  map_newlines(&text);
  return text;
}

}  // namespace locksim::lua_detail
