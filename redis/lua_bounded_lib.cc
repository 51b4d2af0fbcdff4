// The library functions of the script sandbox (redis/lua_scripting.h) that
// Lua 5.1 would let a script use to run native code, crash the process or
// work without end inside C, each replaced by one of our own that answers
// as Redis 7.0's Lua does wherever Redis answers:
//  - loadstring, load (and every script's own compilation): text only. A
//    chunk is read with a blank in front, so a binary chunk (string.dump's
//    output) reaches the parser, which refuses it as Redis's patched Lua
//    does ("unexpected symbol near 'char(27)'"); nothing ever runs
//    bytecode a script made.
//  - unpack: Redis's bound ("too many results to unpack" past the C stack).
//  - string.rep: the result's size is checked against the memory limit
//    before anything is built (its allocations are charged to the budget).
//  - table.insert / remove / concat / maxn / foreach / foreachi / sort:
//    Lua 5.1.5's semantics (sort makes the same comparisons and swaps in
//    the same order), every element moved, visited or compared charged to
//    the budget (table.insert(t, -2^31, v) would move 2^31 elements).
//  - collectgarbage: a full collection is charged by the size of the heap.
// The pattern functions are redis/lua_pattern.cc's.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "redis/lua_pattern.h"
#include "redis/lua_state.h"

namespace locksim::lua_detail {

namespace {

// ---------------------------------------------------------------- loading

constexpr uint64_t kCallSteps = 32;  // what one call from C into a Lua function is charged

// Reads a chunk as a blank then its text: the parser, not the undumper,
// sees its first byte. The blank changes nothing a text chunk means (no
// token, no line).
struct TextChunk {
  bool blank_given = false;
  const char* text = nullptr;  // loadstring: the whole text; load: null (a reader function)
  size_t size = 0;
  bool text_given = false;
};

const char* read_string_chunk(lua_State* L, void* ud, size_t* size) {
  (void)L;
  auto* c = static_cast<TextChunk*>(ud);
  if (!c->blank_given) {
    c->blank_given = true;
    *size = 1;
    return " ";
  }
  if (c->text_given) {
    *size = 0;
    return nullptr;
  }
  c->text_given = true;
  *size = c->size;
  return c->text;
}

// load's reader: the blank, then the pieces the function (argument 1)
// returns, kept in slot 3 while the parser reads them (as Lua 5.1's).
const char* read_function_chunk(lua_State* L, void* ud, size_t* size) {
  auto* c = static_cast<TextChunk*>(ud);
  if (!c->blank_given) {
    c->blank_given = true;
    *size = 1;
    return " ";
  }
  luaL_checkstack(L, 2, "too many nested functions");
  charge_steps(L, kCallSteps);  // a call from C into Lua costs more than its few instructions
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
  lua_replace(L, 3);
  return lua_tolstring(L, 3, size);
}

// The function just loaded runs in the scripts' environment; a failed load
// answers nil and the message.
int loaded(lua_State* L, int status) {
  if (status != 0) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  push_script_env(L);
  lua_setfenv(L, -2);
  return 1;
}

int sandbox_loadstring(lua_State* L) {
  size_t size = 0;
  const char* text = luaL_checklstring(L, 1, &size);
  const char* name = luaL_optstring(L, 2, text);
  run_state(L)->code_from_load = true;
  TextChunk chunk{false, text, size, false};
  return loaded(L, lua_load(L, read_string_chunk, &chunk, name));
}

int sandbox_load(lua_State* L) {
  const char* name = luaL_optstring(L, 2, "=(load)");
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 3);  // the function, the name, the slot the reader keeps its piece in
  run_state(L)->code_from_load = true;
  TextChunk chunk;
  return loaded(L, lua_load(L, read_function_chunk, &chunk, name));
}

// ---------------------------------------------------------------- base

int sandbox_unpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const int first = luaL_optint(L, 2, 1);
  const int last = lua_isnoneornil(L, 3) ? static_cast<int>(lua_objlen(L, 1)) : luaL_checkint(L, 3);
  if (first > last) return 0;
  const int64_t n = static_cast<int64_t>(last) - first + 1;
  if (n >= INT_MAX || !lua_checkstack(L, static_cast<int>(n))) return luaL_error(L, "too many results to unpack");
  for (int64_t i = first; i <= last; ++i) lua_rawgeti(L, 1, static_cast<int>(i));
  return static_cast<int>(n);
}

