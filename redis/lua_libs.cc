// Redis 7.0's script libraries for the sandbox (redis/lua_scripting.h):
//  - bit: Debian's LuaBitOp 1.0.2 (lua-bitop), the version Redis bundles;
//    it takes and gives numbers only, bounded.
//  - cjson: Debian's lua-cjson 2.1.0, the version Redis forks, behind a
//    bound of our own: its encoder writes into a buffer it mallocs, outside
//    the Lua allocator, so before each encode we walk the value (charging
//    each element to the budget) and check that the longest text it can
//    produce fits in the memory limit, with the decoder's scratch copy
//    likewise; a buffer it keeps between calls is given back once a large
//    encode is over. Its errors are raised again from our wrapper, so they
//    carry the script's position and the function's name as on Redis.
//  - struct and cmsgpack: our own (Debian packages neither): Roberto
//    Ierusalimschy's struct as Redis 7.0 ships it (pack, unpack, size) and
//    lua-cmsgpack 0.4.0 (pack, unpack, unpack_one, unpack_limit), with
//    their encodings, error texts and limits, checked against live Redis
//    (tests/sim/test_lua_libs_live.cc). Their output is built in memory
//    from the Lua allocator, so it is charged and bounded.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "redis/lua_state.h"

extern "C" {
int luaopen_bit(lua_State* L);
int luaopen_cjson(lua_State* L);
}

namespace locksim::lua_detail {

namespace {

// ---------------------------------------------------------------- helpers

// Calls upvalue 1 with this call's arguments, protected, and raises its
// error again from here: a library function called through a wrapper sees
// the wrapper, not the script, as its caller, so its luaL_error texts lack
// the script's position and its argument errors name the function '?'.
// Raised from the wrapper (which the script called by `name`), they read
// as on Redis. A run that is stopping is not the callee's to report.
int call_library_function(lua_State* L, const char* name) {
  const int nargs = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  const int status = lua_pcall(L, nargs, LUA_MULTRET, 0);
  if (status == 0) return lua_gettop(L);
  const RunState* s = run_state(L);
  if (!s->abort.empty() || s->over_memory || !lua_isstring(L, -1)) lua_error(L);
  std::string text = lua_tostring(L, -1);
  const std::string anonymous = " to '?' (";
  if (text.rfind("bad argument #", 0) == 0) {
    const size_t at = text.find(anonymous);
    if (at != std::string::npos) text.replace(at, anonymous.size(), std::string(" to '") + name + "' (");
  }
  lua_pop(L, 1);
  return luaL_error(L, "%s", text.c_str());
}

// A growing byte buffer in memory from the state's allocator (charged to
// the run like any Lua memory); freed when it goes out of scope, an error
// unwinding included.
class LuaBytes {
 public:
  explicit LuaBytes(lua_State* L) : L_(L) { alloc_ = lua_getallocf(L, &ud_); }
  ~LuaBytes() {
    if (data_ != nullptr) alloc_(ud_, data_, capacity_, 0);
  }
  LuaBytes(const LuaBytes&) = delete;
  LuaBytes& operator=(const LuaBytes&) = delete;

