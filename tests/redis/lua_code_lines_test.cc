// The code lines of a Lua chunk read from its dump (redis/lua_code_lines.h)
// and LuaScripting's line coverage: the lines a script's runs reached, those
// of a nested function included, lines of code loadstring made excluded.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "redis/lua_code_lines.h"
#include "redis/lua_scripting.h"
#include "redis/store.h"

namespace locksim {
namespace {

const char* kScript =
    "-- a comment\n"                          // 1
    "local function twice(x)\n"               // 2
    "  return x * 2\n"                        // 3
    "end\n"                                   // 4
    "\n"                                      // 5
    "if ARGV[1] == 'a' then\n"                // 6
    "  return twice(1)\n"                     // 7
    "elseif ARGV[1] == 'b' then\n"            // 8
    "  return 2\n"                            // 9
    "end\n"                                   // 10
    "local f = loadstring('return 5')\n"      // 11
    "return f()\n";                           // 12


std::vector<int> run_with(LuaScripting& lua, int id, const std::string& arg) {
  Store store;
  CommandContext ctx;
  ctx.store = &store;
  const std::vector<std::string> keys;
  const std::vector<std::string> argv = {arg};
  lua.run(id, keys, argv, ctx);
  return lua.lines_run(id);
}

TEST(LuaCodeLines, EveryLineWithCodeIncludingNestedFunctions) {
  LuaScripting lua;
  const int id = lua.load(kScript);
  // 3: the nested function's body; 4: its final return and, in the main
  // chunk, the closure made where its definition ends; 6 to 12 the main
  // chunk's (12 also its final return).
  EXPECT_EQ(lua.code_lines(id), (std::vector<int>{3, 4, 6, 7, 8, 9, 11, 12}));
}

TEST(LuaCodeLines, RunsReportTheLinesTheyReached) {
  LuaScripting lua;
  const int id = lua.load(kScript);
  EXPECT_TRUE(lua.lines_run(id).empty());
  EXPECT_EQ(run_with(lua, id, "b"), (std::vector<int>{4, 6, 8, 9}));
  EXPECT_EQ(run_with(lua, id, "a"), (std::vector<int>{3, 4, 6, 7, 8, 9}));
  // The loadstring'd function's line 1 is not the script's line 1.
  EXPECT_EQ(run_with(lua, id, "c"), (std::vector<int>{3, 4, 6, 7, 8, 9, 11, 12}));
  lua.clear_line_coverage();
  EXPECT_TRUE(lua.lines_run(id).empty());
}

TEST(LuaCodeLines, RefusesWhatIsNotADump) {
  EXPECT_THROW(lua_dump_code_lines(""), LuaDumpError);
  EXPECT_THROW(lua_dump_code_lines("\033Lua"), LuaDumpError);
  EXPECT_THROW(lua_dump_code_lines(std::string("\033LuaR\0\1\4\10\4\10\0", 12)), LuaDumpError);
}

}  // namespace
}  // namespace locksim
