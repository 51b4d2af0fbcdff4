#include "properties/busy_poll.h"

#include <algorithm>
#include <cstdio>

#include "properties/fault_log.h"
#include "traces/event_detail.h"

namespace locksim {

namespace {
std::string seconds(int64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(us) / 1e6);
  return buf;
}
}  // namespace

void BusyPollChecker::on_event(const Event& e) {
  ctx_.feed(e);
  switch (e.kind) {
    case EventKind::Invoke:
      if (is_acquire(e.op) && e.op_id != 0) {
        Waiting w;
        w.owner = e.owner;
        w.lock = e.lock;
        w.client = e.client;
        w.invoke_event = e.id;
        w.invoke_us = e.true_us;
        waiting_[e.op_id] = std::move(w);
        owners_[e.owner] = OwnerFate{e.client, "", e.id, e.true_us};
      }
      break;
    case EventKind::Ok:
    case EventKind::Fail:
    case EventKind::Info:
      if (is_acquire(e.op) && e.op_id != 0) {
        waiting_.erase(e.op_id);
        auto fate = owners_.find(e.owner);
        if (fate != owners_.end() && fate->second.how.empty()) {
          fate->second.how = e.kind == EventKind::Ok                  ? "acquired the lock"
                             : e.kind == EventKind::Fail              ? "gave up (" + detail_text(e) + ")"
                             : e.reason == EndReason::Crashed         ? "crashed"
                                                                      : "stopped waiting (" + detail_text(e) + ")";
          fate->second.crashed = e.kind == EventKind::Info && e.reason == EndReason::Crashed;
          fate->second.event_id = e.id;
          fate->second.true_us = e.true_us;
        }
      }
      break;
    case EventKind::Script:
      if (ctx_->facts().granting_script() && e.op_id != 0) {
        auto it = waiting_.find(e.op_id);
        if (it != waiting_.end()) on_poll(e, it->second);
      }
      break;
    case EventKind::Fault:
      if (e.op == Op::Crash) {
        std::erase_if(waiting_, [&](const auto& kv) { return kv.second.client == e.target; });
        for (auto& [owner, fate] : owners_) {
          if (fate.client != e.target || !fate.how.empty()) continue;
          fate.how = "crashed";
          fate.crashed = true;
          fate.event_id = e.id;
          fate.true_us = e.true_us;
        }
      }
      break;
    default:
      break;
  }
}

void BusyPollChecker::on_spin_attempt(const Event& e, Waiting& waiting) {
  ++waiting.attempts;
  if (waiting.backoff_reported || waiting.attempts < 2) return;
  const BackoffKind kind = config().wake.backoff;
  const int64_t least_ms = backoff_min_elapsed_ms(kind, waiting.attempts);
  const int64_t elapsed_us = e.true_us - waiting.invoke_us;
  if (elapsed_us * 4 >= least_ms * 1000) return;
  waiting.backoff_reported = true;
  Violation v;
  v.lock = waiting.lock;
  v.message = waiting.owner + " (client " + std::to_string(waiting.client) + "), waiting since event #" +
              std::to_string(waiting.invoke_event) + ", made its attempt " + std::to_string(waiting.attempts) +
              " on the lock " + seconds(elapsed_us) + " after its invoke; its " + std::string(backoff_name(kind)) +
              " back-off sleeps at least " + format_ms(least_ms) + " in all before attempt " +
              std::to_string(waiting.attempts) + " (reported below a quarter of that)";
  v.event_ids = {waiting.invoke_event, e.id};
  v.true_us = {waiting.invoke_us, e.true_us};
  v.owners = {waiting.owner};
  v.facts.named_ids = {waiting.invoke_event};
  v.facts.polls = waiting.attempts;
  report(Report::BusyPollBackoffIgnored, std::move(v));
}

