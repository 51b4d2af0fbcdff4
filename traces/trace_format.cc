#include "traces/trace_format.h"

#include "traces/byte_text.h"

#include <algorithm>
#include <charconv>

#include <cassert>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>

#include "traces/bounded_json.h"
#include "traces/event_detail.h"

#ifndef LOCKSIM_BUILD_ID
#define LOCKSIM_BUILD_ID "unknown"
#endif

namespace locksim {

using nlohmann::json;

std::string_view trace_build_id() { return LOCKSIM_BUILD_ID; }

namespace {

// ---- encoding: hand-written so the bytes are fixed and it is fast ----

void append_string(std::string& out, std::string_view s) {
  // Most strings need no escape: copied whole.
  const bool plain = std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  });
  if (!plain && !is_valid_utf8(s)) {
    // Bytes JSON text cannot hold (not UTF-8): written losslessly in hex.
    out += "{\"hex\":\"";
    out += to_hex(s);
    out += "\"}";
    return;
  }
  out += '"';
  if (plain) {
    out.append(s.data(), s.size());
    out += '"';
    return;
  }
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

// Writes `"key":` preceded by a comma unless it opens the object.
void append_key(std::string& out, std::string_view key) {
  if (out.size() > 1) out += ',';
  out += '"';
  out += key;
  out += "\":";
}

void put_int(std::string& out, std::string_view key, int64_t v) {
  append_key(out, key);
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  out.append(digits, static_cast<size_t>(end - digits));
}
void put_uint(std::string& out, std::string_view key, uint64_t v) {
  append_key(out, key);
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  out.append(digits, static_cast<size_t>(end - digits));
}
void put_int_unless(std::string& out, std::string_view key, int64_t v, int64_t default_value) {
  if (v != default_value) put_int(out, key, v);
}
void put_str_unless_empty(std::string& out, std::string_view key, const std::string& v) {
  if (v.empty()) return;
  append_key(out, key);
  append_string(out, v);
}
void put_list_unless_empty(std::string& out, std::string_view key, const std::vector<std::string>& v) {
  if (v.empty()) return;
  append_key(out, key);
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    append_string(out, v[i]);
  }
  out += ']';
}

void put_line(std::string& out, const std::vector<LineEntry>& line) {
  append_key(out, "ln");
  out += '[';
  for (size_t i = 0; i < line.size(); ++i) {
    if (i) out += ',';
    out += '[';
    append_string(out, line[i].owner);
    if (line[i].deadline_ms) {
      out += ',';
      const double d = *line[i].deadline_ms;
      if (std::isinf(d)) {
        append_string(out, d > 0 ? "inf" : "-inf");
      } else if (std::isnan(d)) {
        append_string(out, "nan");  // Redis never stores one; rejected on reading
      } else if (d == std::trunc(d) && std::fabs(d) < 9007199254740992.0) {
        out += std::to_string(static_cast<int64_t>(d));
      } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", d);  // round-trips exactly
        out += buf;
      }
    }
    out += ']';
  }
  out += ']';
}

// ---- decoding ----

// Every event key (version 3; version 2 lacks "lr", version 1 "ln" too), in
// the order encode_event writes them.
constexpr std::string_view kEventKeys[] = {"id", "t", "k", "c", "s", "o", "l", "op", "opid", "lms", "wait",
                                           "lease", "v", "d", "sc", "rid", "r", "sms", "h", "p", "dur", "tg",
                                           "ln", "lr", "tk"};
constexpr std::string_view kHeaderKeys[] = {"format", "version", "seed", "build", "backend", "scenario", "plan"};

template <size_t N>
bool known(const std::string_view (&keys)[N], const std::string& key) {
  for (const auto& k : keys) {
    if (k == key) return true;
  }
  return false;
}

bool get_int64(const json& j, const char* key, int64_t* out, std::string* error) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (it->is_number_unsigned()) {
    const auto v = it->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *error = std::string("field \"") + key + "\" is out of range";
      return false;
    }
    *out = static_cast<int64_t>(v);
    return true;
  }
  if (!it->is_number_integer()) {
    *error = std::string("field \"") + key + "\" must be an integer";
    return false;
  }
  *out = it->get<int64_t>();
  return true;
}

