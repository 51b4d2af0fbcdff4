#include "traces/fast_event_decoder.h"

#include "traces/event_detail.h"

#include <simdjson.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace locksim {

namespace {

namespace dom = simdjson::dom;

// The keys of trace_format.h, in the writer's order; the bit of a key is its index.
enum Key : int {
  kId, kT, kK, kC, kS, kO, kL, kOp, kOpid, kLms, kWait, kLease, kV, kD, kSc, kRid, kR, kSms, kH, kP, kDur,
  kTg, kLn, kLr, kTk, kUnknown
};

Key key_of(std::string_view k) {
  switch (k.size()) {
    case 1:
      switch (k[0]) {
        case 't': return kT;
        case 'k': return kK;
        case 'c': return kC;
        case 's': return kS;
        case 'o': return kO;
        case 'l': return kL;
        case 'v': return kV;
        case 'd': return kD;
        case 'r': return kR;
        case 'h': return kH;
        case 'p': return kP;
        default: return kUnknown;
      }
    case 2:
      if (k == "id") return kId;
      if (k == "op") return kOp;
      if (k == "sc") return kSc;
      if (k == "tg") return kTg;
      if (k == "ln") return kLn;
      if (k == "lr") return kLr;
      if (k == "tk") return kTk;
      return kUnknown;
    case 3:
      if (k == "lms") return kLms;
      if (k == "rid") return kRid;
      if (k == "sms") return kSms;
      if (k == "dur") return kDur;
      return kUnknown;
    case 4:
      if (k == "opid") return kOpid;
      if (k == "wait") return kWait;
      return kUnknown;
    case 5:
      if (k == "lease") return kLease;
      return kUnknown;
    default:
      return kUnknown;
  }
}

// Each reader accepts only what decode_event accepts, with the same value.
bool read_uint64(dom::element v, uint64_t* out) {
  if (v.type() == dom::element_type::UINT64) return v.get_uint64().get(*out) == simdjson::SUCCESS;
  int64_t x = 0;
  if (v.type() != dom::element_type::INT64 || v.get_int64().get(x) != simdjson::SUCCESS || x < 0) return false;
  *out = static_cast<uint64_t>(x);
  return true;
}

bool read_int64(dom::element v, int64_t* out) {
  return v.type() == dom::element_type::INT64 && v.get_int64().get(*out) == simdjson::SUCCESS;
}

bool read_int(dom::element v, int* out) {
  int64_t x = 0;
  if (!read_int64(v, &x) || x < INT_MIN || x > INT_MAX) return false;
  *out = static_cast<int>(x);
  return true;
}

bool read_string(dom::element v, std::string* out) {
  std::string_view s;
  if (v.get_string().get(s) != simdjson::SUCCESS) return false;
  out->assign(s.data(), s.size());
  return true;
}

// Vectors are filled element by element over what *out holds already, so a
// reused Event keeps its strings' storage.
bool read_strings(dom::element v, std::vector<std::string>* out) {
  dom::array items;
  if (v.get_array().get(items) != simdjson::SUCCESS) return false;
  size_t n = 0;
  for (dom::element item : items) {
    std::string_view s;
    if (item.get_string().get(s) != simdjson::SUCCESS) return false;
    if (n < out->size()) (*out)[n].assign(s.data(), s.size());
    else out->emplace_back(s.data(), s.size());
    ++n;
  }
  out->resize(n);
  return true;
}

bool read_line(dom::element v, std::vector<LineEntry>* out, LineEntryPool& pool) {
  dom::array pairs;
  if (v.get_array().get(pairs) != simdjson::SUCCESS) return false;
  size_t count = 0;
  for (dom::element pair : pairs) {
    dom::array items;
    if (pair.get_array().get(items) != simdjson::SUCCESS) return false;
    const size_t n = items.size();
    if (n < 1 || n > 2) return false;
    if (count == out->size()) pool.grow(out);
    LineEntry& entry = (*out)[count++];
    entry.deadline_ms.reset();
    dom::element first;
    if (items.at(0).get(first) != simdjson::SUCCESS || !read_string(first, &entry.owner)) return false;
    if (n == 2) {
      dom::element d;
      if (items.at(1).get(d) != simdjson::SUCCESS) return false;
      int64_t i = 0;
      uint64_t u = 0;
      double x = 0;
      std::string_view s;
      switch (d.type()) {
        case dom::element_type::INT64:
          if (d.get_int64().get(i) != simdjson::SUCCESS) return false;
          entry.deadline_ms = static_cast<double>(i);
          break;
        case dom::element_type::UINT64:
          if (d.get_uint64().get(u) != simdjson::SUCCESS) return false;
          entry.deadline_ms = static_cast<double>(u);
          break;
        case dom::element_type::DOUBLE:
          if (d.get_double().get(x) != simdjson::SUCCESS) return false;
          entry.deadline_ms = x;
          break;
        case dom::element_type::STRING:
          if (d.get_string().get(s) != simdjson::SUCCESS) return false;
          if (s == "inf") entry.deadline_ms = INFINITY;
          else if (s == "-inf") entry.deadline_ms = -INFINITY;
          else return false;
          break;
        default:
          return false;
      }
    }
  }
  pool.truncate(out, count);
  return true;
}

}  // namespace

struct FastEventDecoder::Parser {
  dom::parser parser;
};

FastEventDecoder::FastEventDecoder() : parser_(std::make_unique<Parser>()) {}
FastEventDecoder::~FastEventDecoder() = default;

