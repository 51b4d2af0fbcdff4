#include "traces/owner_id.h"

namespace locksim {

OwnerId::OwnerId(std::string_view uuid, int task) {
  std::string text(uuid);
  text += ':';
  text += std::to_string(task);
  assign(text);
}

void OwnerId::assign(std::string_view text) {
  text_.assign(text.data(), text.size());
  const size_t colon = text_.rfind(':');
  uuid_size_ = static_cast<uint32_t>(colon == std::string::npos ? text_.size() : colon);
  task_ = -1;
  if (colon == std::string::npos || colon + 1 >= text_.size() || text_.size() - colon - 1 > 9) return;
  int32_t task = 0;
  for (size_t i = colon + 1; i < text_.size(); ++i) {
    const char c = text_[i];
    if (c < '0' || c > '9') return;
    task = task * 10 + (c - '0');
  }
  task_ = task;
}

}  // namespace locksim