bool get_uint64(const json& j, const char* key, uint64_t* out, std::string* error) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  // JSON's -0 is a signed integer to nlohmann::json, of value 0: taken as
  // 0, as the fast decoder (traces/fast_event_decoder.h) reads it.
  const bool zero = it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() == 0;
  if (!it->is_number_unsigned() && !zero) {
    *error = std::string("field \"") + key + "\" must be a non-negative integer";
    return false;
  }
  *out = zero ? 0 : it->get<uint64_t>();
  return true;
}

bool get_int(const json& j, const char* key, int* out, std::string* error) {
  int64_t v = *out;
  if (!get_int64(j, key, &v, error)) return false;
  if (v < INT_MIN || v > INT_MAX) {
    *error = std::string("field \"") + key + "\" is out of range";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

// A string field: JSON text, or {"hex": "..."} for bytes that are not
// UTF-8 (append_string). False when `v` is neither.
bool string_of(const json& v, std::string* out) {
  if (v.is_string()) {
    *out = v.get<std::string>();
    return true;
  }
  if (!v.is_object() || v.size() != 1) return false;
  const auto hex = v.find("hex");
  return hex != v.end() && hex->is_string() && from_hex(hex->get_ref<const std::string&>(), out);
}

bool get_string(const json& j, const char* key, std::string* out, std::string* error) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!string_of(*it, out)) {
    *error = std::string("field \"") + key + "\" must be a string";
    return false;
  }
  return true;
}

// "op": the name of an Op (traces/op.h); any other text is refused.
bool get_op(const json& j, Op* out, std::string* error) {
  auto it = j.find("op");
  if (it == j.end()) return true;
  std::string name;
  if (!string_of(*it, &name)) {
    *error = "field \"op\" must be a string";
    return false;
  }
  const std::optional<Op> op = op_from_name(name);
  if (!op) {
    *error = "unknown operation " + describe_json_value(*it) + " (field \"op\")";
    return false;
  }
  *out = *op;
  return true;
}

bool get_strings(const json& j, const char* key, std::vector<std::string>* out, std::string* error) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_array()) {
    *error = std::string("field \"") + key + "\" must be an array of strings";
    return false;
  }
  out->clear();
  for (const auto& e : *it) {
    std::string s;
    if (!string_of(e, &s)) {
      *error = std::string("field \"") + key + "\" must be an array of strings";
      return false;
    }
    out->push_back(std::move(s));
  }
  return true;
}

bool get_line(const json& j, SharedLine* out_line, bool* known_out, std::string* error) {
  auto it = j.find("ln");
  if (it == j.end()) return true;
  const std::string shape = "field \"ln\" must be an array of [owner] or [owner, deadline] pairs";
  if (!it->is_array()) {
    *error = shape;
    return false;
  }
  std::vector<LineEntry> entries;
  std::vector<LineEntry>* out = &entries;
  for (const auto& pair : *it) {
    LineEntry entry;
    if (!pair.is_array() || pair.empty() || pair.size() > 2 || !string_of(pair[0], &entry.owner)) {
      *error = shape;
      return false;
    }
    if (pair.size() == 2) {
      double score = 0;
      if (pair[1].is_number()) {
        score = pair[1].get<double>();
      } else if (pair[1].is_string() && (pair[1].get<std::string>() == "inf" || pair[1].get<std::string>() == "-inf")) {
        score = pair[1].get<std::string>() == "inf" ? INFINITY : -INFINITY;
      } else {
        *error = shape + " (a deadline is a number, \"inf\" or \"-inf\")";
        return false;
      }
      entry.deadline_ms = score;
    }
    out->push_back(std::move(entry));
  }
  out_line->assign(std::move(entries));
  *known_out = true;
  return true;
}

bool parse_object(std::string_view line, json* out, std::string* error, bool* too_deep = nullptr) {
  try {
    *out = parse_bounded_json(line);
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based position of the problem within the line.
    *error = "malformed JSON at column " + std::to_string(e.byte) + " (expected one JSON object per line)";
    return false;
  } catch (const json::out_of_range&) {
    // A number literal too large for a double (1e400): found by the fuzzer.
    *error = "malformed JSON: a number is out of range (expected one JSON object per line)";
    return false;
  } catch (const JsonRefused& e) {
    *error = std::string(e.what()) + " (expected one flat JSON object per line)";
    if (too_deep) *too_deep = true;
    return false;
  }
  if (!out->is_object()) {
    *error = "expected a JSON object";
    return false;
  }
  return true;
}

}  // namespace

