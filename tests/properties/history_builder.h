// HistoryBuilder: hand-built histories for checker tests. Each call appends
// one Event with the next id at the given true time (ms) and returns it for
// tweaking. Clients own "c<client>:1" unless told otherwise.
#pragma once

#include <string>
#include <vector>

#include "model/script_call.h"
#include "traces/event.h"
#include "traces/event_detail.h"

namespace locksim::testing {

inline std::string owner_of(int client) { return "c" + std::to_string(client) + ":1"; }

class HistoryBuilder {
 public:
  Event& add(EventKind kind, int64_t t_ms, int client) {
    Event e;
    e.id = events_.size();
    e.true_us = t_ms * 1000;
    e.kind = kind;
    e.client = client;
    e.local_ms = t_ms;
    if (client >= 0) e.owner.assign(owner_of(client));
    events_.push_back(e);
    return events_.back();
  }
  Event& invoke(int64_t t_ms, int client, const std::string& op, uint64_t op_id, const std::string& lock = "L",
                int64_t wait_ms = -1, int64_t lease_ms = -1) {
    Event& e = add(EventKind::Invoke, t_ms, client);
    e.op = op_from_name(op).value(); e.op_id = op_id; e.lock.assign(lock); e.wait_ms = wait_ms; e.lease_ms = lease_ms;
    return e;
  }
  Event& complete(EventKind kind, int64_t t_ms, int client, const std::string& op, uint64_t op_id, int64_t value,
                  const std::string& lock = "L", const std::string& detail = "") {
    Event& e = add(kind, t_ms, client);
    e.op = op_from_name(op).value(); e.op_id = op_id; e.value = value; e.lock.assign(lock);
    read_detail_text(detail, &e);  // "timeout", "crashed", ...: their facts, as a trace reader reads them
    return e;
  }
  Event& ok(int64_t t_ms, int client, const std::string& op, uint64_t op_id, int64_t value = 1,
            const std::string& lock = "L") {
    return complete(EventKind::Ok, t_ms, client, op, op_id, value, lock);
  }
  Event& fail(int64_t t_ms, int client, const std::string& op, uint64_t op_id, const std::string& detail,
              const std::string& lock = "L") {
    return complete(EventKind::Fail, t_ms, client, op, op_id, 0, lock, detail);
  }
  Event& info(int64_t t_ms, int client, const std::string& op, uint64_t op_id, const std::string& detail = "",
              const std::string& lock = "L") {
    return complete(EventKind::Info, t_ms, client, op, op_id, 0, lock, detail);
  }
  // A script run at server time = true time (server 0).
  Event& script(int64_t t_ms, int client, const std::string& script, const std::string& reply,
                std::vector<std::string> holders_after, uint64_t op_id = 0, int64_t lease_ms = 30000,
                int64_t wait_ms = 0, const std::string& lock = "L") {
    Event& e = add(EventKind::Script, t_ms, client);
    e.server = 0; e.script = script; e.reply = EventReply::parse(reply); e.holders_after = std::move(holders_after);
    e.op_id = op_id; e.lease_ms = lease_ms; e.wait_ms = wait_ms; e.lock.assign(lock); e.server_ms = t_ms;
    e.op = Op::None;  // a script event names the op that caused it; none here
    if (script == "rlock_release" && reply == "1") e.published = {LockKeys::channel(lock) + " 0"};
    return e;
  }
  Event& fault(int64_t t_ms, const std::string& op, int target, int64_t duration_ms = 0) {
    Event& e = add(EventKind::Fault, t_ms, -1);
    e.op = op_from_name(op).value(); e.target = target; e.duration_ms = duration_ms;
    if (op == "clock_jump") e.client = target;
    return e;
  }
  const std::vector<Event>& events() const { return events_; }

 private:
  std::vector<Event> events_;
};

}  // namespace locksim::testing
