#include "traces/event_detail.h"

namespace locksim {

namespace {

constexpr std::string_view kOnce = "once";
constexpr std::string_view kPersistenceAlways = "persistence always";

// The words of e's typed fact, or "" when it has none (a lost message is
// written whole by append_detail_text).
std::string_view fact_words(const Event& e) {
  switch (e.kind) {
    case EventKind::Invoke: return e.once ? kOnce : std::string_view();
    case EventKind::Fail:
    case EventKind::Info: return end_reason_text(e.reason);
    case EventKind::Script: return e.error_declared ? std::string_view(kDeclaredReplyDetail) : std::string_view();
    case EventKind::Fault:
      return e.op == Op::RedisRestart && e.persistence == Persistence::Always ? kPersistenceAlways
                                                                                : std::string_view();
    case EventKind::Ok:
    case EventKind::Deliver:
    case EventKind::Verdict: return {};
  }
  return {};
}

bool carries_lost(const Event& e) { return e.kind == EventKind::Fault && (e.op == Op::Lost || e.op == Op::Delayed); }

// `text` is `words`, or `words` + " " + a note that is not empty: the note
// (possibly empty) into *note, true; else false.
bool split_fact(std::string_view text, std::string_view words, std::string_view* note) {
  if (words.empty() || text.substr(0, words.size()) != words) return false;
  if (text.size() == words.size()) {
    *note = {};
    return true;
  }
  if (text.size() > words.size() + 1 && text[words.size()] == ' ') {
    *note = text.substr(words.size() + 1);
    return true;
  }
  return false;
}

}  // namespace

std::string_view end_reason_text(EndReason reason) {
  switch (reason) {
    case EndReason::None: return "";
    case EndReason::Timeout: return "timeout";
    case EndReason::Crashed: return "crashed";
    case EndReason::IllegalMonitorState: return "illegal monitor state";
  }
  return "";
}

bool has_detail_fact(const Event& e) { return !fact_words(e).empty() || (carries_lost(e) && !e.lost.empty()); }

bool has_detail_text(const Event& e) {
  return !e.detail.empty() || !fact_words(e).empty() || (carries_lost(e) && !e.lost.empty());
}

void append_detail_text(const Event& e, std::string* out) {
  if (carries_lost(e) && !e.lost.empty()) {
    e.lost.append_text(out);
    return;
  }
  const std::string_view words = fact_words(e);
  *out += words;
  if (!words.empty() && !e.detail.empty()) *out += ' ';
  *out += e.detail;
}

std::string detail_text(const Event& e) {
  std::string out;
  append_detail_text(e, &out);
  return out;
}

void read_detail_text(std::string_view text, Event* e) {
  e->reason = EndReason::None;
  e->once = false;
  e->error_declared = false;
  e->persistence = Persistence::None;
  e->lost.clear();
  e->detail.clear();
  if (text.empty()) return;
  if (carries_lost(*e) && LostMessage::read_text(text, &e->lost)) return;
  std::string_view note = text;
  switch (e->kind) {
    case EventKind::Invoke:
      if (split_fact(text, kOnce, &note)) e->once = true;
      break;
    case EventKind::Fail:
    case EventKind::Info:
      for (EndReason r : {EndReason::Timeout, EndReason::Crashed, EndReason::IllegalMonitorState}) {
        if (split_fact(text, end_reason_text(r), &note)) {
          e->reason = r;
          break;
        }
      }
      break;
    case EventKind::Script:
      if (split_fact(text, kDeclaredReplyDetail, &note)) e->error_declared = true;
      break;
    case EventKind::Fault:
      if (e->op == Op::RedisRestart && split_fact(text, kPersistenceAlways, &note)) e->persistence = Persistence::Always;
      break;
    case EventKind::Ok:
    case EventKind::Deliver:
    case EventKind::Verdict: break;
  }
  e->detail.assign(note);
}

}  // namespace locksim