std::string encode_header(const TraceHeader& header) {
  std::string out = "{";
  append_key(out, "format");
  append_string(out, kTraceFormatName);
  put_int(out, "version", kTraceVersion);
  put_uint(out, "seed", header.seed);
  append_key(out, "build");
  append_string(out, header.build);
  append_key(out, "backend");
  append_string(out, header.backend);
  append_key(out, "scenario");
  // nlohmann::json objects keep keys sorted: dump() is deterministic.
  out += header.scenario.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
  if (!header.plan.is_null()) {  // only in a shrunk counterexample's trace
    append_key(out, "plan");
    out += header.plan.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
  }
  out += '}';
  return out;
}

std::string encode_event(const Event& e, bool line_repeated) {
  std::string out;
  out.reserve(160);
  encode_event_to(&out, e, line_repeated);
  return out;
}

void encode_event_to(std::string* into, const Event& e, bool line_repeated) {
  std::string& out = *into;
  out.clear();  // append_key's comma rule counts from the opening brace
  out += '{';
  put_uint(out, "id", e.id);
  put_int(out, "t", e.true_us);
  append_key(out, "k");
  append_string(out, event_kind_name(e.kind));
  put_int_unless(out, "c", e.client, -1);
  put_int_unless(out, "s", e.server, -1);
  put_str_unless_empty(out, "o", e.owner.str());
  put_str_unless_empty(out, "l", e.lock.name());
  if (e.op != Op::None) {
    append_key(out, "op");
    append_string(out, op_name(e.op));
  }
  if (e.op_id != 0) put_uint(out, "opid", e.op_id);
  put_int_unless(out, "lms", e.local_ms, 0);
  put_int_unless(out, "wait", e.wait_ms, -1);
  put_int_unless(out, "lease", e.lease_ms, -1);
  put_int_unless(out, "v", e.value, 0);
  if (has_detail_text(e)) {
    append_key(out, "d");
    if (has_detail_fact(e)) {
      std::string text;
      append_detail_text(e, &text);
      append_string(out, text);
    } else {
      append_string(out, e.detail);
    }
  }
  put_str_unless_empty(out, "tk", e.token);
  put_str_unless_empty(out, "sc", e.script);
  put_str_unless_empty(out, "rid", e.request_id);
  if (!e.reply.empty()) {
    append_key(out, "r");
    if (e.reply.is_nil() || e.reply.is_integer()) {  // nothing to escape
      out += '"';
      e.reply.append_text(&out);
      out += '"';
    } else {
      append_string(out, e.reply.to_text());
    }
  }
  put_int_unless(out, "sms", e.server_ms, 0);
  put_list_unless_empty(out, "h", e.holders_after);
  put_list_unless_empty(out, "p", e.published);
  put_int_unless(out, "dur", e.duration_ms, 0);
  put_int_unless(out, "tg", e.target, -1);
  if (e.line_known && line_repeated) {
    put_int(out, "lr", 1);
  } else if (e.line_known) {
    put_line(out, e.line_after.entries());
  }
  out += '}';
}

Event event_as_version(const Event& event, int version) {
  assert(version >= kOldestTraceVersion && version <= kTraceVersion);
  Event e = event;
  if (version < 2 && e.kind == EventKind::Script) {
    e.line_known = false;
    e.line_after.clear();
    e.local_ms = 0;
  }
  return e;
}

bool decode_header(std::string_view line, TraceHeader* out, std::string* error) {
  json j;
  bool too_deep = false;
  if (!parse_object(line, &j, error, &too_deep)) {
    *error = (too_deep ? "bad trace header: " : "missing trace header: ") + *error;
    return false;
  }
  auto format = j.find("format");
  if (format == j.end()) {
    *error = "missing trace header (expected {\"format\":\"" + std::string(kTraceFormatName) +
             "\",\"version\":" + std::to_string(kTraceVersion) + ",...} on the first line)";
    return false;
  }
  if (!format->is_string() || format->get<std::string>() != kTraceFormatName) {
    *error = "not a locksim trace: format " + describe_json_value(*format) + " (expected \"" +
             std::string(kTraceFormatName) + "\")";
    return false;
  }
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) {
    *error = "trace header has no integer \"version\" (this build reads version " +
             std::to_string(kTraceVersion) + ")";
    return false;
  }
  if (!version->is_number_unsigned() || version->get<uint64_t>() < static_cast<uint64_t>(kOldestTraceVersion) ||
      version->get<uint64_t>() > static_cast<uint64_t>(kTraceVersion)) {
    *error = "unsupported trace version " + describe_json_value(*version) + " (this build reads versions " +
             std::to_string(kOldestTraceVersion) + "-" + std::to_string(kTraceVersion) + ")";
    return false;
  }
  for (const auto& [key, value] : j.items()) {
    if (!known(kHeaderKeys, key)) {
      *error = "unknown trace header field \"" + key + "\"";
      return false;
    }
  }
  TraceHeader h;
  h.version = static_cast<int>(version->get<uint64_t>());
  if (!get_uint64(j, "seed", &h.seed, error) || !get_string(j, "build", &h.build, error) ||
      !get_string(j, "backend", &h.backend, error)) {
    return false;
  }
  if (auto it = j.find("scenario"); it != j.end()) h.scenario = *it;
  if (auto it = j.find("plan"); it != j.end()) {
    if (!it->is_object()) {
      *error = "trace header field \"plan\" must be an object, got " + describe_json_value(*it);
      return false;
    }
    h.plan = *it;
  }
  *out = std::move(h);
  return true;
}

