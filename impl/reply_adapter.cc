#include "impl/reply_adapter.h"

#include <array>
#include <utility>

namespace locksim {

namespace {

constexpr std::array<std::pair<ReplyAdapter, std::string_view>, 3> kNames = {{
    {ReplyAdapter::AsIs, "as_is"},
    {ReplyAdapter::First, "first"},
    {ReplyAdapter::NilAsZero, "nil_as_0"},
}};

}  // namespace

std::string_view reply_adapter_name(ReplyAdapter a) {
  for (const auto& [adapter, name] : kNames) {
    if (adapter == a) return name;
  }
  return "?";
}

std::optional<ReplyAdapter> reply_adapter_from_name(std::string_view name) {
  for (const auto& [adapter, n] : kNames) {
    if (n == name) return adapter;
  }
  return std::nullopt;
}

std::string reply_adapter_names() {
  std::string out;
  for (const auto& [adapter, name] : kNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

Reply apply_reply_adapter(ReplyAdapter a, Reply raw) {
  if (raw.is_error()) return raw;
  switch (a) {
    case ReplyAdapter::AsIs: return raw;
    case ReplyAdapter::First:
      if (raw.kind == Reply::Kind::Array && raw.elements.size() == 1) return std::move(raw.elements[0]);
      return Reply::error("ERR locksim reply adapter \"first\": expected a one-element list, got " + raw.to_string());
    case ReplyAdapter::NilAsZero: return raw.is_nil() ? Reply::of_int(0) : raw;
  }
  return raw;
}

Reply apply_reply_adapters(const std::vector<ReplyAdapter>& adapters, Reply raw) {
  for (ReplyAdapter a : adapters) raw = apply_reply_adapter(a, std::move(raw));
  return raw;
}

}  // namespace locksim
