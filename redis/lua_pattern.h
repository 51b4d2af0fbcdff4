// The string library's pattern functions for the script sandbox
// (redis/lua_scripting.h): string.find, match, gmatch (and its old name
// gfind) and gsub, answering exactly as Lua 5.1.5's do (Redis 7.0's Lua),
// but with a matcher of our own that cannot hang or crash the process.
//
// Lua 5.1's matcher recurses once per pattern item that can backtrack and
// is not interrupted while it runs (the count hook only runs between Lua
// instructions): a pattern such as string.rep('a*', 40) .. 'b' backtracks
// for hours, and string.rep('a?', 1e6) overflows the C stack (Redis 7.0.15
// crashes past about 175,000 levels). This one is a loop over an explicit
// stack of choice points, in the same order, so it finds the same matches:
//  - every step (a pattern item tried, a character scanned by '*', '%b' or
//    a back reference, a byte compared by a plain find) is charged to the
//    running script's step budget (charge_steps in redis/lua_state.h),
//    which stops the run when it is spent;
//  - more than kMaxPatternDepth pending choice points and open captures
//    stop the run too (where Redis's own matcher overflows its stack).
// Its error texts, argument checks and conversions are Lua 5.1.5's: a
// pattern ends at its first '\0', a replacement's trailing '%' adds a '\0',
// '^' anchors find, match and gsub but not gmatch.
#pragma once

#include <lua.hpp>

namespace locksim::lua_detail {

inline constexpr int kMaxPatternDepth = 175'000;

// Replaces find, match, gmatch, gfind and gsub in the string table on top
// of the stack.
void install_pattern_functions(lua_State* L);

}  // namespace locksim::lua_detail