bool decode_event(std::string_view line, Event* out, std::string* error, bool* line_repeated) {
  json j;
  if (!parse_object(line, &j, error)) return false;
  for (const auto& [key, value] : j.items()) {
    if (!known(kEventKeys, key)) {
      *error = "unknown event field \"" + key + "\"";
      return false;
    }
  }
  Event e;
  auto kind = j.find("k");
  if (kind == j.end() || !kind->is_string()) {
    *error = "event has no string field \"k\" (kind)";
    return false;
  }
  if (!event_kind_from_name(kind->get<std::string>(), &e.kind)) {
    *error = "unknown event kind " + describe_json_value(*kind);
    return false;
  }
  std::string owner;
  std::string lock;
  std::string detail;
  std::string reply;
  const bool ok = get_uint64(j, "id", &e.id, error) && get_int64(j, "t", &e.true_us, error) &&
                  get_int(j, "c", &e.client, error) && get_int(j, "s", &e.server, error) &&
                  get_string(j, "o", &owner, error) && get_string(j, "l", &lock, error) &&
                  get_op(j, &e.op, error) && get_uint64(j, "opid", &e.op_id, error) &&
                  get_int64(j, "lms", &e.local_ms, error) && get_int64(j, "wait", &e.wait_ms, error) &&
                  get_int64(j, "lease", &e.lease_ms, error) && get_int64(j, "v", &e.value, error) &&
                  get_string(j, "d", &detail, error) && get_string(j, "tk", &e.token, error) &&
                  get_string(j, "sc", &e.script, error) &&
                  get_string(j, "rid", &e.request_id, error) && get_string(j, "r", &reply, error) &&
                  get_int64(j, "sms", &e.server_ms, error) && get_strings(j, "h", &e.holders_after, error) &&
                  get_strings(j, "p", &e.published, error) && get_int64(j, "dur", &e.duration_ms, error) &&
                  get_int(j, "tg", &e.target, error) && get_line(j, &e.line_after, &e.line_known, error);
  if (!ok) return false;
  e.owner.assign(owner);  // its uuid and task, read once here
  e.lock.assign(lock);    // and a member's group
  read_detail_text(detail, &e);  // its facts need the kind and the op, read above
  e.reply.assign_parsed(reply);
  // Values the writer never writes: an index below 0 (it omits "none"), a
  // time before the run began.
  if (e.true_us < 0) {
    *error = "field \"t\" is negative (true time starts at 0)";
    return false;
  }
  for (const auto& [key, value] : {std::pair{"c", e.client}, std::pair{"s", e.server}, std::pair{"tg", e.target}}) {
    if (j.contains(key) && value < 0) {
      *error = std::string("field \"") + key + "\" is negative (an index; leave it out for none)";
      return false;
    }
  }
  if (line_repeated != nullptr) *line_repeated = false;
  if (auto lr = j.find("lr"); lr != j.end()) {
    if (!lr->is_number_integer() || lr->get<int64_t>() != 1) {
      *error = "field \"lr\" must be 1 (the fair line repeated)";
      return false;
    }
    if (e.line_known) {
      *error = "fields \"ln\" and \"lr\" together (a line is given or repeated, not both)";
      return false;
    }
    if (line_repeated == nullptr) {
      *error = "field \"lr\" (the fair line repeated) is readable only in a trace, after the line it repeats";
      return false;
    }
    e.line_known = true;
    *line_repeated = true;
  }
  *out = std::move(e);
  return true;
}

}  // namespace locksim
