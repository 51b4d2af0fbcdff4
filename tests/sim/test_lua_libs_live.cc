// Redis 7.0's script libraries (cjson, bit, struct, cmsgpack) on the lua
// backend (redis/lua_libs.cc) against live redis-server: encodings, error
// texts and limits, byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "impl/script_pack.h"
#include "sim/diff_sequence.h"
#include "sim/live_backend.h"
#include "sim/lua_backend.h"
#include "tests/cli_runner.h"
#include "tests/sim/lua_live_oracle.h"
#include "tools/server/redis_server.h"

namespace locksim {
namespace {

using testing_lua::expect_same;
using testing_lua::LuaLiveOracle;

class LuaLibsLive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { oracle_ = new LuaLiveOracle(); }
  static void TearDownTestSuite() {
    delete oracle_;
    oracle_ = nullptr;
  }
  static void same(const std::vector<std::string>& scripts) {
    for (const std::string& s : scripts) expect_same(oracle_->run({}, s), s);
  }
  static LuaLiveOracle* oracle_;
};

LuaLiveOracle* LuaLibsLive::oracle_ = nullptr;

TEST_F(LuaLibsLive, TheLibrariesAreThere) {
  same({"local t = {} for k, v in pairs(cjson) do t[#t + 1] = k .. ':' .. type(v) end table.sort(t) return t",
        "local t = {} for k, v in pairs(cmsgpack) do t[#t + 1] = k .. ':' .. type(v) end table.sort(t) return t",
        "local t = {} for k, v in pairs(struct) do t[#t + 1] = k .. ':' .. type(v) end table.sort(t) return t",
        "local t = {} for k, v in pairs(bit) do t[#t + 1] = k .. ':' .. type(v) end table.sort(t) return t",
        "return {cjson._VERSION, cjson._NAME, cmsgpack._VERSION, cmsgpack._NAME, cmsgpack._COPYRIGHT, "
        "cmsgpack._DESCRIPTION}",
        "cjson.x = 1", "bit.band = nil", "struct.pack = nil", "cmsgpack.y = 2", "return getmetatable(cjson)",
        "return type(cjson.null)", "return cjson.null == cjson.decode('null')"});
}

TEST_F(LuaLibsLive, Cjson) {
  same({"return cjson.encode({a = '/', b = '\\127', c = 1/3, d = {1, 2, 3}, e = 1e20, f = -0.0, g = 123456789012345})",
        "return cjson.encode({})", "return cjson.encode({{}, {{}}})", "return cjson.encode('a\\0b\\n\\t\"\\\\')",
        "return cjson.encode(string.char(1, 31, 127, 128, 255))", "return cjson.encode(0.1)",
        "return cjson.encode(1e300 * 10)", "return cjson.encode(0/0)", "return cjson.encode(-1e-300)",
        "return cjson.encode(2^53)", "return cjson.encode({[1] = 1, [3] = 3})", "return cjson.encode({[1] = 1, [30] = 3})",
        "return cjson.encode({[1] = 1, x = 2})", "return cjson.encode({[1.5] = 1})", "return cjson.encode({[true] = 1})",
        "return cjson.encode(function() end)", "return cjson.encode()", "return cjson.encode(1, 2)",
        "return cjson.encode(cjson.null)", "return cjson.encode({cjson.null, true, false})",
        "local t = {} local c = t for i = 1, 1001 do c[1] = {} c = c[1] end return cjson.encode(t)",
        "local t = {} local c = t for i = 1, 1000 do c[1] = {} c = c[1] end return #cjson.encode(t)",
        "local t = {} t[1] = t return cjson.encode(t)",
        "return cjson.decode('[1, 2.5, \"x\", true, false, null, {\"a\": [ ]}]')[7].a[1] == nil",
        "local t = cjson.decode('{\"a\": 1, \"b\": [1, 2]}') return {t.a, t.b[2]}",
        "return cjson.decode('\"\\\\u00e9\\\\ud83d\\\\ude00\"')", "return cjson.decode('1e400')",
        "return cjson.decode('[1,]')", "return cjson.decode('{\"a\" 1}')", "return cjson.decode('')",
        "return cjson.decode('nan')", "return cjson.decode('0x10')", "return cjson.decode('  7  ')",
        "return cjson.decode(5)", "return cjson.decode({})", "return cjson.decode()",
        "return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))",
        "return #cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000))",
        "return cjson.decode('\"\\\\x\"')", "return cjson.decode('[1] x')", "return cjson.decode('\"abc')",
        "return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision()}",
        "return {cjson.encode_sparse_array()}", "return cjson.encode_keep_buffer()",
        "return {cjson.encode_invalid_numbers(), cjson.decode_invalid_numbers()}",
        "return cjson.encode_max_depth(0)", "return cjson.encode_number_precision(15)",
        "return cjson.encode_sparse_array('x')", "local c = cjson.new() return c.encode({1, 'a'})",
        "local c = cjson.new() c.encode_number_precision(3) return {c.encode(1/3), cjson.encode(1/3)}",
        "local c = cjson.new() c.encode_sparse_array(true) return c.encode({[1] = 1, [30] = 3})",
        "local c = cjson.new() c.encode_invalid_numbers(true) return c.encode({0/0, 1/0})",
        "local c = cjson.new() c.decode_invalid_numbers(false) return c.decode('nan')",
        "local c = cjson.new() c.encode_max_depth(2) return c.encode({{{1}}})",
        "return cjson.encode(string.rep('x', 100000)):len()"});
}

TEST_F(LuaLibsLive, Bit) {
  same({"return {bit.band(0xff, 0x0f), bit.bor(1, 2, 4), bit.bxor(5, 3), bit.bnot(0), bit.lshift(1, 31)}",
        "return {bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 8), bit.ror(0x12345678, 8)}",
        "return {bit.tobit(2^32 + 5), bit.tobit(-1), bit.bswap(0x12345678), bit.tohex(255), bit.tohex(-1, -4)}",
        "return {bit.tohex(255, 2), bit.tohex(1, 100), bit.band(2^53, 1), bit.band(1.5, 1)}",
        "return bit.band()", "return bit.band('x')", "return bit.band('3', 1)", "return bit.tohex(1, 2^31)",
        "return {bit.lshift(1, 33), bit.band(0/0, 1), bit.bor(1e300, 0)}"});
}

TEST_F(LuaLibsLive, Struct) {
  same({"return struct.pack('>I4', 1)", "return struct.pack('<i2h', -2, 3)",
        "return struct.pack('bBhHlLiI', -1, 255, -1, 65535, -1, 1, -1, 1)", "return struct.pack('!4 b i4', 1, 2)",
        "return struct.pack('s', 'ab')", "return struct.pack('c3', 'abcdef')", "return struct.pack('c0', 'ab')",
        "return struct.pack('fd', 1.5, 2.5)", "return struct.pack('x>h', 1)", "return struct.pack('T', 7)",
        "return struct.pack('i17', 1)", "return struct.pack('>i17', -2)", "return struct.pack('i33', 1)",
        "return struct.pack('!16i8', 1)", "return struct.pack('!8bd', 1, 2)", "return struct.pack('!bd', 1, 2)",
        "return struct.pack('!2bd', 1, 2)", "return struct.pack('!3i', 1)", "return struct.pack('i3', 1)",
        "return struct.pack('I8', 2^63)", "return struct.pack('I8', 2^64)", "return struct.pack('i8', -2^63)",
        "return struct.pack('i8', -2^64)", "return struct.pack('I8', 0/0)", "return struct.pack('i4', 2^40 + 5)",
        "return struct.pack('b', 300)", "return struct.pack('B', -1)", "return struct.pack('i4', 1.7)",
        "return struct.pack('i4', -1.7)", "return struct.pack('c2', 'a')", "return struct.pack('c', 'ab')",
        "return struct.pack('s', 'a\\0b')", "return struct.pack('', 1)", "return struct.pack('Q')",
        "return struct.pack('i0', 1)", "return struct.pack('c99999999999', 'a')", "return struct.pack('i', 'x')",
        "return struct.pack('i')", "return struct.pack('=i', 1)", "return struct.pack('<>!i', 1)",
        "return struct.size('>I4bd')", "return struct.size('s')", "return struct.size('i17c5!4d')",
        "return struct.size('bc0')", "return struct.size('Q')", "return struct.size('x!8d')",
        "return {struct.unpack('>I4', string.char(0, 0, 1, 0))}", "return {struct.unpack('bc0', string.char(2) .. 'xy')}",
        "return {struct.unpack('s', 'ab\\0cd')}", "return struct.unpack('>I4', 'ab')",
        "return {struct.unpack('i2', struct.pack('i2', 70000))}",
        "return tostring(struct.unpack('>d', struct.pack('>d', 0.1)))", "return {struct.unpack('i17', struct.pack('i17', -5))}",
        "return {struct.unpack('i17', struct.pack('i17', 200))}", "return {struct.unpack('i12', string.rep('\\255', 12))}",
        "return {struct.unpack('I12', string.rep('\\255', 12))}", "return {struct.unpack('>I3', 'abc')}",
        "return {struct.unpack('c0', 'abc')}", "return {struct.unpack('bc0', '\\5abc')}", "return {struct.unpack('s', 'abc')}",
        "return {struct.unpack('b', 'a', 2)}", "return {struct.unpack('b', 'a', 0)}", "return {struct.unpack('b', 'a', -1)}",
        "return {struct.unpack('B', 'ab', 2)}", "return {struct.unpack('B', 'ab', 3)}", "return {struct.unpack('B', 'ab', 1e10)}",
        "return tostring(struct.unpack('I8', string.rep('\\255', 8)))",
        "return tostring(struct.unpack('i8', string.rep('\\255', 7) .. '\\127'))",
        "return {struct.unpack('f', struct.pack('f', 0.1))}", "return {pcall(struct.pack, 'i4')}",
        "return {struct.unpack('!4bi4', struct.pack('!4bi4', 1, 2))}", "return {struct.unpack('xxb', 'abc')}",
        "return {struct.unpack('i0', 'abc')}", "return {struct.unpack('>h<h', '\\1\\2\\1\\2')}",
        "return select('#', struct.unpack(string.rep('b', 100), string.rep('a', 100)))",
        "return struct.unpack(string.rep('b', 9000), string.rep('a', 9000))", "return struct.unpack('q', 'a')",
        "return struct.unpack('d', 'abcdefg')", "return struct.unpack()", "return struct.unpack('b')"});
}

TEST_F(LuaLibsLive, Cmsgpack) {
  same({"return cmsgpack.pack(1, -1, 127, 128, 255, 256, 65535, 65536, 2^32, -32, -33, -128, -129, -32768, -32769, "
        "-2^31, -2^31-1)",
        "return cmsgpack.pack(1.5, 0.1, 1/0, 0/0, 2^63, -2^63, 2^64, -0.0, 1e300, 2^53 + 1)",
        "return cmsgpack.pack('a', string.rep('x', 31), string.rep('x', 32), string.rep('x', 255), "
        "string.rep('x', 256), string.rep('x', 65536), true, false, nil)",
        "return cmsgpack.pack({}, {1, 2}, {a = 1}, {1, nil, 3}, {[2] = 1}, {[1.5] = 1}, {[-1] = 1})",
        "local t = {} for i = 1, 16 do t[i] = i end return cmsgpack.pack(t)",
        "local t = {} for i = 1, 70000 do t[i] = i % 3 end return cmsgpack.pack(t)",
        "local t = {} for i = 1, 20 do t['k' .. i] = i end return #cmsgpack.pack(t)",
        "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end return cmsgpack.pack(t)",
        "local t = {} t[1] = t return cmsgpack.pack(t)", "return cmsgpack.pack(function() end, cjson.null)",
        "return cmsgpack.pack()", "return {cmsgpack.unpack(cmsgpack.pack(1, 'a', {1, 2}, {x = 1}))}",
        "local t = cmsgpack.unpack(cmsgpack.pack({x = {y = 'z'}, [1] = 2})) return {t.x.y, t[1]}",
        "return {cmsgpack.unpack(cmsgpack.pack(1.5, 0.1, -2^63, 2^64, 1/0))}",
        "return select('#', cmsgpack.unpack(string.rep('\\1', 100000)))", "return cmsgpack.unpack('\\205')",
        "return cmsgpack.unpack('\\193')", "return cmsgpack.unpack('\\212\\1\\1')", "return cmsgpack.unpack('\\196\\2ab')",
        "return {cmsgpack.unpack('\\130\\192\\1')}", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 0)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 1)}", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2))}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2, 1)}", "return {cmsgpack.unpack_one('\\1', 5)}",
        "return {cmsgpack.unpack_one('\\1\\2\\3', -1)}", "return {cmsgpack.unpack('')}",
        "return cmsgpack.unpack(string.rep('\\145', 10000) .. '\\1')", "return cmsgpack.unpack(5)",
        "return cmsgpack.unpack()", "return cmsgpack.unpack_limit('\\1')",
        "return {cmsgpack.unpack('\\217\\3abc\\218\\0\\1x\\219\\0\\0\\0\\1y')}",
        "return {cmsgpack.unpack('\\220\\0\\2\\1\\2\\222\\0\\1\\1\\2')}", "return cmsgpack.unpack('\\221\\255\\255\\255\\255')",
        "return {cmsgpack.unpack('\\202\\63\\192\\0\\0\\203\\63\\185\\153\\153\\153\\153\\153\\154')}",
        "return {cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255\\211\\128\\0\\0\\0\\0\\0\\0\\0')}",
        "return {cmsgpack.unpack('\\208\\128\\209\\128\\0\\210\\128\\0\\0\\0\\204\\255\\205\\255\\255\\206\\255\\255\\255\\255')}"});
}

