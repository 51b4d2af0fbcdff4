// The sandbox of the lua backend (redis/lua_scripting.h) against live
// redis-server 7.0, class by class of the hostile-pack corpus
// (tests/hostile/): wherever Redis answers, the lua backend answers the
// same (replies, error texts, keys). Where Redis crashes or hangs the lua
// backend stops the run instead; those cases are the corpus's, not these.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "tests/sim/lua_live_oracle.h"

namespace locksim {
namespace {

using testing_lua::expect_same;
using testing_lua::LuaLiveOracle;

class LuaSandboxLive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { oracle_ = new LuaLiveOracle(); }
  static void TearDownTestSuite() {
    delete oracle_;
    oracle_ = nullptr;
  }
  static void same(const std::vector<std::string>& scripts, const std::vector<std::string>& argv = {}) {
    for (const std::string& s : scripts) expect_same(oracle_->run({}, s, {}, argv), s);
  }
  static LuaLiveOracle* oracle_;
};

LuaLiveOracle* LuaSandboxLive::oracle_ = nullptr;

// ---- binary chunks ----------------------------------------------------------

TEST_F(LuaSandboxLive, BinaryChunksAreRefusedWhereverCodeLoads) {
  same({
      "local f, e = loadstring(string.dump(function() return 5 end)); return {tostring(f), e}",
      "return loadstring(string.dump(function() return 5 end))()",
      "local f, e = loadstring(string.dump(function() return 5 end), 'named'); return {tostring(f), e}",
      "local f, e = load(string.dump(function() return 5 end)); return {tostring(f), e}",
      "local s = string.dump(function() return 5 end) local done = false "
      "local f, e = load(function() if done then return nil end done = true return s end) return {tostring(f), e}",
      "local s = string.dump(function() return 5 end) local i = 0 "
      "local f, e = load(function() i = i + 1 if i > #s then return nil end return s:sub(i, i) end) "
      "return {tostring(f), e}",
      "local f, e = load(function() return nil end, '=x'); return type(f)",
      "local f, e = loadstring('\\27Lua'); return {tostring(f), e}",
      "local f, e = loadstring('\\27'); return {tostring(f), e}",
      "local f, e = loadstring('\\27\\nreturn 1'); return {tostring(f), e}",
      "return type(string.dump(function() end))",
      "local f, e = load(function() return {} end); return {tostring(f), e}",
      "local n = 0 local f = load(function() n = n + 1 if n == 1 then return 'return ' elseif n == 2 then return "
      "'42' end end) return f()",
      "return loadstring('return 1', 2)()",
      "local f, e = loadstring('return +'); return e",
      "return loadstring()",
      "return load('return 1')",
  });
  // A script whose own text is a binary chunk is refused at load, as on Redis.
  expect_same(oracle_->run({}, "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"), "a binary script");
}

// ---- sizes and counts -------------------------------------------------------

TEST_F(LuaSandboxLive, UnpackIsBoundedAsOnRedis) {
  same({"return unpack({}, 0, 2147483647)", "return unpack({}, -2147483648, 2147483647)",
        "return select('#', unpack({}, 1, 7997))", "return select('#', unpack({}, 1, 7998))",
        "return {unpack({1, 2, 3}, 2)}", "return {unpack({1, 2, 3}, -1, 1)}", "return {unpack({1, 2, 3}, 3, 1)}",
        "return #{unpack({}, 1, 1e10)}", "return {unpack({1, 2}, 1e10, -1e10)}", "return unpack()",
        "return unpack({}, 'x')", "return {unpack({1, 2, 3}, 2, nil)}"});
}

TEST_F(LuaSandboxLive, StringFunctionsTakingSizes) {
  same({"return #string.rep('x', 0)", "return #string.rep('x', -5)", "return #string.rep('', 1e6)",
        "return string.rep('ab', 3.7)", "return string.rep('x', 1e30)", "return #string.rep('x', 2^31)",
        "return #string.rep('x', 2^32 + 3)", "return string.rep()", "return string.rep('x')",
        "return string.rep(5, 2)", "return #string.rep('abc', 100000)", "return string.rep('x', '3')",
        "return string.format('%099d', 1)", "return string.format('%100d', 1)", "return string.format('%.99f', 1)",
        "return string.format('%.100f', 1)", "return #string.format('%099.99f', 1e308)",
        "return string.format('%-+ #0-d', 5)", "return {string.byte('abc', -1e10, 1e10)}",
        "return select('#', string.byte(string.rep('a', 10000), 1, -1))", "return string.char(256)",
        "return select(-1, 'a', 'b')", "return select(-5, 'a', 'b')", "return select(2^31, 'a')",
        "return string.sub('hello', -1e10, 1e10)", "return #string.format('%s', string.rep('x', 100000))"});
}

TEST_F(LuaSandboxLive, TableFunctionsTakingPositionsAndCounts) {
  same({"local t = {} table.insert(t, 1e9, 'x') return {#t, t[1e9]}",
        "local t = {1} table.insert(t, -5, 'x') return {#t, t[-5], t[1], t[2]}",
        "local t = {1} table.insert(t, -100000, 'x') return {#t, t[-100000], t[2]}",
        "local t = {1, 2, 3} table.insert(t, 2, 'x') return t", "local t = {1, 2, 3} table.insert(t, 2, 'x', 'y')",
        "local t = {1, 2, 3} table.insert(t)", "table.insert(nil, 1)", "local t = {1, 2, 3} table.insert(t, 'a', 1)",
        "local t = {1, 2, 3} return {table.remove(t, 5), #t}", "local t = {1, 2, 3} return {table.remove(t, -5), #t}",
        "local t = {1, 2, 3} return {table.remove(t, 0), #t}", "local t = {} return table.remove(t)",
        "local t = {1, 2, 3} return {table.remove(t, 1), t[1], t[2], t[3]}",
        "local t = {1, 2, 3} return {table.remove(t), #t}", "return table.remove({1}, 'x')",
        "return table.concat({1, 2, 3}, ', ')", "return table.concat({1, 2, 3}, ', ', 2, 3)",
        "return table.concat({1, 2, 3}, ', ', 3, 2)", "return table.concat({1, {}, 3})",
        "return table.concat({1, 2}, '', 1, 1e9)", "return table.concat({}, 'x', -5, -3)",
        "return table.concat({1, 2}, {})", "return table.maxn({1, 2, [10] = 1, [1.5] = 1, x = 1})",
        "return table.maxn({[-1] = 1})", "local out = {} table.foreachi({'a', 'b'}, function(i, v) out[#out + 1] = i "
        ".. v end) return out",
        "return table.foreachi({'a', 'b'}, function(i, v) if i == 2 then return v end end)",
        "local n = 0 table.foreach({a = 1, b = 2}, function(k, v) n = n + v end) return n",
        "return table.foreach({a = 1}, function(k, v) return k end)", "return table.foreach({}, 5)",
        "return table.getn({1, 2})", "return table.setn({}, 1)"});
}

TEST_F(LuaSandboxLive, SortMakesRedisComparisonsInRedisOrder) {
  // Ties under the comparator show the exact order of swaps.
  std::mt19937 rng(55);
  for (int round = 0; round < 30; ++round) {
    const int n = 1 + static_cast<int>(rng() % 60);
    std::string keys;
    for (int i = 0; i < n; ++i) keys += (i ? "," : "") + std::to_string(rng() % 5);
    same({"local t = {} for i, k in ipairs({" + keys + "}) do t[i] = {k = k, i = i} end "
          "table.sort(t, function(a, b) return a.k < b.k end) "
          "local out = {} for i, v in ipairs(t) do out[i] = v.i end return out",
          "local t = {" + keys + "} table.sort(t) return t",
          "local t = {" + keys + "} table.sort(t, function(a, b) return a > b end) return t",
          "local calls = {} local t = {" + keys + "} table.sort(t, function(a, b) calls[#calls + 1] = a .. b "
          "return a < b end) return calls"});
  }
  same({"local t = {3, 1, 2} table.sort(t, function(a, b) return true end) return t",
        "local t = {} for i = 1, 20 do t[i] = i % 3 end table.sort(t, function(a, b) return true end) return t",
        "local t = {1, 'x', 2} table.sort(t) return t", "table.sort({1, 2}, 5)", "table.sort(5)",
        "local t = {5, 3}\ntable.sort(t, function(a, b)\n  error('in comparator')\nend)",
        "local t = {{}, {}} table.sort(t)", "local t = {3, 2, 1} table.sort(t, nil) return t",
        "local t = {'b', 'a', 'c'} table.sort(t) return t"});
}

// ---- patterns ---------------------------------------------------------------

TEST_F(LuaSandboxLive, PatternFunctionsAnswerAsLua51) {
  same({"return {string.find('hello world', 'o w')}", "return {string.find('hello', 'l+')}",
        "return {string.find('hello', 'xyz')}", "return {string.find('a.b', '.', 1, true)}",
        "return {string.find('abc', 'b', -1)}", "return {string.find('abc', 'b', -10)}",
        "return {string.find('abc', '', 10)}", "return {string.find('abc', '', 4)}",
        "return {string.find('a\\0b', 'a\\0b')}", "return {string.match('a\\0b', 'a\\0b')}",
        "return {string.match('key=value', '(%w+)=(%w+)')}", "return {string.match('  x  ', '^%s*(.-)%s*$')}",
        "return {string.match('hello', '()ll()')}", "return {string.match('f(a(b)c)d', '%b()')}",
        "return {string.match('THE (quick) fox', '%f[%a]%a+')}", "return {string.match('abab', '(ab)%1')}",
        "return {string.gsub('hello world', 'o', '0')}", "return {string.gsub('hello', '', '-')}",
        "return {string.gsub('hello', 'l', 'L%')}", "return {string.gsub('abc', '%w', '%0%0')}",
        "return {string.gsub('abc', '(%w)', '%1-')}", "return {string.gsub('abc', '%w', {a = 1, b = true})}",
        "return {string.gsub('abc', '%w', function(c) if c == 'b' then return nil end return c:upper() end)}",
        "return {string.gsub('abc', '%w', 'x', 2)}", "return {string.gsub('abc', '^a', 'x')}",
        "return {string.gsub('abc', 'x*', '-')}", "return string.gsub('abc', '%w', false)",
        "return string.gsub('abc', '%w', function() return {} end)", "return string.gsub('abc', '(%w)', '%2')",
        "local out = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do out[#out + 1] = k .. v end return out",
        "local out = {} for w in string.gmatch('one two', '%a+') do out[#out + 1] = w end return out",
        "local out = {} for w in string.gmatch('abc', '') do out[#out + 1] = w end return #out",
        "local out = {} for w in string.gmatch('^a^a', '^a') do out[#out + 1] = w end return out",
        "return string.gfind == string.gmatch", "return string.find('a', '%')", "return string.find('a', '[a')",
        "return string.find('a', '(a')", "return string.find('a', 'a)')", "return string.find('a', '%1')",
        "return string.find('a', '%ba')", "return string.find('a', '%f')",
        "return string.find('a', string.rep('(a)', 33))", "return string.match('a', '(a')",
        "return string.find('abc', '[]')", "return {string.find('a]b', '[]]')}", "return {string.find('a-b', '[a-]')}",
        "return {string.find('a^b', '[%^]')}", "return {string.find('x', '[^%a]')}", "return ('x'):rep(3):find('xx')",
        "return string.find()", "return string.gsub('x', 'x')", "return string.gmatch('x')"});
}

// Random patterns from Lua 5.1's whole language on short subjects: every
// function's answer (or error) must be Redis's.
TEST_F(LuaSandboxLive, RandomPatternsMatchLikeRedis) {
  const std::vector<std::string> items = {"a", "b", "c", ".", "%a", "%d", "%s", "%w", "%p", "%A", "[ab]", "[^a]",
                                          "[a-c]", "[%d_]", "%b()", "%f[%w]", "%f[%W]", "(", ")", "()", "%1", "%2",
                                          "x", " ", "%(", "$", "^", "%z", "[]]", "%.", "-"};
  const std::vector<std::string> suffixes = {"", "", "", "*", "+", "-", "?"};
  const std::string alphabet = "abc() 1x_.";
  std::mt19937 rng(5150);
  const std::string script = R"lua(
local out = {}
local function show(ok, ...)
  local parts = {tostring(ok)}
  for i = 1, select('#', ...) do parts[#parts + 1] = tostring((select(i, ...))) end
  return table.concat(parts, ',')
end
for i = 1, #ARGV, 2 do
  local p, s = ARGV[i], ARGV[i + 1]
  out[#out + 1] = show(pcall(string.find, s, p))
  out[#out + 1] = show(pcall(string.match, s, p))
  out[#out + 1] = show(pcall(string.gsub, s, p, '<%0>'))
  out[#out + 1] = show(pcall(function()
    local got = {}
    for a, b in string.gmatch(s, p) do got[#got + 1] = tostring(a) .. '/' .. tostring(b) end
    return table.concat(got, ';')
  end))
end
return out
)lua";
  for (int batch = 0; batch < 8; ++batch) {
    std::vector<std::string> argv;
    for (int k = 0; k < 150; ++k) {
      std::string p = rng() % 5 == 0 ? "^" : "";
      const int n = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) p += items[rng() % items.size()] + suffixes[rng() % suffixes.size()];
      std::string s;
      const int len = static_cast<int>(rng() % 12);
      for (int i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
      argv.push_back(p);
      argv.push_back(s);
    }
    expect_same(oracle_->run({}, script, {}, argv), "pattern batch " + std::to_string(batch));
  }
}

// ---- the budget and handlers -------------------------------------------------

TEST_F(LuaSandboxLive, ErrorHandlersAnswerAsOnRedis) {
  same({"return {xpcall(function() error('a') end, function(e) error('b') end)}",
        "return {xpcall(function() error('a') end, function(e) return 'handled ' .. e end)}",
        "return {xpcall(function() error('a') end, 5)}", "return {xpcall(function() return 1, 2 end, print)}",
        "return {xpcall(function() local x = nil + 1 end, function(e) return debug end)}",
        "return {xpcall(error, function(e) return tostring(e) end)}",
        "return {xpcall(function() error({1}) end, function(e) return type(e) end)}", "return {xpcall()}",
        "return {xpcall(function() end)}", "return {xpcall(function() return 'ok' end, function(e) return e end)}",
        "return {xpcall(function() error('x', 2) end, function(e) return e end)}",
        "return {xpcall(function() redis.call('nosuch') end, function(e) return type(e) end)}",
        "local n = 0 local ok, e = xpcall(function() error('a') end, function(e) n = n + 1 return e end) return {n, e}"});
}

// ---- replies -----------------------------------------------------------------

// A reply's shape in RESP2 read from a socket (hiredis refuses replies
// nested deeper than 7): how many arrays deep it goes, each of one
// element, and what ends it ("*0" an empty array, else the line there).
std::string nested_reply_shape(int port, const std::string& script) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return "no connection";
  const std::string request = "*3\r\n$4\r\nEVAL\r\n$" + std::to_string(script.size()) + "\r\n" + script +
                              "\r\n$1\r\n0\r\n";
  (void)!write(fd, request.data(), request.size());
  std::string in;
  int depth = 0;
  std::string end;
  while (end.empty()) {
    const size_t nl = in.find("\r\n");
    if (nl == std::string::npos) {
      char buf[65536];
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) {
        end = "connection closed";
        break;
      }
      in.append(buf, static_cast<size_t>(n));
      continue;
    }
    const std::string line = in.substr(0, nl);
    in.erase(0, nl + 2);
    if (line == "*1") {
      ++depth;
    } else {
      end = line;
    }
  }
  close(fd);
  return std::to_string(depth) + " deep, then " + end;
}

// The same shape of the lua backend's reply.
std::string nested_reply_shape(const Reply& r) {
  int depth = 0;
  const Reply* at = &r;
  while (at->kind == Reply::Kind::Array && at->elements.size() == 1) {
    ++depth;
    at = &at->elements[0];
  }
  if (at->kind == Reply::Kind::Array && at->elements.empty()) return std::to_string(depth) + " deep, then *0";
  return std::to_string(depth) + " deep, then " + (at->kind == Reply::Kind::Error ? "-" + at->text : at->to_string());
}

TEST_F(LuaSandboxLive, DeepRepliesAndDoubles) {
  for (int depth : {100, 7994, 7995, 8000, 100000}) {
    const std::string script =
        "local t = {} local c = t for i = 1, " + std::to_string(depth) + " do c[1] = {} c = c[1] end return t";
    Store store;
    LuaScripting lua;
    CommandContext ctx;
    ctx.store = &store;
    EXPECT_EQ(nested_reply_shape(lua.run(lua.load(script), {}, {}, ctx)), nested_reply_shape(oracle_->port(), script))
        << "depth " << depth;
  }
  same({"return {double = 0/0}", "return {double = -(0/0)}", "return {double = 1/0}", "return {double = -1/0}",
        "return {double = 0.1}", "return {double = -0.0}"});
}

}  // namespace
}  // namespace locksim
