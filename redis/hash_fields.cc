#include "redis/hash_fields.h"

#include <cassert>

#include "redis/key_hash.h"

namespace locksim {

namespace {
size_t hash_of(std::string_view field) { return KeyHash{}(field); }
}  // namespace

size_t HashFields::slot_of(std::string_view field) const {
  assert(!slots_.empty());
  const size_t mask = slots_.size() - 1;
  size_t i = hash_of(field) & mask;
  size_t first_erased = slots_.size();
  while (true) {
    const uint32_t at = slots_[i];
    if (at == kEmptySlot) return first_erased != slots_.size() ? first_erased : i;
    if (at == kErasedSlot) {
      if (first_erased == slots_.size()) first_erased = i;
    } else if (entries_[at].field == field) {
      return i;
    }
    i = (i + 1) & mask;
  }
}

HashFields::Entry* HashFields::find(std::string_view field) {
  return const_cast<Entry*>(static_cast<const HashFields*>(this)->find(field));
}

const HashFields::Entry* HashFields::find(std::string_view field) const {
  if (slots_.empty()) {
    for (const Entry& e : entries_) {
      if (e.live && e.field == field) return &e;
    }
    return nullptr;
  }
  const uint32_t at = slots_[slot_of(field)];
  if (at == kEmptySlot || at == kErasedSlot) return nullptr;
  return &entries_[at];
}

HashFields::Entry& HashFields::add(std::string_view field) {
  assert(find(field) == nullptr);
  if (entries_.size() >= kErasedSlot - 1) compact();
  entries_.push_back(Entry{std::string(field), std::string(), true});
  ++live_;
  const auto pos = static_cast<uint32_t>(entries_.size() - 1);
  if (slots_.empty()) {
    if (live_ > kScanFields) rebuild_index();
  } else if ((slots_used_ + 1) * 4 > slots_.size() * 3) {
    rebuild_index();  // grows; the new entry is indexed there
  } else {
    const size_t slot = slot_of(field);
    if (slots_[slot] == kEmptySlot) ++slots_used_;
    slots_[slot] = pos;
  }
  return entries_.back();
}

bool HashFields::erase(std::string_view field) {
  Entry* e = find(field);
  if (e == nullptr) return false;
  if (!slots_.empty()) slots_[slot_of(field)] = kErasedSlot;
  e->live = false;
  // Swapped out, not assigned: an assignment keeps the old heap buffer, and
  // a short field compact() later moves into this entry would keep it too,
  // so the store would count fewer bytes than the entry holds.
  std::string().swap(e->field);
  std::string().swap(e->value);
  --live_;
  if (live_ == 0) {
    clear();
  } else if (entries_.size() - live_ > live_ && entries_.size() - live_ > kScanFields) {
    compact();
  }
  return true;
}

void HashFields::clear() {
  if (entries_.capacity() > 2 * kScanFields) {
    std::vector<Entry>().swap(entries_);
  } else {
    entries_.clear();
  }
  live_ = 0;
  std::vector<uint32_t>().swap(slots_);
  slots_used_ = 0;
}

void HashFields::compact() {
  size_t out = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].live) continue;
    if (out != i) entries_[out] = std::move(entries_[i]);
    ++out;
  }
  entries_.resize(out);
  if (live_ > kScanFields) {
    rebuild_index();
  } else {
    slots_.clear();
    slots_used_ = 0;
  }
}

void HashFields::rebuild_index() {
  size_t capacity = 32;
  while (capacity * 3 < (live_ + 1) * 4 * 2) capacity *= 2;  // at most 3/8 full after a rebuild
  slots_.assign(capacity, kEmptySlot);
  slots_used_ = 0;
  const size_t mask = capacity - 1;
  for (size_t pos = 0; pos < entries_.size(); ++pos) {
    if (!entries_[pos].live) continue;
    size_t i = hash_of(entries_[pos].field) & mask;
    while (slots_[i] != kEmptySlot) i = (i + 1) & mask;
    slots_[i] = static_cast<uint32_t>(pos);
    ++slots_used_;
  }
}

}  // namespace locksim