  void append(const void* p, size_t n) {
    if (n > capacity_ - size_) grow(n);
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  void byte(unsigned v) {
    const auto c = static_cast<unsigned char>(v);
    append(&c, 1);
  }
  // v as n bytes, most significant first.
  void big_endian(uint64_t v, int n) {
    unsigned char b[8];
    for (int i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(v >> (8 * (n - 1 - i)));
    append(b, static_cast<size_t>(n));
  }
  void push() const { lua_pushlstring(L_, data_ == nullptr ? "" : data_, size_); }

 private:
  void grow(size_t n) {
    size_t capacity = std::max<size_t>(64, capacity_ * 2);
    while (capacity - size_ < n) capacity *= 2;
    void* p = alloc_(ud_, data_, capacity_, capacity);
    if (p == nullptr) raise_out_of_memory(L_);
    data_ = static_cast<char*>(p);
    capacity_ = capacity;
  }
  lua_State* L_;
  lua_Alloc alloc_;
  void* ud_ = nullptr;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// ---------------------------------------------------------------- cjson

// The cjson settings the bound depends on, read from the library itself.
struct CjsonSettings {
  int max_depth = 1000;
  bool sparse_convert = false;
  int sparse_ratio = 2;
  int sparse_safe = 10;
};

constexpr int kMaxWalkDepth = 5000;  // cjson itself stops at about 4000 (its Lua stack)
constexpr size_t kCjsonMaxText = size_t{1} << 30;  // its buffer sizes are ints: nothing near 2 GB

// An upper bound on the length of cjson.encode's text for the value at
// `idx`, by the rules cjson applies (arrays with holes written as null,
// sparse arrays refused or made objects, too deep refused: what cjson
// would refuse adds nothing more). One step per element visited.
class EncodeBound {
 public:
  EncodeBound(lua_State* L, const CjsonSettings& settings) : L_(L), settings_(settings) {}

  size_t of(int idx, int depth) {
    if (++steps_ == 1024) {
      charge_steps(L_, steps_);
      steps_ = 0;
    }
    switch (lua_type(L_, idx)) {
      case LUA_TSTRING: return 6 * lua_objlen(L_, idx) + 2;
      case LUA_TNUMBER: return 32;
      case LUA_TTABLE: return table(idx < 0 ? lua_gettop(L_) + idx + 1 : idx, depth + 1);
      default: return 5;  // true, false, null; anything else cjson refuses
    }
  }
  void done() { charge_steps(L_, steps_); }

 private:
  size_t table(int t, int depth) {
    if (depth > settings_.max_depth || depth > kMaxWalkDepth) return 0;  // cjson stops here
    if (!lua_checkstack(L_, 4)) return 0;
    // An array: only positive integer keys (cjson's lua_array_length).
    double max = 0;
    size_t items = 0;
    bool array = true;
    lua_pushnil(L_);
    while (lua_next(L_, t) != 0) {
      lua_pop(L_, 1);
      const double k = lua_type(L_, -1) == LUA_TNUMBER ? lua_tonumber(L_, -1) : 0;
      if (k >= 1 && std::floor(k) == k) {
        max = std::max(max, k);
        ++items;
      } else {
        array = false;
      }
    }
    if (array && settings_.sparse_ratio > 0 && max > static_cast<double>(items) * settings_.sparse_ratio &&
        max > settings_.sparse_safe) {
      if (!settings_.sparse_convert) return 0;  // refused
      array = false;
    }
    size_t total = 2;
    if (array) {
      if (max > static_cast<double>(kCjsonMaxText)) return kCjsonMaxText;
      const auto n = static_cast<int64_t>(max);
      for (int64_t i = 1; i <= n && total < kCjsonMaxText; ++i) {
        lua_rawgeti(L_, t, static_cast<int>(i));
        total += 1 + (lua_isnil(L_, -1) ? 4 : of(-1, depth));
        lua_pop(L_, 1);
      }
      return total;
    }
    lua_pushnil(L_);
    while (lua_next(L_, t) != 0 && total < kCjsonMaxText) {
      total += 2 + of(-2, depth) + 2 + of(-1, depth);
      lua_pop(L_, 1);
    }
    if (total >= kCjsonMaxText) lua_settop(L_, t);  // left the loop early: drop its key
    return total;
  }

  lua_State* L_;
  CjsonSettings settings_;
  uint32_t steps_ = 0;
};

// Upvalues of cjson_encode: 1 encode, 2 encode_keep_buffer, 3
// encode_sparse_array, 4 encode_max_depth (the library's own).
CjsonSettings read_cjson_settings(lua_State* L) {
  CjsonSettings out;
  const int top = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(3));
  lua_call(L, 0, 3);
  out.sparse_convert = lua_toboolean(L, -3) != 0;
  out.sparse_ratio = static_cast<int>(lua_tointeger(L, -2));
  out.sparse_safe = static_cast<int>(lua_tointeger(L, -1));
  lua_pushvalue(L, lua_upvalueindex(4));
  lua_call(L, 0, 1);
  out.max_depth = static_cast<int>(lua_tointeger(L, -1));
  lua_settop(L, top);
  return out;
}

constexpr size_t kKeptBufferBytes = size_t{1} << 20;  // a kept buffer larger than this is given back

int cjson_encode(lua_State* L) {
  size_t bound = 0;
  if (lua_gettop(L) == 1) {
    EncodeBound walk(L, read_cjson_settings(L));
    bound = walk.of(1, 0);
    walk.done();
    // Its buffer grows by doubling: twice the text at most, outside the Lua heap.
    if (bound >= kCjsonMaxText || !memory_room_for(L, 2 * bound + 64)) raise_out_of_memory(L);
  }
  MemoryAccount& memory = *run_state(L)->memory;
  const size_t reserved = 2 * bound + 64;
  memory.charge_anyway(reserved);  // held while cjson's buffer may be that large
  struct Release {
    MemoryAccount& m;
    size_t n;
    ~Release() { m.release(n); }
  } release{memory, reserved};
  const int results = call_library_function(L, "encode");
  if (bound > kKeptBufferBytes) {
    // A kept buffer that large goes: turning the setting off and on again
    // frees it and starts a small one (the setting itself is unchanged).
    const int top = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_call(L, 0, 1);
    const bool keep = lua_toboolean(L, -1) != 0;
    lua_settop(L, top);
    if (keep) {
      for (const bool setting : {false, true}) {
        lua_pushvalue(L, lua_upvalueindex(2));
        lua_pushboolean(L, setting);
        lua_call(L, 1, 0);
      }
    }
  }
  return results;
}

// decode copies strings through a scratch buffer as long as its input.
int cjson_decode(lua_State* L) {
  size_t len = 0;
  if (lua_type(L, 1) == LUA_TSTRING) lua_tolstring(L, 1, &len);
  if (len >= kCjsonMaxText || !memory_room_for(L, len + 64)) raise_out_of_memory(L);
  charge_steps(L, len / 4);
  MemoryAccount& memory = *run_state(L)->memory;
  memory.charge_anyway(len + 64);
  struct Release {
    MemoryAccount& m;
    size_t n;
    ~Release() { m.release(n); }
  } release{memory, len + 64};
  return call_library_function(L, "decode");
}

int cjson_setting(lua_State* L) {
  return call_library_function(L, lua_tostring(L, lua_upvalueindex(2)));
}

int cjson_new(lua_State* L);

// Replaces the functions of the cjson table on top of the stack by bounded
// wrappers around them.
void wrap_cjson_table(lua_State* L) {
  const int t = lua_gettop(L);
  lua_getfield(L, t, "encode");
  lua_getfield(L, t, "encode_keep_buffer");
  lua_getfield(L, t, "encode_sparse_array");
  lua_getfield(L, t, "encode_max_depth");
  lua_pushcclosure(L, cjson_encode, 4);
  lua_setfield(L, t, "encode");
  lua_getfield(L, t, "decode");
  lua_pushcclosure(L, cjson_decode, 1);
  lua_setfield(L, t, "decode");
  lua_getfield(L, t, "new");
  lua_pushcclosure(L, cjson_new, 1);
  lua_setfield(L, t, "new");
  for (const char* name : {"encode_keep_buffer", "encode_sparse_array", "encode_max_depth", "decode_max_depth",
                           "encode_number_precision", "encode_invalid_numbers", "decode_invalid_numbers"}) {
    lua_getfield(L, t, name);
    lua_pushstring(L, name);
    lua_pushcclosure(L, cjson_setting, 2);
    lua_setfield(L, t, name);
  }
}

// cjson.new(): a new instance, its functions wrapped as well.
int cjson_new(lua_State* L) {
  const int results = call_library_function(L, "new");
  if (results >= 1 && lua_istable(L, -1)) wrap_cjson_table(L);
  return results;
}

// ---------------------------------------------------------------- bit

// bit.tohex(x, n): LuaBitOp 1.0.2 negates n to choose upper case, which for
// n = -2^31 stays negative and writes outside its buffer; Redis 7.0.15's
// copy answers as for -2^31 + 1 (eight digits, upper case). n is taken as
// LuaBitOp takes every argument: its low 32 bits.
int bit_tohex(lua_State* L) {
  if (lua_gettop(L) >= 2 && lua_isnumber(L, 2)) {
    const double shifted = lua_tonumber(L, 2) + 6755399441055744.0;  // 2^52 + 2^51: the low bits land in place
    uint64_t bits = 0;
    std::memcpy(&bits, &shifted, sizeof bits);
    if (static_cast<uint32_t>(bits) == 0x80000000u) {
      lua_pushnumber(L, -2147483647.0);
      lua_replace(L, 2);
    }
  }
  return call_library_function(L, "tohex");
}

// ---------------------------------------------------------------- struct

constexpr int kStructMaxIntSize = 32;
constexpr size_t kStructMaxAlign = 8;

struct StructHeader {
  bool little = true;  // x86: native order is little endian
  size_t align = 1;
};

bool is_power_of_two(size_t x) { return x > 0 && (x & (x - 1)) == 0; }

// A size written after an option; `fallback` when none.
size_t format_number(lua_State* L, const char** fmt, size_t fallback) {
  if (!(**fmt >= '0' && **fmt <= '9')) return fallback;
  size_t a = 0;
  do {
    const int d = *((*fmt)++) - '0';
    if (a > static_cast<size_t>(INT_MAX / 10) || a * 10 > static_cast<size_t>(INT_MAX - d)) {
      luaL_error(L, "integral size overflow");
    }
    a = a * 10 + static_cast<size_t>(d);
  } while (**fmt >= '0' && **fmt <= '9');
  return a;
}

size_t option_size(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B': case 'b': case 'x': return 1;
    case 'H': case 'h': return 2;
    case 'L': case 'l': case 'T': case 'd': return 8;
    case 'f': return 4;
    case 'c': return format_number(L, fmt, 1);
    case 'i': case 'I': {
      const size_t n = format_number(L, fmt, 4);
      if (n > static_cast<size_t>(kStructMaxIntSize)) {
        luaL_error(L, "integral size %d is larger than limit of %d", static_cast<int>(n), kStructMaxIntSize);
      }
      return n;
    }
    default: return 0;
  }
}

size_t padding_for(size_t len, const StructHeader& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  size = std::min(size, h.align);
  return (size - (len & (size - 1))) & (size - 1);
}

// ' ', '<', '>', '!n'; anything else is not a format option.
void control_option(lua_State* L, char opt, const char** fmt, StructHeader* h) {
  switch (opt) {
    case ' ': return;
    case '>': h->little = false; return;
    case '<': h->little = true; return;
    case '!': {
      const size_t a = format_number(L, fmt, kStructMaxAlign);
      if (!is_power_of_two(a)) luaL_error(L, "alignment %d is not a power of 2", static_cast<int>(a));
      h->align = a;
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

// A number as struct.pack writes an integer: the low `size` bytes of its
// 64-bit value (negative numbers in two's complement), zeros past 8 bytes.
// Numbers at or past 2^64 give 0, NaN and those below -2^63 give 2^63, as
// the C conversion does on x86 for Redis.
void put_integer(luaL_Buffer* b, lua_Number n, bool little, size_t size) {
  uint64_t value = uint64_t{1} << 63;  // NaN, and what is below -2^63
  if (n < 0) {
    if (n >= -9223372036854775808.0) value = static_cast<uint64_t>(static_cast<int64_t>(n));
  } else if (n >= 0) {
    value = n < 18446744073709551616.0 ? static_cast<uint64_t>(n) : 0;
  }
  unsigned char bytes[kStructMaxIntSize];
  for (size_t i = 0; i < size; ++i) bytes[i] = i < 8 ? static_cast<unsigned char>(value >> (8 * i)) : 0;
  for (size_t i = 0; i < size; ++i) luaL_addchar(b, static_cast<char>(bytes[little ? i : size - 1 - i]));
}

void put_bytes(luaL_Buffer* b, const void* p, size_t size, bool little) {
  const auto* bytes = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < size; ++i) luaL_addchar(b, static_cast<char>(bytes[little ? i : size - 1 - i]));
}

int struct_pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  StructHeader h;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // keeps the arguments apart from the buffer's pieces
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = option_size(L, opt, &fmt);
    const size_t pad = padding_for(total, h, opt, size);
    total += pad;
    for (size_t i = 0; i < pad; ++i) luaL_addchar(&b, '\0');
    switch (opt) {
      case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
        put_integer(&b, luaL_checknumber(L, arg++), h.little, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        const auto f = static_cast<float>(luaL_checknumber(L, arg++));
        put_bytes(&b, &f, sizeof f, h.little);
        break;
      }
      case 'd': {
        const double d = luaL_checknumber(L, arg++);
        put_bytes(&b, &d, sizeof d, h.little);
        break;
      }
      case 'c':
      case 's': {
        size_t l = 0;
        const char* s = luaL_checklstring(L, arg++, &l);
        if (size == 0) size = l;
        luaL_argcheck(L, l >= size, arg, "string too short");
        charge_steps(L, size / kBytesPerStep);
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          ++size;
        }
        break;
      }
      default:
        control_option(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

// The integer in `size` bytes: its low 8 bytes; signed, extended from
// bit 8 * size - 1 taken modulo 64 (the shift x86 makes for Redis's struct,
// which reads i9..i32 that way).
lua_Number get_integer(const char* p, bool little, bool is_signed, size_t size) {
  uint64_t v = 0;
  const size_t n = std::min<size_t>(size, 8);
  for (size_t i = 0; i < n; ++i) {
    const auto byte = static_cast<unsigned char>(little ? p[i] : p[size - 1 - i]);
    v |= static_cast<uint64_t>(byte) << (8 * i);
  }
  if (!is_signed) return static_cast<lua_Number>(v);
  const uint64_t mask = ~uint64_t{0} << ((8 * size - 1) & 63);
  if ((v & mask) != 0) v |= mask;
  return static_cast<lua_Number>(static_cast<int64_t>(v));
}

int struct_unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t ld = 0;
  const char* data = luaL_checklstring(L, 2, &ld);
  size_t pos = static_cast<size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  --pos;
  StructHeader h;
  int n = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = option_size(L, opt, &fmt);
    pos += padding_for(pos, h, opt, size);
    luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I': {
        const bool is_signed = opt >= 'a' && opt <= 'z';
        lua_pushnumber(L, get_integer(data + pos, h.little, is_signed, size));
        ++n;
        break;
      }
      case 'x':
        break;
      case 'f': {
        unsigned char bytes[4];
        for (size_t i = 0; i < 4; ++i) bytes[i] = static_cast<unsigned char>(data[pos + (h.little ? i : 3 - i)]);
        float f = 0;
        std::memcpy(&f, bytes, 4);
        lua_pushnumber(L, f);
        ++n;
        break;
      }
      case 'd': {
        unsigned char bytes[8];
        for (size_t i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(data[pos + (h.little ? i : 7 - i)]);
        double d = 0;
        std::memcpy(&d, bytes, 8);
        lua_pushnumber(L, d);
        ++n;
        break;
      }
      case 'c': {
        if (size == 0) {
          if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          size = static_cast<size_t>(lua_tonumber(L, -1));
          lua_pop(L, 1);
          --n;
          luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        ++n;
        break;
      }
      case 's': {
        const void* end = std::memchr(data + pos, '\0', ld - pos);
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(static_cast<const char*>(end) - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        ++n;
        break;
      }
      default:
        control_option(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return n + 1;
}

int struct_size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  StructHeader h;
  size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const size_t size = option_size(L, opt, &fmt);
    pos += padding_for(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    // A letter or digit that is no option has size 0 here (Redis's size
    // refuses only the control characters it does not know).
    if (!((opt >= 'a' && opt <= 'z') || (opt >= 'A' && opt <= 'Z') || (opt >= '0' && opt <= '9'))) {
      control_option(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

// ---------------------------------------------------------------- cmsgpack

constexpr int kMsgpackMaxNesting = 16;  // deeper tables are written as nil

bool is_int64_equivalent(lua_Number n) {
  if (std::isinf(n) || std::isnan(n)) return false;
  if (n < -9223372036854775808.0 || n >= 9223372036854775808.0) return false;
  return static_cast<lua_Number>(static_cast<int64_t>(n)) == n;
}

class MsgpackWriter {
 public:
  MsgpackWriter(lua_State* L, LuaBytes* out) : L_(L), out_(out) {}

  // The value on top of the stack (left there).
  void value(int level) {
    step();
    int t = lua_type(L_, -1);
    if (t == LUA_TTABLE && level == kMsgpackMaxNesting) t = LUA_TNIL;
    switch (t) {
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L_, -1, &len);
        if (len < 32) {
          out_->byte(0xa0 | static_cast<unsigned>(len));
        } else if (len <= 0xff) {
          out_->byte(0xd9);
          out_->big_endian(len, 1);
        } else if (len <= 0xffff) {
          out_->byte(0xda);
          out_->big_endian(len, 2);
        } else {
          out_->byte(0xdb);
          out_->big_endian(len, 4);
        }
        charge_steps(L_, len / kBytesPerStep);
        out_->append(s, len);
        return;
      }
      case LUA_TBOOLEAN: out_->byte(lua_toboolean(L_, -1) ? 0xc3 : 0xc2); return;
      case LUA_TNUMBER: number(lua_tonumber(L_, -1)); return;
      case LUA_TTABLE: table(level); return;
      default: out_->byte(0xc0); return;  // nil, and what has no encoding
    }
  }
  void done() { charge_steps(L_, steps_); }

 private:
  void step() {
    if (++steps_ == 1024) {
      charge_steps(L_, steps_);
      steps_ = 0;
    }
  }
  void number(lua_Number n) {
    if (is_int64_equivalent(n)) {
      integer(static_cast<int64_t>(n));
      return;
    }
    const auto f = static_cast<float>(n);
    if (static_cast<double>(f) == n) {
      uint32_t bits = 0;
      std::memcpy(&bits, &f, 4);
      out_->byte(0xca);
      out_->big_endian(bits, 4);
    } else {
      uint64_t bits = 0;
      std::memcpy(&bits, &n, 8);
      out_->byte(0xcb);
      out_->big_endian(bits, 8);
    }
  }
  void integer(int64_t n) {
    if (n >= 0) {
      const auto u = static_cast<uint64_t>(n);
      if (u <= 127) {
        out_->byte(static_cast<unsigned>(u));
      } else if (u <= 0xff) {
        out_->byte(0xcc);
        out_->big_endian(u, 1);
      } else if (u <= 0xffff) {
        out_->byte(0xcd);
        out_->big_endian(u, 2);
      } else if (u <= 0xffffffffULL) {
        out_->byte(0xce);
        out_->big_endian(u, 4);
      } else {
        out_->byte(0xcf);
        out_->big_endian(u, 8);
      }
      return;
    }
    const auto u = static_cast<uint64_t>(n);
    if (n >= -32) {
      out_->byte(static_cast<unsigned>(u & 0xff));
    } else if (n >= -128) {
      out_->byte(0xd0);
      out_->big_endian(u, 1);
    } else if (n >= -32768) {
      out_->byte(0xd1);
      out_->big_endian(u, 2);
    } else if (n >= -2147483648LL) {
      out_->byte(0xd2);
      out_->big_endian(u, 4);
    } else {
      out_->byte(0xd3);
      out_->big_endian(u, 8);
    }
  }
  // An array when its keys are exactly 1..n, else a map.
  bool is_array() {
    lua_Number max = 0;
    size_t count = 0;
    lua_pushnil(L_);
    while (lua_next(L_, -2) != 0) {
      step();
      lua_pop(L_, 1);
      if (lua_type(L_, -1) != LUA_TNUMBER) {
        lua_pop(L_, 1);
        return false;
      }
      const lua_Number k = lua_tonumber(L_, -1);
      if (k <= 0 || !(k == std::floor(k) && k <= static_cast<lua_Number>(INT_MAX))) {
        lua_pop(L_, 1);
        return false;
      }
      max = std::max(max, k);
      ++count;
    }
    return max == static_cast<lua_Number>(count);
  }
  void header(size_t n, unsigned fix, unsigned tag16, unsigned tag32) {
    if (n <= 15) {
      out_->byte(fix | static_cast<unsigned>(n));
    } else if (n <= 0xffff) {
      out_->byte(tag16);
      out_->big_endian(n, 2);
    } else {
      out_->byte(tag32);
      out_->big_endian(n, 4);
    }
  }
  void table(int level) {
    luaL_checkstack(L_, 4, "in function mp_encode_lua_table");
    if (is_array()) {
      const size_t n = lua_objlen(L_, -1);
      header(n, 0x90, 0xdc, 0xdd);
      for (size_t i = 1; i <= n; ++i) {
        lua_rawgeti(L_, -1, static_cast<int>(i));
        value(level + 1);
        lua_pop(L_, 1);
      }
      return;
    }
    size_t n = 0;
    lua_pushnil(L_);
    while (lua_next(L_, -2) != 0) {
      step();
      lua_pop(L_, 1);
      ++n;
    }
    header(n, 0x80, 0xde, 0xdf);
    lua_pushnil(L_);
    while (lua_next(L_, -2) != 0) {
      lua_pushvalue(L_, -2);
      value(level + 1);  // the key
      lua_pop(L_, 1);
      value(level + 1);  // the value
      lua_pop(L_, 1);
    }
  }

  lua_State* L_;
  LuaBytes* out_;
  uint32_t steps_ = 0;
};

int msgpack_pack(lua_State* L) {
  const int n = lua_gettop(L);
  if (n == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  LuaBytes out(L);
  MsgpackWriter w(L, &out);
  for (int i = 1; i <= n; ++i) {
    luaL_checkstack(L, 1, "in function mp_pack");
    lua_pushvalue(L, i);
    w.value(0);
    lua_pop(L, 1);
  }
  w.done();
  out.push();
  return 1;
}

class MsgpackReader {
 public:
  enum class Error { None, MissingBytes, BadFormat };
  MsgpackReader(lua_State* L, const unsigned char* p, size_t left) : L_(L), p_(p), left_(left) {}

  size_t left() const { return left_; }
  Error error() const { return error_; }

  // Pushes one value (nothing when error() is set).
  void value() {
    if (++steps_ == 1024) {
      charge_steps(L_, steps_);
      steps_ = 0;
    }
    if (!need(1)) return;
    const unsigned c = p_[0];
    switch (c) {
      case 0xcc: if (need(2)) push_consumed(static_cast<lua_Number>(p_[1]), 2); return;
      case 0xd0: if (need(2)) push_consumed(static_cast<signed char>(p_[1]), 2); return;
      case 0xcd: if (need(3)) push_consumed(static_cast<lua_Number>(be(1, 2)), 3); return;
      case 0xd1: if (need(3)) push_consumed(static_cast<int16_t>(be(1, 2)), 3); return;
      case 0xce: if (need(5)) push_consumed(static_cast<lua_Number>(be(1, 4)), 5); return;
      case 0xd2: if (need(5)) push_consumed(static_cast<int32_t>(be(1, 4)), 5); return;
      // lua-cmsgpack 0.4.0 reads a uint64 as a Lua integer: past 2^63 it wraps negative.
      case 0xcf: if (need(9)) push_consumed(static_cast<lua_Number>(static_cast<int64_t>(be(1, 8))), 9); return;
      case 0xd3: if (need(9)) push_consumed(static_cast<lua_Number>(static_cast<int64_t>(be(1, 8))), 9); return;
      case 0xc0: lua_pushnil(L_); consume(1); return;
      case 0xc2: lua_pushboolean(L_, 0); consume(1); return;
      case 0xc3: lua_pushboolean(L_, 1); consume(1); return;
      case 0xca:
        if (need(5)) {
          const auto bits = static_cast<uint32_t>(be(1, 4));
          float f = 0;
          std::memcpy(&f, &bits, 4);
          push_consumed(f, 5);
        }
        return;
      case 0xcb:
        if (need(9)) {
          const uint64_t bits = be(1, 8);
          double d = 0;
          std::memcpy(&d, &bits, 8);
          push_consumed(d, 9);
        }
        return;
      case 0xd9: if (need(2)) bytes(2, be(1, 1)); return;
      case 0xda: if (need(3)) bytes(3, be(1, 2)); return;
      case 0xdb: if (need(5)) bytes(5, be(1, 4)); return;
      case 0xdc: if (need(3)) { const uint64_t n = be(1, 2); consume(3); array(n); } return;
      case 0xdd: if (need(5)) { const uint64_t n = be(1, 4); consume(5); array(n); } return;
      case 0xde: if (need(3)) { const uint64_t n = be(1, 2); consume(3); map(n); } return;
      case 0xdf: if (need(5)) { const uint64_t n = be(1, 4); consume(5); map(n); } return;
      default: break;
    }
    if ((c & 0x80) == 0) {
      push_consumed(static_cast<lua_Number>(c), 1);
    } else if ((c & 0xe0) == 0xe0) {
      push_consumed(static_cast<signed char>(c), 1);
    } else if ((c & 0xe0) == 0xa0) {
      bytes(1, c & 0x1f);
    } else if ((c & 0xf0) == 0x90) {
      consume(1);
      array(c & 0x0f);
    } else if ((c & 0xf0) == 0x80) {
      consume(1);
      map(c & 0x0f);
    } else {
      error_ = Error::BadFormat;
    }
  }
  void done() { charge_steps(L_, steps_); }

 private:
  bool need(size_t n) {
    if (left_ < n) {
      error_ = Error::MissingBytes;
      return false;
    }
    return true;
  }
  void consume(size_t n) {
    p_ += n;
    left_ -= n;
  }
  uint64_t be(size_t at, int n) const {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | p_[at + static_cast<size_t>(i)];
    return v;
  }
  void push_consumed(lua_Number n, size_t size) {
    lua_pushnumber(L_, n);
    consume(size);
  }
  void bytes(size_t head, uint64_t len) {
    if (len > left_ || !need(head + len)) {
      error_ = Error::MissingBytes;
      return;
    }
    lua_pushlstring(L_, reinterpret_cast<const char*>(p_ + head), len);
    consume(head + len);
  }
  void array(uint64_t n) {
    lua_newtable(L_);
    luaL_checkstack(L_, 1, "in function mp_decode_to_lua_array");
    for (uint64_t i = 1; i <= n; ++i) {
      lua_pushnumber(L_, static_cast<lua_Number>(i));
      value();
      if (error_ != Error::None) return;
      lua_settable(L_, -3);
    }
  }
  void map(uint64_t n) {
    lua_newtable(L_);
    luaL_checkstack(L_, 1, "in function mp_decode_to_lua_hash");
    for (uint64_t i = 0; i < n; ++i) {
      value();
      if (error_ != Error::None) return;
      value();
      if (error_ != Error::None) return;
      lua_settable(L_, -3);
    }
  }

  lua_State* L_;
  const unsigned char* p_;
  size_t left_;
  Error error_ = Error::None;
  uint32_t steps_ = 0;
};

// lua-cmsgpack's unpack with a limit (0 and offset 0: everything, no
// offset returned) from byte `offset`.
int msgpack_unpack_from(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const bool everything = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  if (static_cast<size_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  if (everything) limit = INT_MAX;
  MsgpackReader r(L, reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset));
  int count = 0;
  for (; r.left() > 0 && count < limit; ++count) {
    luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
    r.value();
    if (r.error() == MsgpackReader::Error::MissingBytes) return luaL_error(L, "Missing bytes in input.");
    if (r.error() == MsgpackReader::Error::BadFormat) return luaL_error(L, "Bad data format in input.");
  }
  r.done();
  if (!everything) {
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    const size_t next = len - r.left();
    lua_pushinteger(L, r.left() == 0 ? -1 : static_cast<lua_Integer>(static_cast<int>(next)));
    lua_insert(L, 2);
    ++count;
  }
  return count;
}

int msgpack_unpack(lua_State* L) { return msgpack_unpack_from(L, 0, 0); }

int msgpack_unpack_one(lua_State* L) {
  const lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_settop(L, 1);
  return msgpack_unpack_from(L, 1, static_cast<int>(offset));
}

int msgpack_unpack_limit(lua_State* L) {
  const lua_Integer limit = luaL_checkinteger(L, 2);
  const lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_settop(L, 1);
  return msgpack_unpack_from(L, static_cast<int>(limit), static_cast<int>(offset));
}

void set_global_table(lua_State* L, const char* name,
                      std::initializer_list<std::pair<const char*, lua_CFunction>> functions) {
  lua_createtable(L, 0, static_cast<int>(functions.size()));
  for (const auto& [fname, f] : functions) {
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, fname);
  }
  lua_setglobal(L, name);
}

}  // namespace

void open_script_libraries(lua_State* L) {
  lua_pushcfunction(L, luaopen_bit);
  lua_call(L, 0, 1);  // sets the global bit (and package.loaded's entry, unused)
  lua_getfield(L, -1, "tohex");
  lua_pushcclosure(L, bit_tohex, 1);
  lua_setfield(L, -2, "tohex");
  lua_pop(L, 1);
  lua_pushcfunction(L, luaopen_cjson);
  lua_call(L, 0, 1);
  wrap_cjson_table(L);
  lua_setglobal(L, "cjson");
  set_global_table(L, "struct", {{"pack", struct_pack}, {"unpack", struct_unpack}, {"size", struct_size}});
  set_global_table(L, "cmsgpack", {{"pack", msgpack_pack},
                                   {"unpack", msgpack_unpack},
                                   {"unpack_one", msgpack_unpack_one},
                                   {"unpack_limit", msgpack_unpack_limit}});
  lua_getglobal(L, "cmsgpack");
  for (const auto& [field, text] : {std::pair<const char*, const char*>{"_NAME", "cmsgpack"},
                                    {"_VERSION", "lua-cmsgpack 0.4.0"},
                                    {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
                                    {"_DESCRIPTION", "MessagePack C implementation for Lua"}}) {
    lua_pushstring(L, text);
    lua_setfield(L, -2, field);
  }
  lua_pop(L, 1);
}

}  // namespace locksim::lua_detail