// collectgarbage: a full collection (the default, "collect", "step") costs
// the size of the heap; then the base library's (upvalue 1).
int sandbox_collectgarbage(lua_State* L) {
  const char* option = luaL_optstring(L, 1, "collect");
  if (std::strcmp(option, "collect") == 0 || std::strcmp(option, "step") == 0) {
    charge_steps(L, static_cast<uint64_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 1024 / kBytesPerStep);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// ---------------------------------------------------------------- string

int sandbox_rep(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const int n = luaL_checkint(L, 2);
  if (n <= 0 || len == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  const size_t total = len * static_cast<size_t>(n);  // below 2^62: no overflow
  // The text is built once in a scratch block and copied into the string:
  // twice its size, checked before either is made.
  if (total > (SIZE_MAX >> 2)) raise_out_of_memory(L);
  if (!memory_room_for(L, 2 * total)) {
    // Garbage counts until collected: collect (charged) before refusing.
    charge_steps(L, static_cast<uint64_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 1024 / kBytesPerStep);
    lua_gc(L, LUA_GCCOLLECT, 0);
    if (!memory_room_for(L, 2 * total)) raise_out_of_memory(L);
  }
  // The allocator charges the scratch block and the string (one step per
  // kBytesPerStep each): the copying is paid for with them.
  auto* out = static_cast<char*>(lua_newuserdata(L, total));
  std::memcpy(out, s, len);
  for (size_t done = len; done < total;) {  // doubling copies
    const size_t piece = std::min(done, total - done);
    std::memcpy(out + done, out, piece);
    done += piece;
  }
  lua_pushlstring(L, out, total);
  lua_remove(L, -2);
  return 1;
}

// ---------------------------------------------------------------- table

int checked_length(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  return static_cast<int>(lua_objlen(L, 1));
}

int sandbox_insert(lua_State* L) {
  int end = checked_length(L) + 1;  // the first empty slot
  int pos = end;
  switch (lua_gettop(L)) {
    case 2:
      break;
    case 3:
      pos = luaL_checkint(L, 2);
      if (pos > end) end = pos;
      charge_steps(L, static_cast<uint64_t>(static_cast<int64_t>(end) - pos));
      for (int i = end; i > pos; --i) {  // t[i] = t[i - 1], from the top
        lua_rawgeti(L, 1, i - 1);
        lua_rawseti(L, 1, i);
      }
      break;
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  lua_rawseti(L, 1, pos);
  return 0;
}

int sandbox_remove(lua_State* L) {
  const int end = checked_length(L);
  int pos = luaL_optint(L, 2, end);
  if (!(1 <= pos && pos <= end)) return 0;
  charge_steps(L, static_cast<uint64_t>(end - pos));
  lua_rawgeti(L, 1, pos);
  for (; pos < end; ++pos) {
    lua_rawgeti(L, 1, pos + 1);
    lua_rawseti(L, 1, pos);
  }
  lua_pushnil(L);
  lua_rawseti(L, 1, end);
  return 1;
}

// Charges one step per element, by the batch.
class StepBatch {
 public:
  explicit StepBatch(lua_State* L) : L_(L) {}
  void add() {
    if (++n_ == kBatch) flush();
  }
  void flush() {
    charge_steps(L_, n_);
    n_ = 0;
  }

 private:
  static constexpr uint32_t kBatch = 1024;
  lua_State* L_;
  uint32_t n_ = 0;
};

void add_concat_field(lua_State* L, luaL_Buffer* b, int i) {
  lua_rawgeti(L, 1, i);
  if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid value (%s) at index %d in table for 'concat'", luaL_typename(L, -1), i);
  }
  luaL_addvalue(b);
}

int sandbox_concat(lua_State* L) {
  size_t sep_len = 0;
  const char* sep = luaL_optlstring(L, 2, "", &sep_len);
  luaL_checktype(L, 1, LUA_TTABLE);
  int i = luaL_optint(L, 3, 1);
  const int last = lua_isnoneornil(L, 4) ? static_cast<int>(lua_objlen(L, 1)) : luaL_checkint(L, 4);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  StepBatch steps(L);
  for (; i < last; ++i) {
    add_concat_field(L, &b, i);
    luaL_addlstring(&b, sep, sep_len);
    steps.add();
  }
  if (i == last) add_concat_field(L, &b, i);
  steps.flush();
  luaL_pushresult(&b);
  return 1;
}

int sandbox_maxn(lua_State* L) {
  lua_Number max = 0;
  luaL_checktype(L, 1, LUA_TTABLE);
  StepBatch steps(L);
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    steps.add();
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TNUMBER) max = std::max(max, lua_tonumber(L, -1));
  }
  steps.flush();
  lua_pushnumber(L, max);
  return 1;
}

int sandbox_foreachi(lua_State* L) {
  const int n = checked_length(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  StepBatch steps(L);
  for (int i = 1; i <= n; ++i) {
    steps.add();
    lua_pushvalue(L, 2);
    lua_pushinteger(L, i);
    lua_rawgeti(L, 1, i);
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
  }
  return 0;
}

int sandbox_foreach(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  StepBatch steps(L);
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    steps.add();
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -3);
    lua_pushvalue(L, -3);
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 2);
  }
  return 0;
}

