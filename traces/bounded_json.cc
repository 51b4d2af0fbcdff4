#include "traces/bounded_json.h"

#include <string>

namespace locksim {

nlohmann::json parse_bounded_json(std::string_view text, int max_depth) {
  bool too_deep = false;
  // The callback sees each value's depth as it starts; returning false for
  // an array or object start drops that whole value (its children are
  // parsed but not stored), so nothing deeper than the limit is ever built.
  nlohmann::json::parser_callback_t limit = [&](int depth, nlohmann::json::parse_event_t event,
                                                nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start ||
         event == nlohmann::json::parse_event_t::array_start) &&
        depth >= max_depth) {
      too_deep = true;
      return false;
    }
    return !too_deep;
  };
  nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), limit);
  if (too_deep) {
    throw JsonTooDeep("JSON nested deeper than " + std::to_string(max_depth) + " levels");
  }
  return value;
}

std::string describe_json_value(const nlohmann::json& value, size_t max_chars) {
  auto cut = [max_chars](std::string s) {
    if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
    return s;
  };
  if (value.is_string()) return "\"" + cut(value.get_ref<const std::string&>()) + "\"";
  if (value.is_array()) return "[...]";
  if (value.is_object()) return "{...}";
  return cut(value.dump());  // a number, boolean or null: no recursion
}

}  // namespace locksim
