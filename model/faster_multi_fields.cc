#include "model/faster_multi_fields.h"

#include <algorithm>

namespace locksim {

std::vector<std::string> split_values(std::string_view values) {
  std::vector<std::string> out;
  if (values.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = values.find(',', start);
    out.emplace_back(values.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string values_text(const std::vector<int>& values) {
  std::string out;
  for (int v : values) {
    if (!out.empty()) out += ',';
    out += std::to_string(v);
  }
  return out;
}

std::string value_expire_field(std::string_view value, std::string_view owner) {
  std::string out;
  out.reserve(value.size() + owner.size() + 13);
  out.append(value).append(":").append(owner).append(":expire_time");
  return out;
}

std::string value_count_field(std::string_view value, std::string_view owner) {
  std::string out;
  out.reserve(value.size() + owner.size() + 12);
  out.append(value).append(":").append(owner).append(":lock_count");
  return out;
}

std::vector<std::string> value_owners(const std::vector<std::string>& fields, std::string_view value) {
  std::vector<std::string> out;
  for (const std::string& f : fields) {
    if (f.size() <= value.size() + 1 || f.compare(0, value.size(), value) != 0 || f[value.size()] != ':') continue;
    const std::string_view rest = std::string_view(f).substr(value.size() + 1);
    for (const std::string_view suffix : {std::string_view(":expire_time"), std::string_view(":lock_count")}) {
      if (rest.size() > suffix.size() && rest.substr(rest.size() - suffix.size()) == suffix) {
        out.emplace_back(rest.substr(0, rest.size() - suffix.size()));
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace locksim