// A pack's script using every library gives the same replies on both.
TEST_F(LuaLibsLive, AScriptUsingEveryLibrary) {
  const std::string script =
      "local doc = cjson.decode(ARGV[1]) "
      "redis.call('set', KEYS[1], cjson.encode({owner = doc.owner, n = bit.band(doc.n, 0xff)})) "
      "redis.call('set', KEYS[2], struct.pack('>I4d', doc.n, doc.lease)) "
      "redis.call('set', KEYS[3], cmsgpack.pack({doc.owner, doc.n, doc.lease})) "
      "local n, lease = struct.unpack('>I4d', redis.call('get', KEYS[2])) "
      "local t = cmsgpack.unpack(redis.call('get', KEYS[3])) "
      "return {redis.call('get', KEYS[1]), n, tostring(lease), t[1], bit.tohex(t[2])}";
  expect_same(oracle_->run({}, script, {"a", "b", "c"}, {R"({"owner": "client-1", "n": 4660, "lease": 30000.5})"}),
              "every library");
}

// A whole pack written with the libraries (tests/impl/packs/record_lock: a
// token lock whose key holds a cjson record, with struct and cmsgpack
// copies and bit fields beside it): the same replies, holders and keys as
// live Redis after every step of a hold, its renewal, a refusal and the
// release; and whole runs under faults with the same trace.
TEST(LuaLibsPack, APackUsingTheLibrariesAgreesWithLive) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(LOCKSIM_SOURCE_DIR) / "tests" / "impl" / "packs" / "record_lock";
  std::string sources;
  for (const char* f : {"acquire.lua", "release.lua", "extend.lua", "holders.lua"}) sources += testing::read_file(dir / f);
  for (const char* used : {"cjson.encode(", "cjson.decode(", "bit.band(", "struct.pack(", "cmsgpack.pack("}) {
    EXPECT_NE(sources.find(used), std::string::npos) << used;
  }
  const ScriptPack pack = ScriptPack::load(dir.string());
  RedisServer server;
  LiveBackend live({&server}, pack, "");
  LuaBackend lua(1, pack);
  const std::string a = "owner-a#1";
  const std::string b = "owner-b#1";
  auto call = [](ScriptKind kind, const std::string& token, int64_t lease_ms) {
    ScriptParams p;
    p.lock = "lsim:L0";
    p.owner = token.substr(0, token.find('#'));
    p.token = token;
    p.lease_ms = lease_ms;
    return ScriptCall{kind, p};
  };
  const std::vector<ScriptCall> steps = {
      call(ScriptKind::RlockAcquire, a, 30'000), call(ScriptKind::RlockAcquire, b, 30'000),
      call(ScriptKind::RlockRenew, a, 45'123),   call(ScriptKind::RlockRenew, b, 45'000),
      call(ScriptKind::RlockRelease, b, 0),      call(ScriptKind::RlockRelease, a, 0),
      call(ScriptKind::RlockAcquire, b, 1'000),  call(ScriptKind::RlockForceRelease, b, 0),
  };
  int64_t now_us = kDiffEpochUs;
  for (size_t i = 0; i < steps.size(); ++i) {
    now_us += 1'000;
    const ExecResult on_lua = lua.execute(0, steps[i], now_us);
    const ExecResult on_live = live.execute(0, steps[i], now_us);
    EXPECT_EQ(on_lua.reply, on_live.reply) << "step " << i << ": " << on_lua.reply.to_string() << " vs live "
                                           << on_live.reply.to_string();
    EXPECT_FALSE(on_lua.reply.is_error()) << "step " << i << ": " << on_lua.reply.to_string();
    EXPECT_EQ(on_lua.holders_after, on_live.holders_after) << "step " << i;
    const std::vector<KeyState> lua_keys = lua.snapshot(0, now_us);
    EXPECT_EQ(lua_keys, live.snapshot(0, now_us)) << "step " << i;
    if (i == 0) {
      EXPECT_EQ(lua_keys.size(), 3u);  // the record and its two copies
    }
  }

  const fs::path tmp = fs::temp_directory_path() / "locksim_test_sim" / "record_lock";
  fs::create_directories(tmp);
  for (const char* args : {"--seed 3 --profile pauses --duration-s 30", "--seed 4 --profile hostile --duration-s 20"}) {
    std::string traces[2];
    const char* backends[2] = {"lua", "live"};
    for (int k = 0; k < 2; ++k) {
      const fs::path trace = tmp / (std::string(backends[k]) + ".jsonl");
      const testing::CliRun r = testing::run_locksim("run --backend " + std::string(backends[k]) + " " + args +
                                                     " --scripts " + dir.string() + " --trace " + trace.string());
      ASSERT_LE(r.exit_code, 1) << args << ": " << r.out;  // 1: a property failed (the token lock under pauses)
      traces[k] = testing::read_file(trace);
      traces[k].erase(0, traces[k].find('\n'));  // the header names the backend
    }
    EXPECT_GT(traces[0].size(), 10'000u) << args;
    EXPECT_TRUE(traces[0] == traces[1]) << args;
  }
}

}  // namespace
}  // namespace locksim
