// parse_bounded_json: nlohmann::json::parse with a limit on nesting depth
// and no key given twice.
// Every JSON value locksim reads from a user (trace lines, script-pack
// manifests) goes through it, so a hostile file cannot overflow the stack
// in a recursive copy, comparison, dump or destruction of the parsed value.
//
// Contract: returns the parsed value, or throws
//  - nlohmann::json::parse_error for malformed JSON (e.byte is the 1-based
//    position of the problem),
//  - nlohmann::json::out_of_range for a number too large for a double
//    (1e400), or
//  - JsonRefused when arrays/objects nest deeper than max_depth (the
//    outermost value is depth 1), or an object has a key twice (two values
//    for one field: which one counts would be a guess). Parsing itself is
//    iterative (nlohmann's parser keeps an explicit stack), and values
//    deeper than the limit are discarded while parsing, never built.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace locksim {

// Generous for every format we read (a trace event nests 3 levels, a
// manifest 4) and shallow enough for any recursive walk of the value.
inline constexpr int kMaxJsonDepth = 64;

struct JsonRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json parse_bounded_json(std::string_view text, int max_depth = kMaxJsonDepth);

// A short, printable stand-in for a value that has not been validated: a
// string quoted and a number as written, both cut to `max_chars`; an array
// "[...]" and an object "{...}". Never recurses (never dumps a container).
std::string describe_json_value(const nlohmann::json& value, size_t max_chars = 40);

}  // namespace locksim
