// lua_code_lines: the lines of a compiled Lua 5.1 chunk that hold code (at
// least one VM instruction, in the chunk's main function or any function it
// defines), read from the chunk's precompiled form (lua_dump), whose format
// is fixed for Lua 5.1: a 12-byte header, then each function's source name,
// line range, counts, instructions, constants (nested functions among them,
// recursively), and the debug part whose line info maps every instruction
// to its source line. These are exactly the lines a line hook can report:
// the universe of a script's line coverage (redis/lua_scripting.h).
#pragma once

#include <stdexcept>
#include <string_view>
#include <vector>

struct lua_State;

namespace locksim {

struct LuaDumpError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The code lines of a dumped chunk, sorted, each once. Throws LuaDumpError
// on a dump this reader does not understand (another Lua version, a header
// for other type sizes, a truncated dump).
std::vector<int> lua_dump_code_lines(std::string_view dump);

// The code lines of the Lua function on top of L's stack (left there).
std::vector<int> lua_function_code_lines(lua_State* L);

}  // namespace locksim
