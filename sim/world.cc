#include "sim/world.h"

#include <cassert>
#include <optional>
#include <algorithm>
#include <cstdio>
#include <cstddef>
#include <utility>

#include "impl/script_event_fields.h"
#include "model/faster_multi_fields.h"
#include "sim/world_node.h"
#include "sim/replicated_backend.h"

namespace locksim {

// The ClientEnv of one client node, backed by the world's agenda: what the
// client hands over is kept as data (its timer callbacks in the node's
// table of live timers, a request's callback in its record) and the queued
// entries name it.
class World::NodeEnv final : public ClientEnv {
 public:
  NodeEnv(World& world, int c) : world_(world), c_(c) {}

  int64_t now_ms() const override { return world_.node(c_).clock.local_ms(world_.now_us_); }

  TimerId start_timer(int64_t delay_ms, std::function<void()> fire) override {
    const TimerId id = arm_timer(delay_ms, std::move(fire));
    world_.schedule(timer_due_us(delay_ms), agenda::ClientTimer{c_, id});
    return id;
  }

  void cancel_timer(TimerId id) override { world_.node(c_).live_timers.erase(id); }

  void send_script(int server, const ScriptCall& call, const ScriptTag& tag, int64_t timeout_ms,
                   std::function<void(const ScriptOutcome&)> done) override {
    assert(server >= 0 && server < world_.server_count());
    // One pooled record per request, named by its queued entries; the call
    // is copied into buffers that earlier requests left.
    ScriptRequestRef pending = world_.script_requests_.acquire();
    pending->finished = false;
    pending->spared = false;
    pending->done = std::move(done);
    pending->call = call;
    pending->tag = tag;
    if (world_.hook_ != nullptr) pending->fixed_digest = fixed_request_digest(call, tag);
    // The timeout runs only while its timer is live, i.e. while the request
    // is unfinished and its client has not crashed: `unfinished` holds the
    // record until then.
    pending->timer = arm_timer(timeout_ms, nullptr);
    world_.schedule(timer_due_us(timeout_ms), agenda::RequestTimeout{c_, pending->timer, &*pending});
    Node& n = world_.node(c_);
    n.unfinished.push_back(pending);
    const uint64_t incarnation = n.incarnation;
    if (world_.link_down(c_)) {
      world_.stats_.messages_lost++;
      return;
    }
    int64_t arrive_us = 0;
    auto what = [&call] { return LostMessage::request(script_name(call.kind), call.params.lock); };
    if (world_.hook_ != nullptr) {
      if (!world_.scheduled_fate(c_, server, MessageKind::Request, what, call.params.lock, &arrive_us)) return;
    } else {
      const LinkDraw draw = world_.random_loss(c_, what);
      if (draw == LinkDraw::Lost) {
        world_.record_lost(c_, what(), call.params.lock);
        return;
      }
      pending->spared = draw == LinkDraw::Spared;
      arrive_us = world_.now_us_ + world_.link_delay_us(c_, pending->spared);
    }
    world_.schedule(arrive_us, agenda::Arrival{c_, server, incarnation, std::move(pending)});
  }

  SubscriptionId subscribe(int server, const std::string& channel, int64_t timeout_ms,
                           std::function<void(bool)> done) override {
    auto pending = std::make_shared<SubscribeRequest>();
    pending->done = std::move(done);
    const SubscriptionId id = world_.next_sub_id_++;
    pending->id = id;
    const int64_t delay_ms = timeout_ms > 0 ? timeout_ms : 0;
    pending->timer = arm_timer(delay_ms, nullptr);
    world_.schedule(timer_due_us(delay_ms), agenda::SubscribeTimeout{c_, pending->timer, pending});
    world_.subs_[id] = Subscription{c_, server, channel, false};
    Node& n = world_.node(c_);
    const uint64_t incarnation = n.incarnation;
    if (world_.link_down(c_)) {
      world_.stats_.messages_lost++;
      return id;
    }
    int64_t arrive_us = 0;
    bool spared = false;  // drawn lost but delivered (random_loss): its acknowledgement gets through too
    auto what = [&channel] { return LostMessage::on_channel(LostMessage::What::Subscribe, channel); };
    if (world_.hook_ != nullptr) {
      if (!world_.scheduled_fate(c_, server, MessageKind::Subscribe, what, "", &arrive_us)) return id;
    } else {
      const LinkDraw draw = world_.random_loss(c_, what);
      if (draw == LinkDraw::Lost) {
        world_.record_lost(c_, what(), "");
        return id;
      }
      spared = draw == LinkDraw::Spared;
      arrive_us = world_.now_us_ + world_.link_delay_us(c_, spared);
    }
    world_.schedule(arrive_us, agenda::SubscribeArrival{c_, server, id, incarnation, spared, std::move(pending)});
    return id;
  }

  void unsubscribe(SubscriptionId id) override {
    auto it = world_.subs_.find(id);
    if (it == world_.subs_.end()) return;
    Subscription sub = it->second;
    world_.subs_.erase(it);
    if (!sub.active) return;
    Node& n = world_.node(c_);
    const uint64_t incarnation = n.incarnation;
    // In schedule mode an unsubscribe always arrives on time (it is no message
    // whose fate the hook decides).
    const int64_t arrive_us = world_.now_us_ + (world_.hook_ != nullptr ? world_.config_.link.latency_min_us
                                                                         : world_.link_delay_us(c_, false));
    StateDigest channel_digest;
    channel_digest.add(std::string_view(sub.channel));
    world_.schedule(arrive_us, agenda::UnsubscribeArrival{std::move(sub), incarnation, channel_digest.value()});
  }

  uint64_t new_op_id() override { return world_.next_op_id_++; }

  void emit(Event event) override {
    event.client = c_;
    event.local_ms = now_ms();
    world_.emit(std::move(event));
  }

