#include "impl/realtime/realtime_env.h"

#include <algorithm>
#include <cassert>
#include <chrono>

#include "impl/script_event_fields.h"
#include "redis/score_format.h"

namespace locksim {

struct RealtimeEnv::ScriptRequest {
  int server = 0;
  ScriptCall call;
  ScriptTag tag;
  std::function<void(const ScriptOutcome&)> done;
  TimerId timer = 0;
  bool finished = false;  // done was called (reply, error or timeout); loop thread only
  int64_t probe_at_ms = 0;  // the clock probe's expiry instant in this request's transaction
};

namespace {

// The one key the history's reads write besides the locks' own: under our
// prefix, set to expire at a known instant an hour ahead.
constexpr const char* kClockProbeKey = "lsim:realtime:clock";
constexpr int64_t kClockProbeLifeMs = 3'600'000;
// The replies inside EXEC of a recorded script's transaction.
constexpr size_t kExecProbeTtl = 1;       // after SET probe PXAT: the clock before the script
constexpr size_t kExecScript = 3;         // after PUBLISH begin
constexpr size_t kExecHolders = 5;        // after PUBLISH end
constexpr size_t kExecExpireTime = 6;     // PEXPIRETIME lock
constexpr size_t kExecProbeTtlAfter = 7;  // PTTL probe again: the clock after the script
constexpr size_t kExecLine = 8;           // LRANGE line, ZRANGE deadlines (fair scripts)

bool is_noscript(const Reply& r) { return r.is_error() && r.text.rfind("NOSCRIPT", 0) == 0; }

// The fair line after a script from LRANGE and ZRANGE WITHSCORES replies;
// false when they are not a list and a sorted set.
bool read_line(const Reply& line, const Reply& scores, std::vector<LineEntry>* out) {
  if (line.kind != Reply::Kind::Array || scores.kind != Reply::Kind::Array || scores.elements.size() % 2 != 0) {
    return false;
  }
  std::map<std::string, double> deadline_of;
  for (size_t i = 0; i + 1 < scores.elements.size(); i += 2) {
    double score = 0;
    if (!parse_score(scores.elements[i + 1].text, &score)) return false;
    deadline_of[scores.elements[i].text] = score;
  }
  for (const Reply& owner : line.elements) {
    LineEntry e{owner.text, std::nullopt};
    if (auto it = deadline_of.find(owner.text); it != deadline_of.end()) e.deadline_ms = it->second;
    out->push_back(std::move(e));
  }
  return true;
}

bool is_fair_call(const ScriptCall& call) { return !call.params.line.empty() && !call.params.deadlines.empty(); }

}  // namespace

RealtimeEnv::RealtimeEnv(std::shared_ptr<EventLoop> loop, const ScriptPack& pack, RealtimeEnvOptions options,
                         OnMessage on_message, OnEvent on_event)
    : loop_(std::move(loop)),
      pack_(pack),
      options_(std::move(options)),
      on_message_(std::move(on_message)),
      on_event_(std::move(on_event)),
      alive_(std::make_shared<bool>(true)) {
  assert(loop_ != nullptr);
  assert(!options_.servers.empty());
  servers_.resize(options_.servers.size());
  for (size_t i = 0; i < servers_.size(); ++i) {
    servers_[i].options = options_.servers[i];
    load_scripts(servers_[i]);
    servers_[i].pipe = std::make_unique<RedisPipe>(servers_[i].options);
  }
}

RealtimeEnv::~RealtimeEnv() { close(); }

void RealtimeEnv::close() {
  *alive_ = false;
  for (Server& s : servers_) {
    if (s.subscriber) s.subscriber->close();
    if (s.pipe) s.pipe->close();
  }
}

const std::string& RealtimeEnv::where(int server) const {
  return servers_.at(static_cast<size_t>(server)).pipe->where();
}

// Blocking, on the constructing thread or the loop thread (NOSCRIPT).
void RealtimeEnv::load_scripts(Server& s) {
  RedisConn conn = RedisConn::connect(s.options);
  s.sha.assign(kScriptKindCount, std::string());
  for (ScriptKind kind : all_script_kinds()) {
    const PackScript& script = pack_.script(kind);
    const Reply r = conn.command({"SCRIPT", "LOAD", script.source});
    if (r.is_error()) throw ScriptPackError(script.path + ": Redis rejected the script: " + r.text);
    if (r.kind != Reply::Kind::Bulk) {
      throw RedisError(conn.where() + ": SCRIPT LOAD: unexpected reply " + r.to_string());
    }
    s.sha[static_cast<size_t>(kind)] = r.text;
  }
}

int64_t RealtimeEnv::now_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ClientEnv::TimerId RealtimeEnv::start_timer(int64_t delay_ms, std::function<void()> fire) {
  return loop_->start_timer(delay_ms, std::move(fire));
}

void RealtimeEnv::cancel_timer(TimerId id) { loop_->cancel_timer(id); }

uint64_t RealtimeEnv::new_op_id() {
  last_op_id_ = options_.history ? options_.history->new_op_id() : next_local_op_id_++;
  return last_op_id_;
}

void RealtimeEnv::emit(Event event) {
  event.client = options_.client_index;
  event.local_ms = now_ms();
  if (on_event_) on_event_(event);
  if (options_.history) options_.history->emit(std::move(event));
}

void RealtimeEnv::send_script(int server, const ScriptCall& call, const ScriptTag& tag, int64_t timeout_ms,
                              std::function<void(const ScriptOutcome&)> done) {
  assert(server >= 0 && server < server_count());
  auto req = std::make_shared<ScriptRequest>();
  req->server = server;
  req->call = call;
  req->tag = tag;
  req->done = std::move(done);
  req->timer = loop_->start_timer(timeout_ms, [req] {
    if (req->finished) return;
    req->finished = true;
    ScriptOutcome out;
    out.timed_out = true;
    req->done(out);
  });
  issue(server, req, 0);
}

// On the loop thread: the script's reply (or an error reply) arrived.
void RealtimeEnv::complete(const std::shared_ptr<ScriptRequest>& req, const Reply& reply) {
  if (req->finished) return;  // timed out already: a late reply is dropped
  req->finished = true;
  loop_->cancel_timer(req->timer);
  ScriptOutcome out;
  out.reply = reply;
  if (reply.is_error()) {
    out.reply = Reply::error(where(req->server) + ": EVALSHA " + std::string(script_name(req->call.kind)) + ": " +
                             reply.text);
  }
  req->done(out);
}

Event RealtimeEnv::script_event(int server, const ScriptRequest& req, const std::vector<Reply>& exec) const {
  const ScriptCall& call = req.call;
  Event e;
  e.kind = EventKind::Script;
  e.client = options_.client_index;
  e.server = server;
  e.owner.assign(call.params.owner);
  e.lock.assign(call.params.lock);
  e.op = req.tag.op;
  e.op_id = req.tag.op_id;
  e.script = std::string(script_name(call.kind));
  e.request_id = req.tag.request_id;
  const Reply& reply = exec[kExecScript];
  set_event_reply(reply, &e.reply);
  if (exec[kExecHolders].kind == Reply::Kind::Array) {
    for (const Reply& h : exec[kExecHolders].elements) e.holders_after.push_back(h.text);
    std::sort(e.holders_after.begin(), e.holders_after.end());
  }
  // Server time. Redis 7.0 reads the clock per command, and a script once,
  // when it starts. The probes (PTTL of a key set to expire at a known
  // instant, just before and just after the script) bound the script's clock
  // from both sides: on a loaded machine the server can be descheduled
  // between two commands of one transaction for tens of milliseconds. Where
  // the script's effect shows its own clock it is taken from there, exactly,
  // through the lock's absolute expiry (PEXPIRETIME): an expiry it set
  // (grant, renewal, release still held: expire = t + lease) or a PTTL it
  // answered (refused acquire: reply = expire - t), if that lies within the
  // probes' bounds (else, e.g. a pack that sets another expiry than
  // lease_ms, the clock before the script stands).
  const Reply& probe = exec[kExecProbeTtl];
  const Reply& probe_after = exec[kExecProbeTtlAfter];
  if (probe.is_int() && probe.integer >= 0 && probe_after.is_int() && probe_after.integer >= 0) {
    const int64_t before_ms = req.probe_at_ms - probe.integer;
    const int64_t after_ms = req.probe_at_ms - probe_after.integer;
    e.server_ms = before_ms;
    const Reply& expire = exec[kExecExpireTime];
    if (expire.is_int() && expire.integer >= 0) {
      const bool set_lease =
          (reply.is_nil() && (call.kind == ScriptKind::RlockAcquire || call.kind == ScriptKind::FairAcquire ||
                              call.kind == ScriptKind::FairTryOnce)) ||
          (reply.is_int() && reply.integer == 1 && call.kind == ScriptKind::RlockRenew) ||
          (reply.is_int() && reply.integer == 0 &&
           (call.kind == ScriptKind::RlockRelease || call.kind == ScriptKind::FairRelease ||
            call.kind == ScriptKind::SpinRelease));
      int64_t script_ms = before_ms;
      if (set_lease && call.params.lease_ms > 0) {
        script_ms = expire.integer - call.params.lease_ms;
      } else if (call.kind == ScriptKind::RlockAcquire && reply.is_int() && reply.integer >= 0) {
        script_ms = expire.integer - reply.integer;
      }
      if (script_ms >= before_ms && script_ms <= after_ms) e.server_ms = script_ms;
    }
  }
  if (is_fair_call(call)) e.line_known = read_line(exec[kExecLine], exec[kExecLine + 1], &e.line_after.edit());  // e is new: no entries yet
  set_script_call_fields(call, &e);
  return e;
}

void RealtimeEnv::issue(int server, const std::shared_ptr<ScriptRequest>& req, int attempt) {
  Server& s = servers_[static_cast<size_t>(server)];
  const ScriptArgs args = pack_.build_args(req->call);
  std::vector<std::string> evalsha;
  evalsha.reserve(3 + args.keys.size() + args.argv.size());
  evalsha.push_back("EVALSHA");
  evalsha.push_back(s.sha[static_cast<size_t>(req->call.kind)]);
  evalsha.push_back(std::to_string(args.keys.size()));
  evalsha.insert(evalsha.end(), args.keys.begin(), args.keys.end());
  evalsha.insert(evalsha.end(), args.argv.begin(), args.argv.end());
  std::shared_ptr<EventLoop> loop = loop_;
  std::shared_ptr<bool> alive = alive_;
  // Runs on the loop thread: NOSCRIPT reloads and sends again (once).
  auto finish = [this, loop, alive, server, req, attempt](Reply reply) {
    loop->post([this, alive, server, req, attempt, reply = std::move(reply)] {
      if (!*alive) return;
      if (is_noscript(reply) && attempt == 0 && !req->finished) {
        try {
          load_scripts(servers_[static_cast<size_t>(server)]);
          issue(server, req, attempt + 1);
          return;
        } catch (const std::exception& e) {
          complete(req, Reply::error(std::string("reloading scripts: ") + e.what()));
          return;
        }
      }
      complete(req, reply);
    });
  };
  HistoryRecorder* history = options_.history;
  if (history == nullptr) {
    s.pipe->request({std::move(evalsha)}, [finish](std::vector<Reply> replies, const std::string& error) {
      finish(error.empty() ? std::move(replies[0]) : Reply::error(error));
    });
    return;
  }
  const HistoryRecorder::Bracket b = history->bracket(server);
  const bool fair = is_fair_call(req->call);
  std::vector<std::vector<std::string>> commands;
  // The transaction, in the order of the kExec* indexes.
  req->probe_at_ms = now_ms() + kClockProbeLifeMs;
  commands.push_back({"MULTI"});
  commands.push_back({"SET", kClockProbeKey, "1", "PXAT", std::to_string(req->probe_at_ms)});
  commands.push_back({"PTTL", kClockProbeKey});
  commands.push_back({"PUBLISH", b.channel, b.begin});
  commands.push_back(std::move(evalsha));
  commands.push_back({"PUBLISH", b.channel, b.end});
  commands.push_back({"HKEYS", req->call.params.lock});
  commands.push_back({"PEXPIRETIME", req->call.params.lock});
  commands.push_back({"PTTL", kClockProbeKey});
  if (fair) {
    commands.push_back({"LRANGE", req->call.params.line, "0", "-1"});
    commands.push_back({"ZRANGE", req->call.params.deadlines, "0", "-1", "WITHSCORES"});
  }
  commands.push_back({"EXEC"});
  const size_t in_exec = commands.size() - 2;
  const uint64_t token = b.token;
  s.pipe->request(std::move(commands), [this, history, server, req, token, in_exec, finish](
                                           std::vector<Reply> replies, const std::string& error) {
    // On the pipe's reader thread (or the caller's, when it could not connect).
    if (!error.empty()) {
      history->script_lost(server, token);
      finish(Reply::error(error));
      return;
    }
    const Reply& exec = replies.back();
    if (exec.kind != Reply::Kind::Array || exec.elements.size() != in_exec) {
      history->script_lost(server, token);
      finish(exec.is_error() ? exec : Reply::error("EXEC: unexpected reply " + exec.to_string()));
      return;
    }
    if (is_noscript(exec.elements[kExecScript])) {
      history->script_lost(server, token);  // it did not run
      finish(exec.elements[kExecScript]);
      return;
    }
    Event e = script_event(server, *req, exec.elements);
    Reply reply = exec.elements[kExecScript];
    history->script_done(server, token, std::move(e), [finish, reply] { finish(reply); });
  });
}

void RealtimeEnv::command(int server, std::vector<std::string> argv,
                          std::function<void(Reply, std::string error)> done) {
  Server& s = servers_.at(static_cast<size_t>(server));
  std::shared_ptr<EventLoop> loop = loop_;
  std::shared_ptr<bool> alive = alive_;
  const std::string name = argv.empty() ? std::string() : argv[0];
  const std::string where = s.pipe->where();
  s.pipe->request({std::move(argv)}, [loop, alive, name, where, done = std::move(done)](
                                         std::vector<Reply> replies, const std::string& error) mutable {
    Reply reply = error.empty() ? std::move(replies[0]) : Reply::nil();
    std::string why = error.empty() ? std::string() : where + ": " + name + ": " + error;
    loop->post([alive, done = std::move(done), reply = std::move(reply), why = std::move(why)] {
      if (*alive) done(reply, why);
    });
  });
}

bool RealtimeEnv::ensure_subscriber(int server) {
  Server& s = servers_[static_cast<size_t>(server)];
  if (s.subscriber && s.subscriber->open()) return true;
  if (s.subscriber) {
    s.subscriber->close();
    s.subscriber.reset();
    for (auto& [name, ch] : s.channels) ch = Channel{ch.refs, false, 0, 0};
  }
  std::shared_ptr<EventLoop> loop = loop_;
  std::shared_ptr<bool> alive = alive_;
  try {
    s.subscriber = std::make_unique<RespSocket>(
        s.options,
        [this, loop, alive, server](Reply r) {
          loop->post([this, alive, server, r = std::move(r)] {
            if (*alive) on_subscriber_reply(server, r);
          });
        },
        [this, loop, alive, server](const std::string& /*why*/) {
          // Waiters poll on their own timers; pending subscribes time out.
          loop->post([this, alive, server] {
            if (!*alive) return;
            Server& s = servers_[static_cast<size_t>(server)];
            for (auto& [name, ch] : s.channels) ch = Channel{ch.refs, false, 0, 0};
          });
        });
  } catch (const RedisError&) {
    return false;
  }
  for (auto& [name, ch] : s.channels) {
    if (ch.refs > 0) send_subscriber(server, "SUBSCRIBE", name);
  }
  return true;
}

void RealtimeEnv::send_subscriber(int server, const std::string& verb, const std::string& channel) {
  Server& s = servers_[static_cast<size_t>(server)];
  Channel& ch = s.channels[channel];
  if (verb == "SUBSCRIBE") {
    ch.on_wire = true;
    ++ch.sent;
  } else {
    ch.on_wire = false;
  }
  std::string error;
  if (s.subscriber) s.subscriber->send({{verb, channel}}, &error);
}

ClientEnv::SubscriptionId RealtimeEnv::subscribe(int server, const std::string& channel, int64_t timeout_ms,
                                                 std::function<void(bool ok)> done) {
  assert(server >= 0 && server < server_count());
  const SubscriptionId id = next_subscription_++;
  Subscription sub;
  sub.server = server;
  sub.channel = channel;
  sub.done = std::move(done);
  Server& s = servers_[static_cast<size_t>(server)];
  const bool connected = ensure_subscriber(server);
  Channel& ch = s.channels[channel];
  ++ch.refs;
  if (connected && !ch.on_wire) send_subscriber(server, "SUBSCRIBE", channel);
  sub.target = ch.sent;
  const bool confirmed = connected && ch.on_wire && ch.confirmed >= sub.target;
  auto [it, inserted] = subscriptions_.emplace(id, std::move(sub));
  assert(inserted);
  if (confirmed) {
    it->second.answered = true;
    std::shared_ptr<bool> alive = alive_;
    loop_->post([this, alive, id] {
      if (!*alive) return;
      auto found = subscriptions_.find(id);
      if (found == subscriptions_.end()) return;
      const std::function<void(bool)> done = found->second.done;  // done may unsubscribe (erase its own entry)
      done(true);
    });
  } else {
    it->second.timer = loop_->start_timer(timeout_ms, [this, id] {
      auto found = subscriptions_.find(id);
      if (found == subscriptions_.end() || found->second.answered) return;
      found->second.answered = true;
      const std::function<void(bool)> done = found->second.done;  // done may unsubscribe (erase its own entry)
      done(false);
    });
  }
  return id;
}

void RealtimeEnv::unsubscribe(SubscriptionId id) {
  auto it = subscriptions_.find(id);
  if (it == subscriptions_.end()) return;
  loop_->cancel_timer(it->second.timer);
  const int server = it->second.server;
  const std::string channel = it->second.channel;
  subscriptions_.erase(it);
  Server& s = servers_[static_cast<size_t>(server)];
  Channel& ch = s.channels[channel];
  assert(ch.refs > 0);
  if (--ch.refs == 0) {
    if (ch.on_wire && s.subscriber && s.subscriber->open()) send_subscriber(server, "UNSUBSCRIBE", channel);
    if (ch.sent == ch.confirmed) s.channels.erase(channel);
  }
}

void RealtimeEnv::on_subscriber_reply(int server, const Reply& r) {
  if (r.kind != Reply::Kind::Array || r.elements.size() < 3) return;
  const std::string& kind = r.elements[0].text;
  const std::string& channel = r.elements[1].text;
  Server& s = servers_[static_cast<size_t>(server)];
  if (kind == "subscribe") {
    auto ch = s.channels.find(channel);
    if (ch == s.channels.end()) return;
    ++ch->second.confirmed;
    std::vector<SubscriptionId> ready;
    for (auto& [id, sub] : subscriptions_) {
      if (!sub.answered && sub.server == server && sub.channel == channel && sub.target <= ch->second.confirmed) {
        ready.push_back(id);
      }
    }
    for (SubscriptionId id : ready) {
      auto it = subscriptions_.find(id);
      if (it == subscriptions_.end() || it->second.answered) continue;
      it->second.answered = true;
      loop_->cancel_timer(it->second.timer);
      // A copy: done may unsubscribe, erasing its own entry and the channel.
      const std::function<void(bool)> done = it->second.done;
      done(true);
    }
    ch = s.channels.find(channel);  // the callbacks may have erased it
    if (ch != s.channels.end() && ch->second.refs == 0 && ch->second.sent == ch->second.confirmed &&
        !ch->second.on_wire) {
      s.channels.erase(ch);
    }
    return;
  }
  if (kind == "message") {
    const std::string& payload = r.elements[2].text;
    if (options_.history) {
      Event e;
      e.kind = EventKind::Deliver;
      e.client = options_.client_index;
      e.server = server;
      e.local_ms = now_ms();
      e.published = {channel + " " + payload};
      options_.history->emit(std::move(e));
    }
    if (on_message_) on_message_(channel, payload);
  }
}

}  // namespace locksim