void BusyPollChecker::on_poll(const Event& e, Waiting& waiting) {
  if (config().wake.mode == WakeMode::Backoff && e.lock == waiting.lock) on_spin_attempt(e, waiting);
  Window* window = &waiting.own;
  if (e.lock != waiting.lock) {
    auto it = std::find_if(waiting.members.begin(), waiting.members.end(),
                           [&e](const auto& m) { return m.first == e.lock; });
    if (it == waiting.members.end()) {
      waiting.members.emplace_back(e.lock, Window{});
      it = waiting.members.end() - 1;
    }
    window = &it->second;
  }
  Window& w = *window;
  w.window_us.push_back(e.true_us);
  while (w.window_size() > 0 && w.window_us[w.window_head] < e.true_us - 1'000'000) ++w.window_head;
  if (w.window_head > w.window_us.size() / 2) {
    w.window_us.erase(w.window_us.begin(), w.window_us.begin() + static_cast<std::ptrdiff_t>(w.window_head));
    w.window_head = 0;
  }
  if (static_cast<int>(w.window_size()) <= config().max_polls_per_second) {
    w.storm_start_us = -1;
    w.storm_polls = 0;
    return;
  }
  if (w.storm_start_us < 0) {
    w.storm_start_us = w.window_us[w.window_head];
    w.storm_first_event = e.id;
    w.storm_polls = static_cast<int64_t>(w.window_size());
  } else {
    ++w.storm_polls;
  }
  if (waiting.reported || e.true_us - w.storm_start_us <= kMinStormMs * 1000) return;
  waiting.reported = true;
  const int64_t span_us = e.true_us - w.storm_start_us;
  const double rate = static_cast<double>(w.storm_polls) * 1e6 / static_cast<double>(span_us);
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.0f", rate);
  const Head head = describe_head(e);
  Violation v;
  v.lock = waiting.lock;
  v.message = waiting.owner + " (client " + std::to_string(waiting.client) + "), waiting since event #" +
              std::to_string(waiting.invoke_event) + ", polled " +
              (e.lock == waiting.lock ? std::string("the lock ") : "its member " + e.lock.name() + " ") +
              std::to_string(w.storm_polls) + " times in " +
              seconds(span_us) + " (" + rate_text + " polls/s; more than " + std::to_string(config().max_polls_per_second) +
              " per second for over " + format_ms(kMinStormMs) +
              (config().wake.mode == WakeMode::Poll
                   ? ", the declared poll interval being " + format_ms(config().wake.interval_ms)
                   : std::string()) +
              ")" + head.text;
  v.event_ids = {waiting.invoke_event, w.storm_first_event, e.id};
  v.true_us = {waiting.invoke_us, w.storm_start_us, e.true_us};
  v.owners = {waiting.owner};
  v.facts.named_ids = {waiting.invoke_event};
  if (head.fault_event != 0) v.facts.named_ids.push_back(head.fault_event);
  if (!head.cause.empty()) v.set_blame({head.cause, {head.fault_event}});
  v.facts.polls = w.storm_polls;
  v.facts.polls_per_s = std::stoll(rate_text);
  v.facts.line_head = head.owner;
  report(Report::BusyPollStorm, std::move(v));
}

// ", behind <head> (client 3) at the head of the line, which crashed at
// ..." for a fair poll whose line the trace records, with the head's fault.
BusyPollChecker::Head BusyPollChecker::describe_head(const Event& e) const {
  Head out;
  if (!e.line_known) return out;
  if (e.line_after.empty() || e.line_after.front().owner == e.owner) {
    if (e.holders_after.empty()) out.text = ", with the lock free and nobody ahead of it in the line";
    return out;
  }
  const std::string& head = e.line_after.front().owner;
  out.owner = head;
  out.text = ", behind " + head;
  auto fate = owners_.find(head);
  if (fate == owners_.end()) {
    out.text += " at the head of the line";
    return out;
  }
  const OwnerFate& f = fate->second;
  out.text += " (client " + std::to_string(f.client) + ") at the head of the line, which ";
  if (f.crashed) {
    out.cause = "client " + std::to_string(f.client) + " crashed at " + seconds(f.true_us) + " (event #" +
                std::to_string(f.event_id) + ") while " + head + " was in the line: its slot blocks the line";
    out.text += "crashed at event #" + std::to_string(f.event_id) + " and leaves the line only when its slot ends";
    out.fault_event = f.event_id;
    return out;
  }
  if (!f.how.empty()) {
    out.cause = head + " " + f.how + " at event #" + std::to_string(f.event_id) + " but stayed at the head of the line";
    out.text += f.how + " at event #" + std::to_string(f.event_id) + " yet still heads the line";
    out.fault_event = f.event_id;
    return out;
  }
  const auto faults = ctx_->faults().faults_between(f.client, f.true_us, e.true_us);
  if (!faults.empty()) {
    const ClientFault& fault = faults.back();
    const std::string what = describe_client_fault(f.client, fault);  // "client 3 lost a message (...) at event #381"
    out.cause = what + " while at the head of the line";
    out.text += "is still waiting, after " + what;
    out.fault_event = fault.event_id;
    return out;
  }
  out.text += "is still waiting";
  return out;
}

}  // namespace locksim
