#include "redis/lua_code_lines.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <lua.hpp>

namespace locksim {

namespace {

// Reads a Lua 5.1 dump written on this machine (native sizes and byte order,
// which the header states and the reader checks).
class DumpReader {
 public:
  explicit DumpReader(std::string_view dump) : d_(dump) {}

  void header() {
    static const char kSignature[] = "\033Lua";
    if (d_.size() < 12 || d_.substr(0, 4) != std::string_view(kSignature, 4)) fail("not a Lua chunk");
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(d_[i]); };
    if (byte(4) != 0x51 || byte(5) != 0) fail("not a Lua 5.1 chunk");
    const uint16_t one = 1;
    unsigned char little = 0;
    std::memcpy(&little, &one, 1);
    if (byte(6) != little || byte(7) != sizeof(int) || byte(8) != sizeof(size_t) || byte(9) != sizeof(uint32_t) ||
        byte(10) != sizeof(lua_Number)) {
      fail("a chunk for other type sizes or byte order");
    }
    at_ = 12;
  }

  // One function and, recursively, those it defines: their line info into *lines.
  void function(std::vector<int>* lines, int depth) {
    if (depth > 200) fail("functions nested too deeply");
    skip_string();             // source
    integer();                 // linedefined
    integer();                 // lastlinedefined
    skip(4);                   // nups, numparams, is_vararg, maxstacksize
    skip(count(4) * 4);        // code (4-byte instructions)
    const size_t constants = count(0);
    for (size_t i = 0; i < constants; ++i) {
      switch (take_byte()) {
        case LUA_TNIL: break;
        case LUA_TBOOLEAN: skip(1); break;
        case LUA_TNUMBER: skip(sizeof(lua_Number)); break;
        case LUA_TSTRING: skip_string(); break;
        default: fail("an unknown constant type");
      }
    }
    const size_t functions = count(0);
    for (size_t i = 0; i < functions; ++i) function(lines, depth + 1);
    const size_t lineinfo = count(sizeof(int));
    for (size_t i = 0; i < lineinfo; ++i) lines->push_back(integer());
    const size_t locals = count(0);
    for (size_t i = 0; i < locals; ++i) {
      skip_string();
      integer();
      integer();
    }
    const size_t upvalues = count(0);
    for (size_t i = 0; i < upvalues; ++i) skip_string();
  }

  bool done() const { return at_ == d_.size(); }

 private:
  [[noreturn]] static void fail(const std::string& what) { throw LuaDumpError("Lua dump: " + what); }
  void need(size_t n) const {
    if (d_.size() - at_ < n) fail("truncated");
  }
  void skip(size_t n) {
    need(n);
    at_ += n;
  }
  unsigned char take_byte() {
    need(1);
    return static_cast<unsigned char>(d_[at_++]);
  }
  int integer() {
    need(sizeof(int));
    int v = 0;
    std::memcpy(&v, d_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  // A count of entries of `entry_bytes` each (0: of variable size): not
  // negative, and (fixed sizes) not more than the bytes left.
  size_t count(size_t entry_bytes) {
    const int n = integer();
    if (n < 0) fail("a negative count");
    const size_t entries = static_cast<size_t>(n);
    if (entry_bytes > 0 && entries > (d_.size() - at_) / entry_bytes) fail("truncated");
    return entries;
  }
  void skip_string() {
    need(sizeof(size_t));
    size_t n = 0;
    std::memcpy(&n, d_.data() + at_, sizeof n);
    at_ += sizeof n;
    skip(n);
  }

  std::string_view d_;
  size_t at_ = 0;
};

int collect_dump(lua_State* /*L*/, const void* p, size_t size, void* ud) {
  static_cast<std::string*>(ud)->append(static_cast<const char*>(p), size);
  return 0;
}

}  // namespace

std::vector<int> lua_dump_code_lines(std::string_view dump) {
  DumpReader reader(dump);
  reader.header();
  std::vector<int> lines;
  reader.function(&lines, 0);
  if (!reader.done()) throw LuaDumpError("Lua dump: bytes after the main function");
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

std::vector<int> lua_function_code_lines(lua_State* L) {
  std::string dump;
  if (lua_dump(L, collect_dump, &dump) != 0) throw LuaDumpError("Lua dump: lua_dump failed");
  return lua_dump_code_lines(dump);
}

}  // namespace locksim
