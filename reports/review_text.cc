#include "reports/review_text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "properties/saturating_time.h"
#include "properties/violation.h"
#include "traces/event_detail.h"

namespace locksim::review {

double text_pt(const std::string& text, double size_pt, bool bold) {
  size_t longest = 0, current = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      current = 0;
      continue;
    }
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: one character
    longest = std::max(longest, ++current);
  }
  return static_cast<double>(longest) * size_pt * (bold ? kBoldRatio : kCharRatio);
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// "1 843": thousands grouped, as format_ms() does.
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ' ';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

// Seconds since the run began: "8.330 s".
std::string run_s(int64_t true_us, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f s", decimals, static_cast<double>(true_us) / 1e6);
  return buf;
}

// "1st", "2nd", "11th", "23rd".
std::string ordinal(size_t n) {
  const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                       : n % 10 == 1                     ? "st"
                       : n % 10 == 2                     ? "nd"
                       : n % 10 == 3                     ? "rd"
                                                         : "th";
  return std::to_string(n) + suffix;
}

std::string client_lane(int c) { return "client " + std::to_string(c); }
std::string server_lane(int s) { return "redis " + std::to_string(s); }
std::string line_lane(const std::string& lock) { return "line " + lock; }

// An owner id "<uuid>:<task>" as "c<client>:<task>" (its uuid's first 8
// characters when the client is unknown).
std::string short_owner(const OwnerId& owner, int client) {
  const std::string_view uuid = owner.uuid();
  const std::string task(owner.str().substr(uuid.size()));  // ":<task>", or "" when it has none
  if (client >= 0) return "c" + std::to_string(client) + task;
  return std::string(uuid.substr(0, 8)) + task;
}

std::string uuid_prefix(const OwnerId& owner) {
  const std::string_view uuid = owner.uuid();
  return uuid.size() > 8 ? std::string(uuid.substr(0, 8)) + "…" : std::string(uuid);
}

std::string signed_duration_ms(int64_t ms) {
  return (ms >= 0 ? "+" : "-") + format_duration_us(ms_to_us(sat_abs(ms)));
}

std::vector<std::string> wrap(const std::string& text, size_t width_chars) {
  std::vector<std::string> lines;
  std::string current;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!current.empty() && current.size() + 1 + word.size() > width_chars) {
      lines.push_back(current);
      current.clear();
    }
    while (word.size() > width_chars) {  // a path longer than a line
      lines.push_back(word.substr(0, width_chars));
      word = word.substr(width_chars);
    }
    current += (current.empty() ? "" : " ") + word;
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

// The number after `key` in a checker's message ("bound 33 000 ms" -> 33000),
// spaces between digit groups allowed; nullopt when absent.
std::optional<int64_t> number_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  int64_t n = 0;
  bool any = false;
  for (size_t i = at + key.size(); i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      n = sat_add(sat_mul(n, 10), c - '0');
      any = true;
    } else if (!(c == ' ' && any && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      break;
    }
  }
  return any ? std::optional<int64_t>(n) : std::nullopt;
}

std::string hold_end_text(const RecordedHold& h) {
  switch (h.end) {
    case RecordedHold::End::Released: return "unlock #" + std::to_string(h.end_event);
    case RecordedHold::End::Lost: return "learns lost #" + std::to_string(h.end_event);
    case RecordedHold::End::Crashed: return "crash #" + std::to_string(h.end_event);
    case RecordedHold::End::Open: return "still held";
  }
  return "";
}

std::string lease_end_text(const RecordedLease& l) {
  switch (l.end) {
    case RecordedLease::End::Expired: return "expired";
    case RecordedLease::End::Deleted: return "deleted #" + std::to_string(l.end_event);
    case RecordedLease::End::ServerReset:
      if (l.reset_by == Op::Failover) return "not followed after the failover #" + std::to_string(l.end_event);
      return l.data_kept ? "not followed after the restart #" + std::to_string(l.end_event) + " (data kept)"
                         : "lost in the restart #" + std::to_string(l.end_event);
    case RecordedLease::End::Replaced: return "gone #" + std::to_string(l.end_event);
    case RecordedLease::End::Open: return "";
  }
  return "";
}

// The review's short text for an event: "#81 fair_acquire c3:2 -> 2344".
std::string event_label(const Event& e, int64_t epoch_ms) {
  std::string who = e.owner.empty() ? "" : " " + short_owner(e.owner, e.client);
  std::string out = "#" + std::to_string(e.id) + " ";
  switch (e.kind) {
    case EventKind::Invoke:
      out += std::string(op_name(e.op)) + " " + e.lock.name() + who;
      if (e.wait_ms >= 0) out += " wait " + format_ms(e.wait_ms);
      if (e.lease_ms >= 0) out += " lease " + format_ms(e.lease_ms);
      break;
    case EventKind::Ok: out += std::string(op_name(e.op)) + " ok" + (e.op == Op::Unlock ? " -> " + std::to_string(e.value) : "") + who; break;
    case EventKind::Fail: out += std::string(op_name(e.op)) + " fail" + (has_detail_text(e) ? " (" + detail_text(e) + ")" : "") + who; break;
    case EventKind::Info: out += std::string(op_name(e.op)) + (has_detail_text(e) ? " (" + detail_text(e) + ")" : "") + who; break;
    case EventKind::Script:
      out += e.script + who + " -> " + e.reply.to_text();
      if (e.line_known && e.local_ms != 0) out += ", its now " + run_s(ms_to_us(sat_sub(e.local_ms, epoch_ms)), 2);
      break;
    case EventKind::Deliver: out += "message"; break;
    case EventKind::Fault:
      out += op_name(e.op);
      if (e.duration_ms != 0) out += " " + format_ms(e.duration_ms);
      break;
    case EventKind::Verdict: out += "verdict"; break;
  }
  return out;
}

}  // namespace locksim::review