  // The client's hold on a finished request's record (after its callback:
  // a request the callback sends takes another record).
  void drop_unfinished(const ScriptRequest* record) {
    std::vector<ScriptRequestRef>& held = world_.node(c_).unfinished;
    for (size_t i = 0; i < held.size(); ++i) {
      if (&*held[i] == record) {
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
    }
    assert(false && "a finished request its client did not hold");
  }

  // Calls the request's callback once; the pooled record keeps no captures.
  static void finish(ScriptRequest& request, const ScriptOutcome& out) {
    std::function<void(const ScriptOutcome&)> done = std::move(request.done);
    request.done = nullptr;
    done(out);
  }

 private:
  // A new live timer of this client (with the client's callback, or none
  // for the World's own timeouts); its entry is scheduled by the caller.
  TimerId arm_timer(int64_t delay_ms, std::function<void()> fire) {
    assert(delay_ms >= 0);
    Node& n = world_.node(c_);
    const TimerId id = n.next_timer++;
    n.live_timers.insert(id, std::move(fire));
    return id;
  }
  int64_t timer_due_us(int64_t delay_ms) const {
    return world_.now_us_ + world_.node(c_).clock.true_delay_us(delay_ms * 1000);
  }

  World& world_;
  int c_;
};

namespace {
// *out = the backend's line in event form, reusing out's entries.
void line_to_event_form(const std::vector<LineWaiter>& line, std::vector<LineEntry>* out) {
  out->resize(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    (*out)[i].owner = line[i].owner;
    (*out)[i].deadline_ms = line[i].deadline_ms;
  }
}

// With replica lags on an in-process backend (model, lua): the backend
// wrapped so that each server has a replica, a new backend of the same
// scripts (Backend::new_replicas). Any other backend runs its replicas
// itself (Backend::configure_server_faults, e.g. real replicas on the live
// backend) or refuses them.
std::unique_ptr<ReplicatedBackend> replicate(const WorldConfig& config, Backend& backend) {
  if (!config.server_faults.replica_lag_ms.empty()) {
    if (std::unique_ptr<Backend> replicas = backend.new_replicas()) {
      return std::make_unique<ReplicatedBackend>(backend, std::move(replicas), config.server_faults.replica_lag_ms);
    }
  }
  backend.configure_server_faults(config.server_faults);  // a no-op on the in-process backends
  return nullptr;
}
}  // namespace

World::World(WorldConfig config, Backend& backend, EventSink& sink)
    : config_(std::move(config)), replicated_(replicate(config_, backend)),
      backend_(replicated_ ? static_cast<Backend&>(*replicated_) : backend), sink_(sink),
      uuid_rng_(Rng(config_.seed).split("uuid")) {
  assert(config_.clients >= 1);
  const int servers = backend_.server_count();
  assert(servers >= 1);
  assert(config_.client_clocks.empty() || static_cast<int>(config_.client_clocks.size()) == config_.clients);
  assert(config_.server_clocks.empty() || static_cast<int>(config_.server_clocks.size()) == servers);
  const Rng net = Rng(config_.seed).split("net");
  for (int c = 0; c < config_.clients; ++c) {
    auto n = std::make_unique<Node>();
    n->index = c;
    n->clock = NodeClock(config_.client_clocks.empty() ? ClockSetup{} : config_.client_clocks[c]);
    n->net_rng = net.split(static_cast<uint64_t>(c));
    n->spare_rng = n->net_rng.split("spared");
    nodes_.push_back(std::move(n));
  }
  for (int s = 0; s < servers; ++s) {
    server_clocks_.emplace_back(config_.server_clocks.empty() ? ClockSetup{} : config_.server_clocks[s]);
  }
  partition_gen_.assign(config_.clients, 0);
  server_down_until_us_.assign(static_cast<size_t>(servers), 0);
  channels_.resize(servers);
  line_copies_.resize(static_cast<size_t>(servers));
  for (int c = 0; c < config_.clients; ++c) start_client(c);
}

World::~World() = default;

uint64_t World::messages_sent(int c) const { return node(c).messages; }

bool World::client_alive(int c) const { return nodes_.at(c)->alive; }
bool World::client_paused(int c) const { return nodes_.at(c)->paused_until_us > now_us_; }

LockClient& World::client(int c) {
  Node& n = node(c);
  assert(n.alive && n.client);
  return *n.client;
}

MultiLockClient& World::group_client(int c) {
  Node& n = node(c);
  assert(n.alive && n.group);
  return *n.group;
}

int64_t World::client_local_ms(int c) const { return nodes_.at(c)->clock.local_ms(now_us_); }
int64_t World::server_now_us(int s) const { return server_clocks_.at(s).local_us(now_us_); }

std::string World::make_uuid(int c) {
  Node& n = node(c);
  Rng r = uuid_rng_.split(static_cast<uint64_t>(c)).split(n.incarnation);
  const uint64_t a = r.next_u64();
  const uint64_t b = r.next_u64();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

void World::start_client(int c) {
  Node& n = node(c);
  assert(!n.alive);
  n.incarnation += 1;
  n.alive = true;
  n.paused_until_us = 0;
  n.live_timers.clear();
  n.uuid = make_uuid(c);
  n.env = std::make_unique<NodeEnv>(*this, c);
  ClientConfig cc = config_.client;
  cc.client_uuid = n.uuid;
  n.client = std::make_unique<LockClient>(*n.env, cc);
  if (config_.groups) n.group = std::make_unique<MultiLockClient>(*n.env, cc, config_.group_options);
}

namespace {
Event fault_event(Op op, int target) {
  Event e;
  e.kind = EventKind::Fault;
  e.op = op;
  e.target = target;
  return e;
}
}  // namespace

void World::set_task_runner(TaskRunner* runner) {
  assert(runner_ == nullptr && stats_.actions == 0 && "one task runner, set before the first step");
  runner_ = runner;
}

void World::at_step(int64_t at_us, TaskStep step) {
  assert(runner_ != nullptr);
  schedule(at_us, agenda::Step{step});
}

void World::after_step(int64_t delay_ms, TaskStep step) {
  assert(delay_ms >= 0 && step.client >= 0);
  at_step(now_us_ + node(step.client).clock.true_delay_us(delay_ms * 1000), step);
}

void World::at_operation(int64_t at_us, TaskStep step, uint64_t name) {
  assert(runner_ != nullptr && step.client >= 0);
  schedule(at_us, agenda::OperationStart{step, name});
}

void World::plan_fault(const FaultAction& f) { schedule(f.at_us, agenda::PlannedFault{f}); }

void World::inject_fault(const FaultAction& f) { schedule(f.at_us, agenda::InjectedFault{f}); }

void World::schedule(int64_t at_us, AgendaEntry&& entry) {
  assert(at_us >= now_us_);
  const QueueGuard guard = guard_of(entry);
  switch (entry_kind(entry)) {
    case EntryKind::PlannedFault: queue_.push(kPlanLane, at_us, std::move(entry), guard); return;
    case EntryKind::RequestTimeout: queue_.push(kRequestTimeoutLane, at_us, std::move(entry), guard); return;
    default: queue_.push(at_us, std::move(entry), guard); return;
  }
}

QueueGuard World::guard_of(const AgendaEntry& entry) const {
  auto current = [this](int c) { return QueueGuard{c, node(c).incarnation}; };
  switch (entry_kind(entry)) {
    case EntryKind::ClientTimer: return current(std::get<agenda::ClientTimer>(entry).client);
    case EntryKind::RequestTimeout: return current(std::get<agenda::RequestTimeout>(entry).client);
    case EntryKind::SubscribeTimeout: return current(std::get<agenda::SubscribeTimeout>(entry).client);
    case EntryKind::Reply: {
      const auto& e = std::get<agenda::ReplyBack>(entry);
      return QueueGuard{e.client, e.incarnation};  // the sender's incarnation, not today's
    }
    case EntryKind::SubscribeAck: {
      const auto& e = std::get<agenda::SubscribeAck>(entry);
      return QueueGuard{e.client, e.incarnation};
    }
    case EntryKind::Delivery: return current(std::get<agenda::Delivery>(entry).client);
    case EntryKind::Step: {
      const int c = std::get<agenda::Step>(entry).step.client;
      return c >= 0 ? current(c) : QueueGuard{};
    }
    case EntryKind::OperationStart: return current(std::get<agenda::OperationStart>(entry).step.client);
    case EntryKind::None:
    case EntryKind::Arrival:
    case EntryKind::SubscribeArrival:
    case EntryKind::UnsubscribeArrival:
    case EntryKind::Resume:
    case EntryKind::Heal:
    case EntryKind::PlannedFault:
    case EntryKind::InjectedFault:
    case EntryKind::RestartClient: return QueueGuard{};
  }
  return QueueGuard{};
}

int entry_client(const AgendaEntry& entry) {
  struct Client {
    int operator()(const std::monostate&) const { return -1; }
    int operator()(const agenda::ClientTimer& e) const { return e.client; }
    int operator()(const agenda::RequestTimeout& e) const { return e.client; }
    int operator()(const agenda::SubscribeTimeout& e) const { return e.client; }
    int operator()(const agenda::Arrival& e) const { return e.client; }
    int operator()(const agenda::ReplyBack& e) const { return e.client; }
    int operator()(const agenda::SubscribeArrival& e) const { return e.client; }
    int operator()(const agenda::SubscribeAck& e) const { return e.client; }
    int operator()(const agenda::UnsubscribeArrival& e) const { return e.subscription.client; }
    int operator()(const agenda::Delivery& e) const { return e.client; }
    int operator()(const agenda::Resume& e) const { return e.client; }
    int operator()(const agenda::Heal& e) const { return e.client; }
    int operator()(const agenda::Step& e) const { return e.step.client; }
    int operator()(const agenda::OperationStart& e) const { return e.step.client; }
    int operator()(const agenda::PlannedFault&) const { return -1; }
    int operator()(const agenda::InjectedFault&) const { return -1; }
    int operator()(const agenda::RestartClient& e) const { return e.client; }
  };
  return std::visit(Client{}, entry);
}

void World::run_entry(AgendaEntry& entry) {
  switch (entry_kind(entry)) {
    case EntryKind::None: assert(false && "running a free slot"); return;
    case EntryKind::ClientTimer: run(std::get<agenda::ClientTimer>(entry)); return;
    case EntryKind::RequestTimeout: run(std::get<agenda::RequestTimeout>(entry)); return;
    case EntryKind::SubscribeTimeout: run(std::get<agenda::SubscribeTimeout>(entry)); return;
    case EntryKind::Arrival: run(std::get<agenda::Arrival>(entry)); return;
    case EntryKind::Reply: run(std::get<agenda::ReplyBack>(entry)); return;
    case EntryKind::SubscribeArrival: run(std::get<agenda::SubscribeArrival>(entry)); return;
    case EntryKind::SubscribeAck: run(std::get<agenda::SubscribeAck>(entry)); return;
    case EntryKind::UnsubscribeArrival: run(std::get<agenda::UnsubscribeArrival>(entry)); return;
    case EntryKind::Delivery: run(std::get<agenda::Delivery>(entry)); return;
    case EntryKind::Resume: run(std::get<agenda::Resume>(entry)); return;
    case EntryKind::Heal: run(std::get<agenda::Heal>(entry)); return;
    case EntryKind::Step: runner_->run_step(std::get<agenda::Step>(entry).step); return;
    case EntryKind::OperationStart: runner_->run_step(std::get<agenda::OperationStart>(entry).step); return;
    case EntryKind::PlannedFault: apply_fault(std::get<agenda::PlannedFault>(entry).fault); return;
    case EntryKind::InjectedFault: apply_fault(std::get<agenda::InjectedFault>(entry).fault); return;
    case EntryKind::RestartClient: restart(std::get<agenda::RestartClient>(entry).client); return;
  }
}

void World::run(agenda::ClientTimer& e) {
  std::function<void()> fire;
  if (node(e.client).live_timers.erase(e.timer, &fire) && fire) fire();
}

void World::run(agenda::RequestTimeout& e) {
  Node& n = node(e.client);
  if (!n.live_timers.erase(e.timer)) return;
  auto* record = const_cast<ScriptRequest*>(e.request);  // held by n.unfinished while the timer is live
  if (record->finished) return;
  record->finished = true;
  ScriptOutcome out;
  out.timed_out = true;
  NodeEnv::finish(*record, out);
  n.env->drop_unfinished(record);
}

void World::run(agenda::SubscribeTimeout& e) {
  if (!node(e.client).live_timers.erase(e.timer)) return;
  SubscribeRequest& pending = *e.request;
  if (pending.finished) return;
  pending.finished = true;
  pending.done(false);
}

void World::run(agenda::Arrival& e) {
  ScriptRequest& pending = *e.request;
  int64_t back_us = 0;
  if (!execute_at_server(e.client, e.server, pending.call, pending.tag, &pending.reply, &back_us, pending.spared))
    return;
  if (hook_ != nullptr) pending.reply_digest = reply_digest_of(pending.reply);
  schedule(back_us, agenda::ReplyBack{e.client, e.server, e.incarnation, std::move(e.request)});
}

void World::run(agenda::ReplyBack& e) {
  if (link_down(e.client)) {
    stats_.messages_lost++;
    return;
  }
  ScriptRequest& pending = *e.request;
  if (pending.finished) return;  // late reply after a timeout
  pending.finished = true;
  Node& n = node(e.client);
  n.live_timers.erase(pending.timer);
  ScriptOutcome out;
  out.reply = std::move(pending.reply);
  NodeEnv::finish(pending, out);
  n.env->drop_unfinished(&pending);
}

void World::run(agenda::SubscribeArrival& e) {
  auto it = subs_.find(e.subscription);
  if (it == subs_.end()) return;  // cancelled before it arrived, or crashed
  if (link_down(e.client)) return;
  it->second.active = true;
  channels_[it->second.server][it->second.channel][e.client] += 1;
  int64_t back_us = 0;
  auto what = [&it] { return LostMessage::on_channel(LostMessage::What::SubscribeAck, it->second.channel); };
  if (hook_ != nullptr) {
    if (!scheduled_fate(e.client, e.server, MessageKind::SubscribeAck, what, "", &back_us)) return;
  } else {
    const LinkDraw ack = e.spared ? LinkDraw::Spared : random_loss(e.client, what);
    if (ack == LinkDraw::Lost) {
      record_lost(e.client, what(), "");
      return;
    }
    back_us = now_us_ + link_delay_us(e.client, ack == LinkDraw::Spared);
  }
  schedule(back_us, agenda::SubscribeAck{e.client, e.server, e.subscription, e.incarnation, e.request});
}

void World::run(agenda::SubscribeAck& e) {
  if (link_down(e.client)) return;
  SubscribeRequest& pending = *e.request;
  if (pending.finished) return;
  pending.finished = true;
  node(e.client).live_timers.erase(pending.timer);
  pending.done(true);
}

void World::run(agenda::UnsubscribeArrival& e) {
  const Subscription& sub = e.subscription;
  if (node(sub.client).incarnation != e.incarnation) return;  // crash dropped it already
  auto& clients = channels_[sub.server][sub.channel];
  auto it = clients.find(sub.client);
  if (it == clients.end()) return;
  if (--it->second == 0) clients.erase(it);
  if (clients.empty()) channels_[sub.server].erase(sub.channel);
}

void World::run(agenda::Delivery& e) {
  if (link_down(e.client)) {
    stats_.messages_lost++;
    return;
  }
  Node& n = node(e.client);
  Event d;
  d.kind = EventKind::Deliver;
  d.client = e.client;
  d.server = e.server;
  d.local_ms = n.clock.local_ms(now_us_);
  d.published.push_back(e.message.channel + " " + e.message.payload);
  emit(std::move(d));
  n.client->on_message(e.message.channel, e.message.payload);
  if (n.group) n.group->on_message(e.message.channel, e.message.payload);
}

void World::run(agenda::Resume& e) {
  Node& n = node(e.client);
  if (!n.alive || n.incarnation != e.incarnation || n.paused_until_us != e.until_us) return;
  Event r = fault_event(Op::Resume, e.client);
  r.client = e.client;
  r.local_ms = n.clock.local_ms(now_us_);
  emit(std::move(r));
}

void World::run(agenda::Heal& e) {
  uint64_t& gen = partition_gen_.at(e.client);
  if (gen != e.generation) return;
  gen += 1;  // up
  Event h = fault_event(Op::Heal, e.client);
  h.client = e.client;
  emit(std::move(h));
}

bool World::link_down(int c) const { return (partition_gen_.at(c) & 1) != 0; }

bool World::execute_at_server(int c, int s, const ScriptCall& call, const ScriptTag& tag, Reply* reply,
                              int64_t* back_us, bool spared) {
  if (link_down(c)) {
    stats_.messages_lost++;
    return false;
  }
  if (server_down(s)) {
    // Connection refused: answered at once, nothing runs.
    *reply = Reply::error("ERR connection refused (server " + std::to_string(s) + " is restarting)");
    if (hook_ != nullptr) {
      auto what = [&call] { return LostMessage::reply(script_name(call.kind), call.params.lock); };
      return scheduled_fate(c, s, MessageKind::Reply, what, call.params.lock, back_us);
    }
    *back_us = now_us_ + link_delay_us(c, spared);
    return true;
  }
  const int64_t server_us = server_clocks_[s].local_us(now_us_);
  // The result and the event are reused from script to script: their
  // strings and vectors keep their buffers (a fair line is ~40 owner ids).
  // A fair line already held in event form (line_copies_) need not be copied
  // into the result again: the held token tells the backend so.
  LineCopy* held_line = nullptr;
  if (!call.params.line.empty()) held_line = &line_copies_[static_cast<size_t>(s)][call.params.line];
  script_result_.line_token = held_line != nullptr ? held_line->token : 0;
  backend_.execute_into(s, call, server_us, &script_result_);
  const ExecResult& result = script_result_;
  stats_.scripts++;
  Event& e = script_event_;
  reset_keeping_storage(&e);
  e.kind = EventKind::Script;
  e.client = c;
  e.server = s;
  e.owner.assign(call.params.owner);
  e.lock.assign(call.params.lock);
  e.op = tag.op;
  e.op_id = tag.op_id;
  e.script.assign(script_name(call.kind));
  e.request_id = tag.request_id;
  set_event_reply(result.reply, &e.reply);
  e.error_declared = result.error_declared;
  e.server_ms = server_us >= 0 ? server_us / 1000 : -((-server_us + 999) / 1000);
  e.holders_after.assign(result.holders_after.begin(), result.holders_after.end());
  // A design with fresh tokens: the server holds tokens, the history owners.
  if (!call.params.token.empty() && call.params.token != call.params.owner) {
    token_owner_.try_emplace(call.params.token, call.params.owner);
    e.token = call.params.token;
  }
  if (!token_owner_.empty()) {
    for (std::string& h : e.holders_after) {
      if (const auto it = token_owner_.find(h); it != token_owner_.end()) h = it->second;
    }
    std::sort(e.holders_after.begin(), e.holders_after.end());
  }
  e.line_known = result.line_known;
  // A line the backend names by a token is copied once per token into
  // line_copies_ and shared with the events that carry it.
  if (result.line_known && result.line_token != 0) {
    assert(held_line != nullptr);
    LineCopy& copy = *held_line;
    if (copy.token != result.line_token) {
      // Overwritten in place when no event still shares the old line.
      line_to_event_form(result.line_after, &copy.entries.overwrite());
      copy.token = result.line_token;
    }
    e.line_after = copy.entries;
    e.line_token = LineToken{result.line_token};
  } else if (result.line_known && !result.line_after.empty()) {
    line_to_event_form(result.line_after, &e.line_after.overwrite());
  } else {
    e.line_after.clear();
  }
  e.published.resize(result.published.size());
  for (size_t i = 0; i < result.published.size(); ++i) {
    e.published[i].assign(result.published[i].channel).append(" ").append(result.published[i].payload);
  }
  set_script_call_fields(call, &e);
  bool lose = false;
  if (!tag.value_op_ids.empty()) {
    lose = emit_per_value(call, tag, &e);
  } else {
    lose = lose_reply && lose_reply(e);
    emit_in_place(e);
  }
  // A shared line is let go of, so that the next change of it on this
  // server can overwrite it in place (a sink that kept a copy keeps it).
  if (result.line_token != 0) e.line_after.clear();
  route_published(s, result.published);
  auto what = [&call] { return LostMessage::reply(script_name(call.kind), call.params.lock); };
  if (hook_ != nullptr && !lose) {
    if (!scheduled_fate(c, s, MessageKind::Reply, what, call.params.lock, back_us)) return false;
    *reply = result.reply;
    return true;
  }
  const LinkDraw draw = spared ? LinkDraw::Spared : random_loss(c, what, lose);
  if (draw == LinkDraw::Lost) {
    record_lost(c, what(), call.params.lock);
    return false;
  }
  *back_us = now_us_ + link_delay_us(c, draw == LinkDraw::Spared);
  *reply = result.reply;
  return true;
}

bool World::emit_per_value(const ScriptCall& call, const ScriptTag& tag, Event* e) {
  assert(is_faster_multi_script(call.kind));
  const std::vector<std::string> values = split_values(call.params.values);
  assert(values.size() == tag.value_op_ids.size());
  const std::vector<std::string> fields = e->holders_after;  // the hash's field names
  const std::string group = e->lock.name();
  bool lose = false;
  for (size_t i = 0; i < values.size(); ++i) {
    e->lock.assign(group + "@" + values[i]);
    e->op_id = tag.value_op_ids[i];
    e->holders_after = value_owners(fields, values[i]);
    const bool lost = lose_reply && lose_reply(*e);
    lose = lose || lost;
    emit_in_place(*e);
  }
  e->lock.assign(group);
  return lose;
}

void World::route_published(int s, const std::vector<Published>& published) {
  for (const Published& msg : published) {
    auto ch = channels_[s].find(msg.channel);
    if (ch == channels_[s].end()) continue;
    for (const auto& [c, count] : ch->second) {
      assert(count > 0);
      Node& n = node(c);
      if (!n.alive || link_down(c)) {
        stats_.messages_lost++;
        continue;
      }
      int64_t arrive_us = 0;
      auto what = [&msg] { return LostMessage::on_channel(LostMessage::What::Message, msg.channel); };
      if (hook_ != nullptr) {
        if (!scheduled_fate(c, s, MessageKind::Delivery, what, "", &arrive_us)) continue;
      } else {
        const LinkDraw draw = random_loss(c, what);
        if (draw == LinkDraw::Lost) {
          record_lost(c, what(), "");
          continue;
        }
        arrive_us = now_us_ + link_delay_us(c, draw == LinkDraw::Spared);
      }
      StateDigest message;
      message.add(std::string_view(msg.channel));
      message.add(std::string_view(msg.payload));
      schedule(arrive_us, agenda::Delivery{c, s, msg, message.value()});
    }
  }
}

void World::drop_subscriptions(int c) {
  for (auto it = subs_.begin(); it != subs_.end();) {
    if (it->second.client == c) {
      it = subs_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& server : channels_) {
    for (auto it = server.begin(); it != server.end();) {
      it->second.erase(c);
      if (it->second.empty()) {
        it = server.erase(it);
      } else {
        ++it;
      }
    }
  }
}

void World::emit(Event event) { emit_in_place(event); }

void World::emit_in_place(Event& event) {
  event.id = next_event_id_++;
  event.true_us = now_us_;
  stats_.events++;
  sink_.on_event(event);
}


template <class What>
World::LinkDraw World::random_loss(int c, const What& what, bool forced) {
  const bool drawn = forced || draw_lost(config_.link, node(c).net_rng);
  if (!config_.losses.keyed()) return drawn ? LinkDraw::Lost : LinkDraw::Delivered;
  std::string w = what().text();  // the message as a loss key names it
  last_ordinal_ = ++message_ordinals_[{c, w}];
  if (!config_.losses.lost) return drawn ? LinkDraw::Lost : LinkDraw::Delivered;
  if (config_.losses.lost->count(loss_key(c, w, last_ordinal_)) != 0) return LinkDraw::Lost;
  return drawn ? LinkDraw::Spared : LinkDraw::Delivered;
}

Rng& World::link_rng(int c, bool spared) {
  Node& n = node(c);
  return spared ? n.spare_rng : n.net_rng;
}

int64_t World::link_delay_us(int c, bool spared) {
  const int64_t drawn_us = draw_delay_us(config_.link, link_rng(c, spared));
  if (auto it = config_.steady_links.find(c); it != config_.steady_links.end() && now_us_ >= it->second)
    return config_.link.latency_min_us;
  return drawn_us;
}

void World::record_lost(int c, LostMessage what, const std::string& lock) {
  stats_.messages_lost++;
  Event e = fault_event(Op::Lost, c);
  e.client = c;
  e.lock.assign(lock);
  e.lost = std::move(what);
  if (config_.losses.record) e.value = static_cast<int64_t>(last_ordinal_);  // its message's ordinal
  emit(std::move(e));
}

void World::apply_fault(const FaultAction& f) {
  switch (f.kind) {
    case FaultKind::Crash:
      if (!client_alive(f.target)) return;
      crash(f.target);
      if (f.restart_after_ms >= 0) schedule(now_us_ + f.restart_after_ms * 1000, agenda::RestartClient{f.target});
      return;
    case FaultKind::Pause: pause(f.target, f.duration_ms); return;
    case FaultKind::ClientClockJump: jump_client_clock(f.target, f.duration_ms); return;
    case FaultKind::ServerClockJump: jump_server_clock(f.target, f.duration_ms); return;
    case FaultKind::Partition: partition(f.target, f.duration_ms); return;
    case FaultKind::RedisRestart: redis_restart(f.target); return;
    case FaultKind::Failover: failover(f.target); return;
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe:
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink:
      assert(false && "not a fault a plan's action injects (is_planned_fault)");
      return;
  }
}

void World::crash(int c) {
  Node& n = node(c);
  if (!n.alive) return;
  Event e = fault_event(Op::Crash, c);
  e.client = c;
  e.local_ms = n.clock.local_ms(now_us_);
  emit(std::move(e));
  if (n.group) n.group->crash();
  n.client->crash();
  n.alive = false;
  n.incarnation += 1;  // every pending action of the old process is dropped
  n.live_timers.clear();
  n.unfinished.clear();  // their timeouts will never run
  drop_subscriptions(c);
  // The LockClient's callbacks may still sit in the queue; they are dropped by
  // the incarnation check, never called. Keep the objects until restart.
}

void World::restart(int c) {
  Node& n = node(c);
  if (n.alive) return;
  start_client(c);
  Event e = fault_event(Op::Restart, c);
  e.client = c;
  e.detail = n.uuid;
  e.local_ms = n.clock.local_ms(now_us_);
  emit(std::move(e));
  if (on_client_started) on_client_started(c);
}

void World::pause(int c, int64_t duration_ms) {
  assert(duration_ms >= 0);
  Node& n = node(c);
  if (!n.alive) return;
  Event e = fault_event(Op::Pause, c);
  e.client = c;
  e.duration_ms = duration_ms;
  e.local_ms = n.clock.local_ms(now_us_);
  emit(std::move(e));
  const int64_t until_us = std::max(n.paused_until_us, now_us_ + duration_ms * 1000);
  n.paused_until_us = until_us;
  schedule(until_us, agenda::Resume{c, until_us, n.incarnation});
}

void World::jump_client_clock(int c, int64_t delta_ms) {
  Node& n = node(c);
  n.clock.jump(delta_ms * 1000);
  Event e = fault_event(Op::ClockJump, c);
  e.client = c;
  e.duration_ms = delta_ms;
  e.local_ms = n.clock.local_ms(now_us_);
  emit(std::move(e));
}

void World::jump_server_clock(int s, int64_t delta_ms) {
  server_clocks_.at(s).jump(delta_ms * 1000);
  Event e = fault_event(Op::ClockJump, s);
  e.server = s;
  e.duration_ms = delta_ms;
  emit(std::move(e));
}

void World::partition(int c, int64_t duration_ms) {
  assert(duration_ms >= 0);
  uint64_t& gen = partition_gen_.at(c);
  gen += (gen & 1) == 0 ? 1 : 2;  // down (a new generation: the earlier heal is void)
  Event e = fault_event(Op::Partition, c);
  e.client = c;
  e.duration_ms = duration_ms;
  emit(std::move(e));
  schedule(now_us_ + duration_ms * 1000, agenda::Heal{c, gen});
}

bool World::server_down(int s) const { return now_us_ < server_down_until_us_.at(static_cast<size_t>(s)); }

void World::redis_restart(int s) {
  const ServerFaultConfig& f = config_.server_faults;
  if (f.persistence == Persistence::None) {
    backend_.restart(s);
  } else {
    backend_.restart_keeping_data(s);
  }
  Event e = fault_event(Op::RedisRestart, s);
  e.server = s;
  e.persistence = f.persistence;
  if (f.restart_delay_ms > 0) {
    e.duration_ms = f.restart_delay_ms;
    auto& until = server_down_until_us_.at(static_cast<size_t>(s));
    until = std::max(until, now_us_ + f.restart_delay_ms * 1000);
  }
  emit(std::move(e));
}

void World::failover(int s) {
  const int64_t server_us = server_clocks_.at(s).local_us(now_us_);
  const FailoverResult f = replicated_ ? replicated_->failover(s, server_us) : backend_.failover(s, server_us);
  if (!f.promoted) return;
  Event e = fault_event(Op::Failover, s);
  e.server = s;
  e.duration_ms = f.lag_ms;
  e.value = f.lost_writes;
  e.detail = "replica promoted, replication lag " + std::to_string(f.lag_ms) + " ms, " +
             std::to_string(f.lost_writes) + " scripts not replicated";
  emit(std::move(e));
}

namespace {
// A popped action runs in its slot; the slot is freed (and the action
// destroyed) when the step ends, also if the action throws.
struct SlotRelease {
  EventQueue& queue;
  uint32_t slot;
  ~SlotRelease() { queue.release(slot); }
};
}  // namespace

bool World::step() {
  if (hook_ != nullptr) return step_scheduled();
  if (queue_.empty()) return false;
  const EventQueue::Popped top = queue_.pop();
  assert(top.at_us >= now_us_);
  now_us_ = top.at_us;
  stats_.actions++;
  const SlotRelease release{queue_, top.slot};
  AgendaEntry& entry = queue_.item(top.slot);
  if (top.guard.client >= 0) {  // a client's entry: its process must still run
    const int c = top.guard.client;
    Node& n = node(c);
    if (!n.alive || n.incarnation != top.guard.incarnation) return true;
    if (n.paused_until_us > now_us_) {
      // Deferred to the end of the pause, after the resume, in arrival order.
      queue_.push(n.paused_until_us, std::move(entry), top.guard);
      return true;
    }
  }
  run_entry(entry);
  return true;
}

// ---- schedule mode (sim/schedule_hook.h) ----

const char* message_kind_name(MessageKind kind) {
  switch (kind) {
    case MessageKind::Request: return "request";
    case MessageKind::Reply: return "reply";
    case MessageKind::Subscribe: return "subscribe";
    case MessageKind::SubscribeAck: return "subscribe_ack";
    case MessageKind::Delivery: return "message";
  }
  return "?";
}

void World::set_schedule(ScheduleHook* hook) {
  assert(stats_.actions == 0 && "set_schedule before the first step");
  assert(config_.link.latency_min_us == config_.link.latency_max_us && config_.link.tail_prob == 0 &&
         config_.link.loss_prob == 0 && "schedule mode needs a fixed-latency link without loss");
  assert(!config_.losses.keyed() && "schedule mode decides every message itself");
  hook_ = hook;
}

template <class What>
bool World::scheduled_fate(int c, int s, MessageKind kind, const What& what, const std::string& lock,
                           int64_t* arrive_us) {
  assert(hook_ != nullptr);
  Node& n = node(c);
  MessageInfo m;
  m.client = c;
  m.server = s;
  m.kind = kind;
  m.index = n.messages++;
  m.on_time_us = now_us_ + config_.link.latency_min_us;
  const MessageFate fate = hook_->message_fate(*this, m);
  switch (fate.kind) {
    case MessageFate::Kind::OnTime: *arrive_us = m.on_time_us; return true;
    case MessageFate::Kind::Lost: record_lost(c, what(), lock); return false;
    case MessageFate::Kind::Late: {
      assert(fate.arrive_us > m.on_time_us);
      Event e = fault_event(Op::Delayed, c);
      e.client = c;
      e.lock.assign(lock);
      e.lost = what();
      e.duration_ms = (fate.arrive_us - m.on_time_us + 999) / 1000;
      emit(std::move(e));
      *arrive_us = fate.arrive_us;
      return true;
    }
  }
  return false;
}

World::EntryState World::entry_state(const QueueGuard& guard, const AgendaEntry& entry) const {
  if (guard.client >= 0) {
    const Node& n = node(guard.client);
    if (!n.alive || n.incarnation != guard.incarnation) return EntryState::Dead;
  }
  auto timer_dead = [this](int c, ClientEnv::TimerId id) { return !node(c).live_timers.contains(id); };
  if (const auto* t = std::get_if<agenda::ClientTimer>(&entry); t != nullptr && timer_dead(t->client, t->timer))
    return EntryState::Dead;
  if (const auto* t = std::get_if<agenda::RequestTimeout>(&entry); t != nullptr && timer_dead(t->client, t->timer))
    return EntryState::Dead;
  if (const auto* t = std::get_if<agenda::SubscribeTimeout>(&entry); t != nullptr && timer_dead(t->client, t->timer))
    return EntryState::Dead;
  if (guard.client >= 0 && node(guard.client).paused_until_us > now_us_) return EntryState::Deferred;
  return EntryState::Live;
}

void World::collect_due() {
  due_.clear();
  due_live_.clear();
  queue_.pop_due(&due_);
  assert(due_.front().at_us >= now_us_);
  now_us_ = due_.front().at_us;
  for (const EventQueue::Popped& entry : due_) {
    switch (entry_state(entry.guard, queue_.item(entry.slot))) {
      case EntryState::Dead: queue_.release(entry.slot); break;
      case EntryState::Deferred: {
        // To the end of the pause, after the resume, in arrival order (as step()).
        AgendaEntry moved = std::move(queue_.item(entry.slot));
        queue_.release(entry.slot);
        queue_.push(node(entry.guard.client).paused_until_us, std::move(moved), entry.guard);
        break;
      }
      case EntryState::Live: due_live_.push_back(entry); break;
    }
  }
}

int64_t World::actor_of(const AgendaEntry& entry, const QueueGuard& guard) {
  // class * 2^32 + client * 2^8 + server: a client's own entries first, then
  // its links (requests, replies, pub/sub), then the world's.
  int64_t cls = 0;
  int64_t client = guard.client >= 0 ? guard.client : entry_client(entry);
  int64_t server = 0;
  switch (entry_kind(entry)) {
    case EntryKind::Arrival: cls = 1; server = std::get<agenda::Arrival>(entry).server; break;
    case EntryKind::SubscribeArrival: cls = 1; server = std::get<agenda::SubscribeArrival>(entry).server; break;
    case EntryKind::UnsubscribeArrival:
      cls = 1;
      server = std::get<agenda::UnsubscribeArrival>(entry).subscription.server;
      break;
    case EntryKind::Reply: cls = 2; server = std::get<agenda::ReplyBack>(entry).server; break;
    case EntryKind::SubscribeAck: cls = 2; server = std::get<agenda::SubscribeAck>(entry).server; break;
    case EntryKind::Delivery: cls = 3; server = std::get<agenda::Delivery>(entry).server; break;
    case EntryKind::Step: cls = guard.client >= 0 ? 0 : 4; break;
    case EntryKind::None:
    case EntryKind::PlannedFault:
    case EntryKind::InjectedFault:
    case EntryKind::RestartClient: cls = 4; client = 0; break;
    case EntryKind::ClientTimer:
    case EntryKind::RequestTimeout:
    case EntryKind::SubscribeTimeout:
    case EntryKind::Resume:
    case EntryKind::Heal:
    case EntryKind::OperationStart: cls = 0; break;
  }
  if (client < 0) client = 0;
  return (cls << 32) | (client << 8) | server;
}

bool World::take_held_due() {
  if (!due_held_) return false;
  bool still = queue_.earliest_pushed_us() > now_us_;
  for (const EventQueue::Popped& entry : due_live_) {
    still = still && entry.at_us == now_us_ && entry_state(entry.guard, queue_.item(entry.slot)) == EntryState::Live;
  }
  if (still) {
    due_held_ = false;
    return true;
  }
  unhold();
  return false;
}

void World::unhold() {
  if (!due_held_) return;
  for (const EventQueue::Popped& entry : due_live_) queue_.restore(entry);
  due_held_ = false;
}

bool World::step_scheduled() {
  if (!take_held_due()) {
    if (queue_.empty()) return false;
    collect_due();
  }
  if (due_live_.empty()) return true;
  size_t chosen = first_planned_due();
  if (chosen == due_live_.size()) {
    // The first action of each actor, by actor.
    std::vector<std::pair<int64_t, size_t>>& heads = due_heads_;
    heads.clear();
    for (size_t i = 0; i < due_live_.size(); ++i) {
      const int64_t actor = actor_of(queue_.item(due_live_[i].slot), due_live_[i].guard);
      bool seen = false;
      for (const auto& h : heads) seen = seen || h.first == actor;
      if (!seen) heads.emplace_back(actor, i);
    }
    std::sort(heads.begin(), heads.end());
    size_t k = 0;
    if (heads.size() > 1) {
      k = hook_->pick(*this, heads.size());
      assert(k < heads.size());
    }
    chosen = heads[k].second;
  }
  const EventQueue::Popped top = due_live_[chosen];
  due_live_.erase(due_live_.begin() + static_cast<std::ptrdiff_t>(chosen));
  if (!due_live_.empty()) {  // the others, held for the next step
    due_held_ = true;
    queue_.mark_pushes();
  }
  stats_.actions++;
  const SlotRelease release{queue_, top.slot};
  run_entry(queue_.item(top.slot));
  return true;
}

int64_t World::next_live_us(int64_t limit_us) {
  assert(hook_ != nullptr);
  if (due_held_ && now_us_ <= limit_us && take_held_due()) {
    due_held_ = true;  // still the live actions of now: held on
    while (!purged_dead_us_.empty() && purged_dead_us_.top() <= now_us_) purged_dead_us_.pop();
    return now_us_;
  }
  unhold();
  while (!queue_.empty() && queue_.next_at_us() <= limit_us) {
    collect_due();
    if (!due_live_.empty()) {
      due_held_ = true;
      queue_.mark_pushes();
      while (!purged_dead_us_.empty() && purged_dead_us_.top() <= now_us_) purged_dead_us_.pop();
      return now_us_;
    }
  }
  // Nothing live: time ends where the last dead action due by then would
  // have been dropped, purged ones included.
  while (!purged_dead_us_.empty() && purged_dead_us_.top() <= limit_us) {
    now_us_ = std::max(now_us_, purged_dead_us_.top());
    purged_dead_us_.pop();
  }
  return -1;
}

size_t World::first_planned_due() const {
  for (size_t i = 0; i < due_live_.size(); ++i) {
    if (entry_kind(queue_.item(due_live_[i].slot)) == EntryKind::PlannedFault) return i;
  }
  return due_live_.size();
}

bool World::due_pick_pending() const {
  // As step_scheduled() decides: a planned action first, else a pick among
  // the actors due when there are several.
  if (due_live_.size() < 2 || first_planned_due() < due_live_.size()) return false;
  const int64_t first = actor_of(queue_.item(due_live_[0].slot), due_live_[0].guard);
  for (const EventQueue::Popped& entry : due_live_) {
    if (actor_of(queue_.item(entry.slot), entry.guard) != first) return true;
  }
  return false;
}

void World::purge_dead() {
  assert(hook_ != nullptr);
  queue_.remove_if([this](int64_t at_us, uint64_t, const QueueGuard& guard, const AgendaEntry& entry) {
    if (entry_state(guard, entry) != EntryState::Dead) return false;
    purged_dead_us_.push(at_us);
    return true;
  });
}

void World::advance_to(int64_t at_us) {
  assert(hook_ != nullptr);
  assert(at_us >= now_us_);
  now_us_ = at_us;
}

namespace {
bool is_clients_own(EntryKind kind) {
  return kind == EntryKind::ClientTimer || kind == EntryKind::RequestTimeout || kind == EntryKind::SubscribeTimeout ||
         kind == EntryKind::OperationStart || kind == EntryKind::Resume || kind == EntryKind::Heal;
}
}  // namespace

int64_t World::next_deadline_after(int64_t after_us) const {
  int64_t best = -1;
  for_each_queued([&](int64_t at_us, uint64_t, const QueueGuard& guard, const AgendaEntry& entry) {
    if (!is_clients_own(entry_kind(entry)) || entry_state(guard, entry) == EntryState::Dead) return;
    int64_t due_us = at_us;
    if (guard.client >= 0) due_us = std::max(due_us, node(guard.client).paused_until_us);
    if (due_us > after_us && (best < 0 || due_us < best)) best = due_us;
  });
  return best;
}

bool World::client_has_pending(int c) const {
  const Node& n = node(c);
  if (!n.alive) return false;
  if (n.paused_until_us > now_us_) return true;
  bool found = false;
  for_each_queued([&](int64_t, uint64_t, const QueueGuard& guard, const AgendaEntry& entry) {
    if (found) return;
    const int about = guard.client >= 0 ? guard.client : entry_client(entry);
    if (about != c) return;
    if (entry_state(guard, entry) != EntryState::Dead) found = true;
  });
  return found;
}

void World::run_until(int64_t until_us) {
  unhold();
  while (!queue_.empty() && queue_.next_at_us() <= until_us) step();
  if (until_us > now_us_) now_us_ = until_us;
}

}  // namespace locksim
