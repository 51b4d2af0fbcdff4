#include "properties/property_selection.h"

#include <optional>
#include <stdexcept>

#include "properties/violation.h"

namespace locksim {

namespace {

uint32_t all_mask() { return (uint32_t{1} << all_properties().size()) - 1; }

std::optional<uint32_t> bit_of(std::string_view name) {
  const std::vector<std::string> known = all_properties();
  if (name == "all") return all_mask();
  for (size_t i = 0; i < known.size(); ++i)
    if (known[i] == name) return uint32_t{1} << i;
  return std::nullopt;
}

// The properties a list of comma-separated lists names.
uint32_t mask_of(const std::vector<std::string>& lists, const std::string& flag) {
  uint32_t mask = 0;
  for (const std::string& list : lists) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      const std::string name = list.substr(start, comma - start);
      const auto bit = bit_of(name);
      if (!bit) {
        std::string names;
        for (const std::string& p : all_properties()) names += p + ", ";
        throw std::invalid_argument(flag + ": unknown property '" + name + "' (" + names + "all)");
      }
      mask |= *bit;
      start = comma + 1;
    }
  }
  return mask;
}

}  // namespace

PropertySelection::PropertySelection() : mask_(all_mask()) {}

PropertySelection PropertySelection::parse(const std::vector<std::string>& only, const std::vector<std::string>& skip) {
  PropertySelection s;
  if (!only.empty()) s.mask_ = mask_of(only, "--properties");
  s.mask_ &= ~mask_of(skip, "--skip-property");
  if (s.mask_ == 0) throw std::invalid_argument("--properties/--skip-property: no property is left to check");
  return s;
}

bool PropertySelection::has(std::string_view property) const {
  const auto bit = bit_of(property);
  return bit && property != "all" && (mask_ & *bit) != 0;
}

bool PropertySelection::is_all() const { return mask_ == all_mask(); }

std::vector<std::string> PropertySelection::names() const {
  std::vector<std::string> out;
  const std::vector<std::string> known = all_properties();
  for (size_t i = 0; i < known.size(); ++i)
    if ((mask_ & (uint32_t{1} << i)) != 0) out.push_back(known[i]);
  return out;
}

std::string PropertySelection::flag() const {
  if (is_all()) return "";
  std::string checked, skipped;
  for (const std::string& p : all_properties()) (has(p) ? checked : skipped) += p + ",";
  checked.pop_back();  // mask_ is never 0 nor all: both lists are non-empty
  skipped.pop_back();
  const size_t n_checked = names().size();
  return n_checked <= all_properties().size() - n_checked ? " --properties " + checked : " --skip-property " + skipped;
}

}  // namespace locksim