// table.sort: Lua 5.1.5's quicksort (median of three, the pivot parked at
// hi - 1, the smaller part sorted first by recursion, the larger by the
// loop), so that every comparator call and every write to the table
// happens in the same order as on Redis; one step per comparison.
class TableSort {
 public:
  explicit TableSort(lua_State* L) : L_(L), by_function_(!lua_isnil(L, 2)), steps_(L) {}

  void sort(int lo, int hi) {
    while (lo < hi) {
      // t[lo] and t[hi] in order.
      get(lo);
      get(hi);
      if (less(-1, -2)) {
        put_pair(lo, hi);
      } else {
        lua_pop(L_, 2);
      }
      if (hi - lo == 1) return;
      // t[mid] between them.
      int mid = (lo + hi) / 2;
      get(mid);
      get(lo);
      if (less(-2, -1)) {
        put_pair(mid, lo);
      } else {
        lua_pop(L_, 1);
        get(hi);
        if (less(-1, -2)) {
          put_pair(mid, hi);
        } else {
          lua_pop(L_, 2);
        }
      }
      if (hi - lo == 2) return;
      // The pivot (t[mid]) goes to hi - 1 and stays on the stack.
      get(mid);
      lua_pushvalue(L_, -1);
      get(hi - 1);
      put_pair(mid, hi - 1);
      int i = lo;
      int j = hi - 1;
      while (true) {
        get(++i);
        while (less(-1, -2)) {  // t[i] < pivot
          if (i > hi) luaL_error(L_, "invalid order function for sorting");
          lua_pop(L_, 1);
          get(++i);
        }
        get(--j);
        while (less(-3, -1)) {  // pivot < t[j]
          if (j < lo) luaL_error(L_, "invalid order function for sorting");
          lua_pop(L_, 1);
          get(--j);
        }
        if (j < i) {
          lua_pop(L_, 3);
          break;
        }
        put_pair(i, j);
      }
      get(hi - 1);
      get(i);
      put_pair(hi - 1, i);
      // The smaller side by recursion, the larger by the loop.
      int from = 0, to = 0;
      if (i - lo < hi - i) {
        from = lo;
        to = i - 1;
        lo = i + 1;
      } else {
        from = i + 1;
        to = hi;
        hi = i - 1;
      }
      sort(from, to);
    }
  }
  void done() { steps_.flush(); }

 private:
  void get(int i) { lua_rawgeti(L_, 1, i); }
  // t[i] = the top value, t[j] = the one below it; both popped.
  void put_pair(int i, int j) {
    lua_rawseti(L_, 1, i);
    lua_rawseti(L_, 1, j);
  }
  bool less(int a, int b) {
    steps_.add();
    if (!by_function_) return lua_lessthan(L_, a, b) != 0;
    lua_pushvalue(L_, 2);
    lua_pushvalue(L_, a - 1);
    lua_pushvalue(L_, b - 2);
    lua_call(L_, 2, 1);
    const bool r = lua_toboolean(L_, -1) != 0;
    lua_pop(L_, 1);
    return r;
  }

  lua_State* L_;
  bool by_function_;
  StepBatch steps_;
};

int sandbox_sort(lua_State* L) {
  const int n = checked_length(L);
  luaL_checkstack(L, 40, "");
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_settop(L, 2);
  TableSort sorter(L);
  sorter.sort(1, n);
  sorter.done();
  return 0;
}

void set_field(lua_State* L, const char* table, const char* name, lua_CFunction f) {
  lua_getglobal(L, table);
  lua_pushcfunction(L, f);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

}  // namespace

int load_text_chunk(lua_State* L, const char* source, size_t size, const char* chunk_name) {
  TextChunk chunk{false, source, size, false};
  return lua_load(L, read_string_chunk, &chunk, chunk_name);
}

void install_bounded_functions(lua_State* L) {
  lua_pushcfunction(L, sandbox_loadstring);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, sandbox_load);
  lua_setglobal(L, "load");
  lua_pushcfunction(L, sandbox_unpack);
  lua_setglobal(L, "unpack");
  lua_getglobal(L, "collectgarbage");
  lua_pushcclosure(L, sandbox_collectgarbage, 1);
  lua_setglobal(L, "collectgarbage");
  set_field(L, "string", "rep", sandbox_rep);
  lua_getglobal(L, "string");
  install_pattern_functions(L);
  lua_pop(L, 1);
  set_field(L, "table", "insert", sandbox_insert);
  set_field(L, "table", "remove", sandbox_remove);
  set_field(L, "table", "concat", sandbox_concat);
  set_field(L, "table", "maxn", sandbox_maxn);
  set_field(L, "table", "foreach", sandbox_foreach);
  set_field(L, "table", "foreachi", sandbox_foreachi);
  set_field(L, "table", "sort", sandbox_sort);
}

}  // namespace locksim::lua_detail
