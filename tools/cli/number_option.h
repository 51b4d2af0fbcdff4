// CLI11 validators for numeric options: the text must be a plain decimal
// number that fits the option's range, or the command stops with one line
// naming the option and the allowed range (exit 2, via main's ParseError
// handler). CLI11's own conversion would otherwise saturate (99999999999999999999
// -> 2^64-1), accept hex ("0x10") or floats where integers belong.
//   integer_in(min, max):  [-]digits, min <= value <= max; attach it with
//                          ->transform(): it rewrites the text in canonical
//                          decimal ("010" -> "10"), which CLI11 would
//                          otherwise read as octal
//   decimal_in(min, max):  digits[.digits], min <= value <= max (no exponent,
//                          hex, inf or nan)
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

namespace locksim::cli {

inline std::string describe_range(const std::string& min, const std::string& max) {
  return "[" + min + ", " + max + "]";
}

// Parses the whole of `text` as a decimal integer of type T; false on any
// other character, an empty text, or a value outside T (never saturates).
template <typename T>
bool parse_whole_integer(const std::string& text, T* out) {
  if (text.empty()) return false;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') return false;  // one spelling per number
  const auto [end, ec] = std::from_chars(first, last, *out, 10);
  return ec == std::errc() && end == last;
}

template <typename T>
CLI::Validator integer_in(T min, T max) {
  const std::string range = describe_range(std::to_string(min), std::to_string(max));
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        T value{};
        if (!parse_whole_integer(text, &value) || value < min || value > max) {
          return "expected an integer in " + range + ", got '" + text + "'";
        }
        // Canonical form for CLI11's own conversion (use the validator with
        // Option::transform, which keeps the change), which would read a
        // leading 0 as octal ("010" -> 8).
        text = std::to_string(value);
        return "";
      },
      "INT in " + range);
}

inline CLI::Validator decimal_in(double min, double max) {
  auto str = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  const std::string range = describe_range(str(min), str(max));
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const size_t point = text.find('.');
        const std::string whole = text.substr(0, point);
        const std::string fraction = point == std::string::npos ? "" : text.substr(point + 1);
        const bool digits_only = !whole.empty() && whole.find_first_not_of("0123456789") == std::string::npos &&
                                 fraction.find_first_not_of("0123456789") == std::string::npos;
        const double value = digits_only ? std::strtod(text.c_str(), nullptr) : 0;
        if (!digits_only || value < min || value > max) {
          return "expected a decimal number in " + range + ", got '" + text + "'";
        }
        return "";
      },
      "NUMBER in " + range);
}

}  // namespace locksim::cli