bool FastEventDecoder::decode(std::string_view line, Event* out, bool* line_repeated) {
  // The writer's shape only: one object, no \u escapes (surrogate handling
  // is left to the authoritative decoder).
  if (line.size() < 2 || line.front() != '{' || line.back() != '}') return false;
  for (size_t i = line.find('\\'); i != std::string_view::npos; i = line.find('\\', i + 2)) {
    if (i + 1 < line.size() && line[i + 1] == 'u') return false;
  }
  padded_.resize(line.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(padded_.data(), line.data(), line.size());
  dom::element root;
  if (parser_->parser.parse(padded_.data(), line.size(), /*realloc_if_needed=*/false).get(root) != simdjson::SUCCESS)
    return false;
  dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) return false;

  // Decoded into *out in place: every field is first set to its default
  // (strings emptied, keeping their storage); vectors are overwritten when
  // their key is present and emptied after the loop when it is not. On
  // false, *out is unspecified (the caller decodes the line again).
  Event& e = *out;
  reset_keeping_storage(&e);
  // The line is emptied here: an "ln" fills it, with "lr" the caller gives
  // it the repeated line, otherwise it stays empty.
  if (e.line_after.holds_storage()) {
    if (e.line_after.unique() && spare_lines_.size() < kMaxSpareLines) spare_lines_.push_back(std::move(e.line_after));
    e.line_after.clear();
  }
  uint32_t seen = 0;
  bool has_kind = false;
  for (dom::key_value_pair field : object) {
    const Key key = key_of(field.key);
    if (key == kUnknown) return false;
    const uint32_t bit = 1u << key;
    if (seen & bit) return false;  // duplicate: left to the authoritative decoder
    seen |= bit;
    const dom::element v = field.value;
    bool ok = false;
    switch (key) {
      case kId: ok = read_uint64(v, &e.id); break;
      case kT: ok = read_int64(v, &e.true_us); break;
      case kK: {
        std::string_view name;
        ok = v.type() == dom::element_type::STRING && v.get_string().get(name) == simdjson::SUCCESS &&
             event_kind_from_name(name, &e.kind);
        has_kind = ok;
        break;
      }
      case kC: ok = read_int(v, &e.client); break;
      case kS: ok = read_int(v, &e.server); break;
      case kO: {
        std::string_view text;
        ok = v.get_string().get(text) == simdjson::SUCCESS;
        if (ok) e.owner.assign(text);
        break;
      }
      case kL: {
        std::string_view text;
        ok = v.get_string().get(text) == simdjson::SUCCESS;
        if (ok) e.lock.assign(text);
        break;
      }
      case kOp: {
        std::string_view name;
        std::optional<Op> op;
        ok = v.type() == dom::element_type::STRING && v.get_string().get(name) == simdjson::SUCCESS &&
             (op = op_from_name(name)).has_value();
        if (ok) e.op = *op;
        break;
      }
      case kOpid: ok = read_uint64(v, &e.op_id); break;
      case kLms: ok = read_int64(v, &e.local_ms); break;
      case kWait: ok = read_int64(v, &e.wait_ms); break;
      case kLease: ok = read_int64(v, &e.lease_ms); break;
      case kV: ok = read_int64(v, &e.value); break;
      case kD: ok = read_string(v, &detail_); break;
      case kTk: ok = read_string(v, &e.token); break;
      case kSc: ok = read_string(v, &e.script); break;
      case kRid: ok = read_string(v, &e.request_id); break;
      case kR: {
        std::string_view text;
        ok = v.get_string().get(text) == simdjson::SUCCESS;
        if (ok) e.reply.assign_parsed(text);
        break;
      }
      case kSms: ok = read_int64(v, &e.server_ms); break;
      case kH: ok = read_strings(v, &e.holders_after); break;
      case kP: ok = read_strings(v, &e.published); break;
      case kDur: ok = read_int64(v, &e.duration_ms); break;
      case kTg: ok = read_int(v, &e.target); break;
      case kLn:
        if (!spare_lines_.empty()) {
          e.line_after = std::move(spare_lines_.back());
          spare_lines_.pop_back();
        }
        ok = read_line(v, &e.line_after.overwrite(), entry_pool_);
        e.line_known = ok;
        break;
      case kLr: {
        int64_t one = 0;
        ok = line_repeated != nullptr && read_int64(v, &one) && one == 1;
        break;
      }
      case kUnknown: break;
    }
    if (!ok) return false;
  }
  if (!has_kind) return false;
  // The detail's facts need the kind and the op, wherever they stood.
  if ((seen & (1u << kD)) != 0) read_detail_text(detail_, &e);
  // Out of range (decode_event words the error).
  if (e.true_us < 0 || ((seen & (1u << kC)) != 0 && e.client < 0) || ((seen & (1u << kS)) != 0 && e.server < 0) ||
      ((seen & (1u << kTg)) != 0 && e.target < 0)) {
    return false;
  }
  const bool repeated = (seen & (1u << kLr)) != 0;
  if (repeated && (seen & (1u << kLn)) != 0) return false;  // both: decode_event words the error
  if (repeated) e.line_known = true;
  if ((seen & (1u << kH)) == 0) e.holders_after.clear();
  if ((seen & (1u << kP)) == 0) e.published.clear();
  if (line_repeated != nullptr) *line_repeated = repeated;
  return true;
}

}  // namespace locksim
