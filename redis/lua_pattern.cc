// The pattern functions of redis/lua_pattern.h: a backtracking matcher over
// an explicit stack, and find / match / gmatch / gsub over it.
//
// How the matcher walks a pattern. A position is (s, p): the subject text
// from s, the pattern from p. Items that cannot backtrack (a plain
// character, a class, '%b', '%f', a back reference) move s and p on or
// fail. Items that can leave a choice point on the stack, holding what to
// try next if the rest fails:
//   x?   try (s+1, after) first; the choice point holds (s, after)
//   x*   take the longest run first; the choice point shortens it by one
//   x+   the same, from one character on
//   x-   take none first; the choice point takes one more
// and captures leave an undo entry, so that a failure behind them puts the
// capture state back as it was. A failure pops the stack to the latest
// choice point (undoing captures on the way) and resumes from it; an empty
// stack is no match. This is the order in which Lua's recursive matcher
// tries the alternatives, so the first match found is the same.
#include "redis/lua_pattern.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "redis/lua_state.h"

namespace locksim::lua_detail {

namespace {

constexpr char kEsc = '%';
constexpr int kMaxCaptures = 32;  // LUA_MAXCAPTURES
constexpr ptrdiff_t kUnfinished = -1;
constexpr ptrdiff_t kPosition = -2;
constexpr const char* kSpecials = "^$*+?.([%-";
constexpr uint32_t kStepFlush = 4096;  // steps counted locally between charges

// The C locale's character classes, as Lua 5.1 (in Redis) sees them.
bool is_alpha(unsigned c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(unsigned c) { return c >= '0' && c <= '9'; }
bool is_lower(unsigned c) { return c >= 'a' && c <= 'z'; }
bool is_upper(unsigned c) { return c >= 'A' && c <= 'Z'; }
bool is_space(unsigned c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_cntrl(unsigned c) { return c < 32 || c == 127; }
bool is_alnum(unsigned c) { return is_alpha(c) || is_digit(c); }
bool is_punct(unsigned c) { return c > 32 && c < 127 && !is_alnum(c); }
bool is_xdigit(unsigned c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
unsigned to_lower(unsigned c) { return is_upper(c) ? c - 'A' + 'a' : c; }

// Whether c belongs to class %cl (a letter; any other character stands for itself).
bool class_has(unsigned c, unsigned cl) {
  bool in = false;
  switch (to_lower(cl)) {
    case 'a': in = is_alpha(c); break;
    case 'c': in = is_cntrl(c); break;
    case 'd': in = is_digit(c); break;
    case 'l': in = is_lower(c); break;
    case 'p': in = is_punct(c); break;
    case 's': in = is_space(c); break;
    case 'u': in = is_upper(c); break;
    case 'w': in = is_alnum(c); break;
    case 'x': in = is_xdigit(c); break;
    case 'z': in = c == 0; break;
    default: return cl == c;
  }
  return is_upper(cl) ? !in : in;
}

struct Capture {
  const char* init = nullptr;
  ptrdiff_t len = 0;
};

class Matcher {
 public:
  Matcher(lua_State* L, const char* src, size_t src_len, const char* pat)
      : L_(L), src_(src), src_end_(src + src_len), pat_end_(pat + std::strlen(pat)) {}
  // Charges the steps counted since the last charge (an error unwinding
  // the matcher leaves them: the run is stopping or failing anyway).
  void flush_steps() {
    if (steps_ == 0) return;
    const uint32_t n = steps_;
    steps_ = 0;
    charge_steps(L_, n);
  }
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  // The end of the first match of pattern p at s (captures in level_ and
  // captures_), or null.
  const char* match(const char* s, const char* p);

  int level() const { return level_; }
  const char* src() const { return src_; }
  const char* src_end() const { return src_end_; }
  // Pushes capture i (the whole match s..e when there is none and i == 0).
  void push_capture(int i, const char* s, const char* e) const;
  // Pushes every capture (the whole match when none and s is given); their count.
  int push_captures(const char* s, const char* e) const;

 private:
  enum class Kind : uint8_t { Optional, Longest, Shortest, Opened, Closed };
  struct Choice {
    Kind kind;
    int capture = 0;         // Closed: which one
    const char* s = nullptr;  // Optional: where to resume; Longest: where the run starts; Shortest: current end
    const char* p = nullptr;  // the item (Shortest, Longest)
    const char* next = nullptr;  // the pattern after the item
    size_t count = 0;        // Longest: the run's current length
  };

  void step(uint32_t n = 1) {
    steps_ += n;
    if (steps_ >= kStepFlush) flush_steps();
  }
  void push(const Choice& c) {
    if (stack_.size() >= static_cast<size_t>(kMaxPatternDepth)) {
      raise_abort(L_, "a string pattern nested deeper than " + std::to_string(kMaxPatternDepth) +
                          " levels (live Redis's own matcher overflows its C stack there and the server crashes)");
    }
    stack_.push_back(c);
  }
  const char* class_end(const char* p) const;
  bool bracket_has(unsigned c, const char* p, const char* ec) const;
  bool single_match(const char* s, const char* p, const char* ep) const;
  const char* match_balance(const char* s, const char* p);
  const char* match_back_reference(const char* s, unsigned l);
  int capture_to_close() const;
  // Backtracks to the latest choice point: false when there is none.
  bool resume(const char** s, const char** p);

  lua_State* L_;
  const char* src_;
  const char* src_end_;
  const char* pat_end_;  // the pattern ends at its first '\0', as Lua 5.1's
  int level_ = 0;
  Capture captures_[kMaxCaptures];
  std::vector<Choice> stack_;
  uint32_t steps_ = 0;
};

const char* Matcher::class_end(const char* p) const {
  const char c = *p++;
  if (c == kEsc) {
    if (p == pat_end_) luaL_error(L_, "malformed pattern (ends with '%%')");
    return p + 1;
  }
  if (c == '[') {
    if (*p == '^') ++p;
    do {  // the first character is part of the set, even a ']'
      if (p == pat_end_) luaL_error(L_, "malformed pattern (missing ']')");
      if (*(p++) == kEsc && p != pat_end_) ++p;
    } while (*p != ']');
    return p + 1;
  }
  return p;
}

// p at the '[', ec at the closing ']'.
bool Matcher::bracket_has(unsigned c, const char* p, const char* ec) const {
  bool in_set = true;
  if (*(p + 1) == '^') {
    in_set = false;
    ++p;
  }
  while (++p < ec) {
    if (*p == kEsc) {
      ++p;
      if (class_has(c, static_cast<unsigned char>(*p))) return in_set;
    } else if (*(p + 1) == '-' && p + 2 < ec) {
      p += 2;
      if (static_cast<unsigned char>(*(p - 2)) <= c && c <= static_cast<unsigned char>(*p)) return in_set;
    } else if (static_cast<unsigned char>(*p) == c) {
      return in_set;
    }
  }
  return !in_set;
}

bool Matcher::single_match(const char* s, const char* p, const char* ep) const {
  if (s >= src_end_) return false;
  const auto c = static_cast<unsigned char>(*s);
  switch (*p) {
    case '.': return true;
    case kEsc: return class_has(c, static_cast<unsigned char>(*(p + 1)));
    case '[': return bracket_has(c, p, ep - 1);
    default: return static_cast<unsigned char>(*p) == c;
  }
}

const char* Matcher::match_balance(const char* s, const char* p) {
  if (p >= pat_end_ || p + 1 >= pat_end_) luaL_error(L_, "unbalanced pattern");
  if (s >= src_end_ || *s != *p) return nullptr;
  const char open = *p;
  const char close = *(p + 1);
  int depth = 1;
  while (++s < src_end_) {
    step();
    if (*s == close) {
      if (--depth == 0) return s + 1;
    } else if (*s == open) {
      ++depth;
    }
  }
  return nullptr;
}

const char* Matcher::match_back_reference(const char* s, unsigned l) {
  const int i = static_cast<int>(l) - '1';
  if (i < 0 || i >= level_ || captures_[i].len == kUnfinished) luaL_error(L_, "invalid capture index");
  const auto len = static_cast<size_t>(captures_[i].len);
  step(static_cast<uint32_t>(len / 16 + 1));
  if (static_cast<size_t>(src_end_ - s) >= len && std::memcmp(captures_[i].init, s, len) == 0) return s + len;
  return nullptr;
}

int Matcher::capture_to_close() const {
  for (int l = level_ - 1; l >= 0; --l) {
    if (captures_[l].len == kUnfinished) return l;
  }
  return luaL_error(L_, "invalid pattern capture");
}

bool Matcher::resume(const char** s, const char** p) {
  while (!stack_.empty()) {
    step();
    Choice& top = stack_.back();
    switch (top.kind) {
      case Kind::Opened:
        --level_;
        stack_.pop_back();
        continue;
      case Kind::Closed:
        captures_[top.capture].len = kUnfinished;
        stack_.pop_back();
        continue;
      case Kind::Optional:
        *s = top.s;
        *p = top.next;
        stack_.pop_back();
        return true;
      case Kind::Longest:
        if (top.count == 0) {
          stack_.pop_back();
          continue;
        }
        --top.count;
        *s = top.s + top.count;
        *p = top.next;
        return true;
      case Kind::Shortest:
        if (!single_match(top.s, top.p, top.next - 1)) {
          stack_.pop_back();
          continue;
        }
        ++top.s;
        *s = top.s;
        *p = top.next;
        return true;
    }
  }
  return false;
}

const char* Matcher::match(const char* s, const char* p) {
  stack_.clear();
  level_ = 0;
  while (true) {
    step();
    bool failed = false;
    if (p == pat_end_) return s;  // the whole pattern matched
    switch (*p) {
      case '(': {
        if (level_ >= kMaxCaptures) luaL_error(L_, "too many captures");
        const bool position = *(p + 1) == ')';
        captures_[level_].init = s;
        captures_[level_].len = position ? kPosition : kUnfinished;
        ++level_;
        push(Choice{Kind::Opened});
        p += position ? 2 : 1;
        continue;
      }
      case ')': {
        const int l = capture_to_close();
        captures_[l].len = s - captures_[l].init;
        push(Choice{Kind::Closed, l});
        ++p;
        continue;
      }
      case '$':
        if (p + 1 == pat_end_) {
          if (s == src_end_) return s;
          failed = true;
          break;
        }
        goto item;
      case kEsc:
        if (*(p + 1) == 'b') {
          const char* e = match_balance(s, p + 2);
          if (e == nullptr) {
            failed = true;
            break;
          }
          s = e;
          p += 4;
          continue;
        }
        if (*(p + 1) == 'f') {
          p += 2;
          if (*p != '[') luaL_error(L_, "missing '[' after '%%f' in pattern");
          const char* ep = class_end(p);
          // Before the subject and at its end the character is '\0' (a Lua string ends with one).
          const auto previous = static_cast<unsigned char>(s == src_ ? '\0' : *(s - 1));
          const auto current = static_cast<unsigned char>(s < src_end_ ? *s : '\0');
          if (bracket_has(previous, p, ep - 1) || !bracket_has(current, p, ep - 1)) {
            failed = true;
            break;
          }
          p = ep;
          continue;
        }
        if (is_digit(static_cast<unsigned char>(*(p + 1)))) {
          const char* e = match_back_reference(s, static_cast<unsigned char>(*(p + 1)));
          if (e == nullptr) {
            failed = true;
            break;
          }
          s = e;
          p += 2;
          continue;
        }
        goto item;
      default:
      item: {
        const char* ep = class_end(p);
        const bool m = single_match(s, p, ep);
        const char suffix = ep == pat_end_ ? '\0' : *ep;
        switch (suffix) {
          case '?':
            if (m) {
              push(Choice{Kind::Optional, 0, s, p, ep + 1});
              ++s;
            }
            p = ep + 1;
            continue;
          case '+':
          case '*': {
            if (suffix == '+' && !m) {
              failed = true;
              break;
            }
            const char* start = suffix == '+' ? s + 1 : s;
            size_t count = 0;
            while (single_match(start + count, p, ep)) {
              ++count;
              step();
            }
            push(Choice{Kind::Longest, 0, start, p, ep + 1, count});
            s = start + count;
            p = ep + 1;
            continue;
          }
          case '-':
            push(Choice{Kind::Shortest, 0, s, p, ep + 1});
            p = ep + 1;
            continue;
          default:
            if (!m) {
              failed = true;
              break;
            }
            ++s;
            p = ep;
            continue;
        }
      }
    }
    if (failed && !resume(&s, &p)) return nullptr;
  }
}

void Matcher::push_capture(int i, const char* s, const char* e) const {
  if (i >= level_) {
    if (i != 0) luaL_error(L_, "invalid capture index");
    lua_pushlstring(L_, s, static_cast<size_t>(e - s));
    return;
  }
  const ptrdiff_t l = captures_[i].len;
  if (l == kUnfinished) luaL_error(L_, "unfinished capture");
  if (l == kPosition) {
    lua_pushinteger(L_, captures_[i].init - src_ + 1);
  } else {
    lua_pushlstring(L_, captures_[i].init, static_cast<size_t>(l));
  }
}

int Matcher::push_captures(const char* s, const char* e) const {
  const int n = (level_ == 0 && s != nullptr) ? 1 : level_;
  luaL_checkstack(L_, n, "too many captures");
  for (int i = 0; i < n; ++i) push_capture(i, s, e);
  return n;
}

// Lua 5.1's posrelat: a negative position counts from the end.
ptrdiff_t relative_position(ptrdiff_t pos, size_t len) {
  if (pos < 0) pos += static_cast<ptrdiff_t>(len) + 1;
  return pos >= 0 ? pos : 0;
}

// string.find / string.match (Lua 5.1's str_find_aux).
int find_or_match(lua_State* L, bool find) {
  size_t l1 = 0, l2 = 0;
  const char* s = luaL_checklstring(L, 1, &l1);
  const char* p = luaL_checklstring(L, 2, &l2);
  ptrdiff_t init = relative_position(luaL_optinteger(L, 3, 1), l1) - 1;
  if (init < 0) {
    init = 0;
  } else if (static_cast<size_t>(init) > l1) {
    init = static_cast<ptrdiff_t>(l1);
  }
  if (find && (lua_toboolean(L, 4) || std::strpbrk(p, kSpecials) == nullptr)) {
    // A plain search: linear (glibc's memmem), charged by the bytes it may read.
    charge_steps(L, (l1 - static_cast<size_t>(init)) / 16 + l2 / 16 + 1);
    const void* at = l2 == 0 ? s + init : memmem(s + init, l1 - static_cast<size_t>(init), p, l2);
    if (at != nullptr) {
      const auto* hit = static_cast<const char*>(at);
      lua_pushinteger(L, hit - s + 1);
      lua_pushinteger(L, static_cast<lua_Integer>(hit - s + static_cast<ptrdiff_t>(l2)));
      return 2;
    }
    lua_pushnil(L);
    return 1;
  }
  const bool anchor = *p == '^';
  if (anchor) ++p;
  Matcher m(L, s, l1, p);
  const char* s1 = s + init;
  do {
    const char* e = m.match(s1, p);
    if (e != nullptr) {
      m.flush_steps();
      if (find) {
        lua_pushinteger(L, s1 - s + 1);
        lua_pushinteger(L, e - s);
        return m.push_captures(nullptr, nullptr) + 2;
      }
      return m.push_captures(s1, e);
    }
  } while (s1++ < m.src_end() && !anchor);
  m.flush_steps();
  lua_pushnil(L);
  return 1;
}

int str_find(lua_State* L) { return find_or_match(L, true); }
int str_match(lua_State* L) { return find_or_match(L, false); }

// The iterator gmatch returns: upvalues subject, pattern, next offset.
int gmatch_next(lua_State* L) {
  size_t ls = 0;
  const char* s = lua_tolstring(L, lua_upvalueindex(1), &ls);
  const char* p = lua_tostring(L, lua_upvalueindex(2));
  Matcher m(L, s, ls, p);
  for (const char* src = s + static_cast<size_t>(lua_tointeger(L, lua_upvalueindex(3))); src <= m.src_end(); ++src) {
    const char* e = m.match(src, p);
    if (e != nullptr) {
      m.flush_steps();
      lua_Integer next = e - s;
      if (e == src) ++next;  // an empty match: move on by one
      lua_pushinteger(L, next);
      lua_replace(L, lua_upvalueindex(3));
      return m.push_captures(src, e);
    }
  }
  m.flush_steps();
  return 0;
}

int str_gmatch(lua_State* L) {
  luaL_checkstring(L, 1);
  luaL_checkstring(L, 2);
  lua_settop(L, 2);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, gmatch_next, 3);
  return 1;
}

// A string replacement: '%0' the match, '%1'..'%9' a capture, '%x' the
// character x (a '%' at the end adds the '\0' that ends the Lua string).
void add_replacement_text(const Matcher& m, luaL_Buffer* b, const char* s, const char* e) {
  lua_State* L = b->L;
  size_t l = 0;
  const char* news = lua_tolstring(L, 3, &l);
  for (size_t i = 0; i < l; ++i) {
    if (news[i] != kEsc) {
      luaL_addchar(b, news[i]);
      continue;
    }
    ++i;
    const auto c = static_cast<unsigned char>(news[i]);  // news[l] is the '\0'
    if (!is_digit(c)) {
      luaL_addchar(b, static_cast<char>(c));
    } else if (c == '0') {
      luaL_addlstring(b, s, static_cast<size_t>(e - s));
    } else {
      m.push_capture(c - '1', s, e);
      luaL_addvalue(b);
    }
  }
}

void add_replacement(const Matcher& m, luaL_Buffer* b, const char* s, const char* e) {
  lua_State* L = b->L;
  switch (lua_type(L, 3)) {
    case LUA_TNUMBER:
    case LUA_TSTRING:
      add_replacement_text(m, b, s, e);
      return;
    case LUA_TFUNCTION: {
      lua_pushvalue(L, 3);
      const int n = m.push_captures(s, e);
      lua_call(L, n, 1);
      break;
    }
    case LUA_TTABLE:
      m.push_capture(0, s, e);
      lua_gettable(L, 3);
      break;
    default:
      break;
  }
  if (!lua_toboolean(L, -1)) {  // nil or false: the match stays as it was
    lua_pop(L, 1);
    lua_pushlstring(L, s, static_cast<size_t>(e - s));
  } else if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  }
  luaL_addvalue(b);
}

int str_gsub(lua_State* L) {
  size_t srcl = 0;
  const char* src = luaL_checklstring(L, 1, &srcl);
  const char* p = luaL_checkstring(L, 2);
  const int tr = lua_type(L, 3);
  const int max_s = luaL_optint(L, 4, static_cast<int>(srcl + 1));
  const bool anchor = *p == '^';
  if (anchor) ++p;
  luaL_argcheck(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                "string/function/table expected");
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  Matcher m(L, src, srcl, p);
  int n = 0;
  while (n < max_s) {
    const char* e = m.match(src, p);
    if (e != nullptr) {
      ++n;
      add_replacement(m, &b, src, e);
    }
    if (e != nullptr && e > src) {
      src = e;
    } else if (src < m.src_end()) {
      luaL_addchar(&b, *src++);
    } else {
      break;
    }
    if (anchor) break;
  }
  m.flush_steps();
  luaL_addlstring(&b, src, static_cast<size_t>(m.src_end() - src));
  luaL_pushresult(&b);
  lua_pushinteger(L, n);
  return 2;
}

}  // namespace

void install_pattern_functions(lua_State* L) {
  lua_pushcfunction(L, str_find);
  lua_setfield(L, -2, "find");
  lua_pushcfunction(L, str_match);
  lua_setfield(L, -2, "match");
  lua_pushcfunction(L, str_gmatch);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "gmatch");
  lua_setfield(L, -2, "gfind");  // the same function, as in Lua 5.1
  lua_pushcfunction(L, str_gsub);
  lua_setfield(L, -2, "gsub");
}

}  // namespace locksim::lua_detail
