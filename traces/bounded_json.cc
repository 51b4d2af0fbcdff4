#include "traces/bounded_json.h"

#include <set>
#include <string>
#include <vector>

namespace locksim {

nlohmann::json parse_bounded_json(std::string_view text, int max_depth) {
  bool too_deep = false;
  std::string duplicate;  // the first key given twice in one object
  std::vector<std::set<std::string>> keys;  // per open object (bounded by max_depth)
  // The callback sees each value's depth as it starts; returning false for
  // an array or object start drops that whole value (its children are
  // parsed but not stored), so nothing deeper than the limit is ever built.
  nlohmann::json::parser_callback_t limit = [&](int depth, nlohmann::json::parse_event_t event,
                                                nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth >= max_depth) {
      too_deep = true;
      return false;
    }
    if (too_deep || !duplicate.empty()) return false;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), limit);
  if (too_deep) {
    throw JsonRefused("JSON nested deeper than " + std::to_string(max_depth) + " levels");
  }
  if (!duplicate.empty()) {
    throw JsonRefused("JSON object has the key \"" + duplicate.substr(0, 40) + "\" twice");
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
