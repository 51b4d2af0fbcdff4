// World::digest: the fingerprint of a world's state in schedule mode, for
// the explorer's visited set (search/explore.h). Two worlds with equal
// fingerprints do the same from now on, whatever the absolute time:
//  - every time is taken relative to now: pending actions (true µs after
//    now), pauses and server down times still to run, key expiries and
//    sorted-set scores (redis/store.h), the start of an operation's budget,
//    a fair call's now_ms argument; the clocks by their distance from true
//    time, and now's position within its millisecond (what the clocks
//    round). With clock drift, where the future does depend on the absolute
//    time, now itself is included;
//  - pending entries by what they will do (sim/agenda.h): the
//    dead ones (a crashed incarnation's, a cancelled timer's) are left out;
//    actions due at the same instant are taken in order within one actor
//    and in any order across actors (the hook's pick explores every
//    actor's turn; sim/schedule_hook.h);
//  - counters that only name things (op ids, timer ids, subscription ids,
//    event ids) by rank among what is pending (impl/digest_names.h).
#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "sim/world.h"
#include "sim/world_node.h"

namespace locksim {

namespace {

int64_t rank_in(const std::vector<uint64_t>& sorted, uint64_t id) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), id);
  return it != sorted.end() && *it == id ? it - sorted.begin() : -1;
}

class ClientNames final : public DigestNames {
 public:
  int64_t timer(uint64_t id) const override { return rank_in(*timers, id); }
  int64_t subscription(uint64_t id) const override { return rank_in(*subs, id); }
  int64_t op(uint64_t op_id) const override { return rank_in(*ops, op_id); }

  const std::vector<uint64_t>* timers = nullptr;  // pending timer ids, ascending
  const std::vector<uint64_t>* subs = nullptr;
  const std::vector<uint64_t>* ops = nullptr;     // live op ids, ascending
};

// The number an entry's kind had in the fingerprint before the agenda was
// data (the fingerprints, and so the explorer's counts, stay as they were).
int fingerprint_kind(EntryKind kind) {
  switch (kind) {
    case EntryKind::ClientTimer: return 1;
    case EntryKind::RequestTimeout: return 2;
    case EntryKind::SubscribeTimeout: return 3;
    case EntryKind::Arrival: return 4;
    case EntryKind::Reply: return 5;
    case EntryKind::SubscribeArrival: return 6;
    case EntryKind::SubscribeAck: return 7;
    case EntryKind::UnsubscribeArrival: return 8;
    case EntryKind::Delivery: return 9;
    case EntryKind::Resume: return 10;
    case EntryKind::Heal: return 11;
    case EntryKind::OperationStart: return 12;
    case EntryKind::None:
    case EntryKind::Step:
    case EntryKind::PlannedFault:
    case EntryKind::InjectedFault:
    case EntryKind::RestartClient: return 0;  // never fingerprinted
  }
  return 0;
}

// The calls whose now_ms is the caller's clock (the fair lock's, the faster
// multi-lock's).
bool is_fair_call(ScriptKind kind) {
  return kind == ScriptKind::FairAcquire || kind == ScriptKind::FairTryOnce || kind == ScriptKind::FairRelease ||
         kind == ScriptKind::FairForceRelease || kind == ScriptKind::FasterMultiAcquire ||
         kind == ScriptKind::FasterMultiRelease || kind == ScriptKind::FasterMultiRenew;
}

// The parts of a request that stay while it is queued; the now_ms of a
// fair call is taken relative to its client's clock at digest time.
void add_fixed_call(const ScriptCall& call, StateDigest* d) {
  const ScriptParams& p = call.params;
  d->add(static_cast<int>(call.kind));
  d->add(std::string_view(p.lock));
  d->add(std::string_view(p.owner));
  d->add(std::string_view(p.channel));
  d->add(std::string_view(p.channel_prefix));
  d->add(std::string_view(p.line));
  d->add(std::string_view(p.deadlines));
  d->add(std::string_view(p.latch));
  d->add(std::string_view(p.message));
  d->add(p.lease_ms);
  d->add(p.wait_ms);
  if (!is_fair_call(call.kind)) d->add(p.now_ms);
  d->add(p.latch_ttl_ms);
  if (!p.values.empty()) d->add(std::string_view(p.values));  // a faster multi-lock's
}

}  // namespace

uint64_t World::fixed_request_digest(const ScriptCall& call, const ScriptTag& tag) {
  StateDigest d;
  add_fixed_call(call, &d);
  d.add(op_name(tag.op));  // the name, as the digest took it before ops were typed
  d.add(std::string_view(tag.request_id));
  return d.value();
}

uint64_t World::reply_digest_of(const Reply& reply) {
  StateDigest d;
  d.add(std::string_view(reply.to_string()));
  return d.value();
}

QueueCensus World::digest(StateDigest* out, DigestScratch* scratch) const {
  if (hook_ == nullptr) throw std::logic_error("World::digest needs schedule mode");
  const int clients = client_count();
  const int servers = server_count();
  bool drift = false;
  for (const auto& n : nodes_) drift = drift || n->clock.setup().drift_ppm != 0;
  for (const NodeClock& clock : server_clocks_) drift = drift || clock.setup().drift_ppm != 0;
  out->add(now_us_ % 1000);
  out->add(drift);
  if (drift) out->add(now_us_);

  std::vector<uint64_t>& sub_ids = scratch->subscription_ids;
  sub_ids.clear();
  for (const auto& [id, sub] : subs_) sub_ids.push_back(id);
  scratch->timer_ids.resize(static_cast<size_t>(clients));
  scratch->op_ids.resize(static_cast<size_t>(clients));
  // Per client; on the stack for the few clients an exploration has.
  constexpr int kInlineClients = 4;
  std::array<ClientNames, kInlineClients> inline_names;
  std::vector<ClientNames> more_names(clients > kInlineClients ? static_cast<size_t>(clients) : 0);
  ClientNames* names = clients > kInlineClients ? more_names.data() : inline_names.data();
  for (int c = 0; c < clients; ++c) {
    const Node& n = node(c);
    ClientNames& cn = names[static_cast<size_t>(c)];
    std::vector<uint64_t>& timers = scratch->timer_ids[static_cast<size_t>(c)];
    std::vector<uint64_t>& ops = scratch->op_ids[static_cast<size_t>(c)];
    timers.clear();
    ops.clear();
    cn.subs = &sub_ids;
    cn.timers = &timers;
    cn.ops = &ops;
    cn.now_ms = n.clock.local_ms(now_us_);
    if (!n.alive) continue;
    n.live_timers.for_each([&timers](uint64_t id) { timers.push_back(id); });
    n.client->live_op_ids(&ops);
    if (n.group) {  // the multi-lock client's ids share the node's op id space
      std::vector<uint64_t>& group_ops = scratch->group_op_ids;
      n.group->live_op_ids(&group_ops);
      const size_t plain = ops.size();
      ops.insert(ops.end(), group_ops.begin(), group_ops.end());
      std::inplace_merge(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(plain), ops.end());
    }
  }

  for (int c = 0; c < clients; ++c) {
    const Node& n = node(c);
    out->add(n.alive);
    out->add(n.incarnation);
    out->add(std::max<int64_t>(0, n.paused_until_us - now_us_));
    out->add(n.clock.local_us(now_us_) - now_us_);
    out->add(link_down(c));
    if (!n.alive) continue;
    n.client->digest(names[static_cast<size_t>(c)], out);
    if (n.group) n.group->digest(names[static_cast<size_t>(c)], out);
  }
  for (int s = 0; s < servers; ++s) {
    const int64_t server_us = server_clocks_[static_cast<size_t>(s)].local_us(now_us_);
    out->add(server_us - now_us_);
    out->add(std::max<int64_t>(0, server_down_until_us_[static_cast<size_t>(s)] - now_us_));
    if (!backend_.digest(s, server_us, out)) {
      throw std::logic_error("World::digest: the " + backend_.name() + " backend cannot be fingerprinted");
    }
  }
  out->add(static_cast<uint64_t>(subs_.size()));
  for (const auto& [id, sub] : subs_) {
    out->add(sub.client);
    out->add(sub.server);
    out->add(std::string_view(sub.channel));
    out->add(sub.active);
  }
  for (const auto& server : channels_) {
    out->add(static_cast<uint64_t>(server.size()));
    for (const auto& [channel, counts] : server) {
      out->add(std::string_view(channel));
      out->add(static_cast<uint64_t>(counts.size()));
      for (const auto& [c, count] : counts) {
        out->add(c);
        out->add(count);
      }
    }
  }

  std::vector<DigestScratch::QueuedItem>& items = scratch->items;
  items.clear();
  size_t dead = 0;
  for_each_queued([&](int64_t at_us, uint64_t order, const QueueGuard& guard, const AgendaEntry& entry) {
    if (entry_state(guard, entry) == EntryState::Dead) {
      ++dead;
      return;
    }
    const EntryKind kind = entry_kind(entry);
    StateDigest what;
    what.add(static_cast<int>(fingerprint_kind(kind)));
    const int c = guard.client >= 0 ? guard.client : entry_client(entry);
    const ClientNames* cn = c >= 0 && c < clients ? &names[static_cast<size_t>(c)] : nullptr;
    auto add_request = [&](const ScriptRequest& r) {
      what.add(r.fixed_digest);
      if (is_fair_call(r.call.kind)) what.add(r.call.params.now_ms - cn->now_ms);
      what.add(cn->op(r.tag.op_id));
      what.add(r.finished);
      what.add(cn->timer(r.timer));
    };
    auto current = [&](uint64_t incarnation) { return node(c).incarnation == incarnation; };
    switch (kind) {
      case EntryKind::ClientTimer:
        what.add(c);
        what.add(cn->timer(std::get<agenda::ClientTimer>(entry).timer));
        break;
      case EntryKind::RequestTimeout: {
        const auto& e = std::get<agenda::RequestTimeout>(entry);
        what.add(c);
        what.add(cn->timer(e.timer));
        add_request(*e.request);
        break;
      }
      case EntryKind::SubscribeTimeout: {
        const auto& e = std::get<agenda::SubscribeTimeout>(entry);
        what.add(c);
        what.add(cn->timer(e.timer));
        what.add(cn->subscription(e.request->id));
        what.add(e.request->finished);
        break;
      }
      case EntryKind::Arrival: {
        const auto& e = std::get<agenda::Arrival>(entry);
        what.add(c);
        what.add(e.server);
        what.add(current(e.incarnation));
        add_request(*e.request);
        break;
      }
      case EntryKind::Reply: {
        const auto& e = std::get<agenda::ReplyBack>(entry);
        what.add(c);
        what.add(e.server);
        what.add(current(e.incarnation));
        add_request(*e.request);
        what.add(e.request->reply_digest);
        break;
      }
      case EntryKind::SubscribeArrival:
      case EntryKind::SubscribeAck: {
        const bool arrival = kind == EntryKind::SubscribeArrival;
        const auto* in = std::get_if<agenda::SubscribeArrival>(&entry);
        const auto* back = std::get_if<agenda::SubscribeAck>(&entry);
        const int server = arrival ? in->server : back->server;
        const uint64_t incarnation = arrival ? in->incarnation : back->incarnation;
        const uint64_t subscription = arrival ? in->subscription : back->subscription;
        const SubscribeRequest& r = arrival ? *in->request : *back->request;
        what.add(c);
        what.add(server);
        what.add(current(incarnation));
        what.add(cn->subscription(subscription));
        what.add(r.finished);
        what.add(cn->timer(r.timer));
        break;
      }
      case EntryKind::UnsubscribeArrival: {
        const auto& e = std::get<agenda::UnsubscribeArrival>(entry);
        what.add(c);
        what.add(e.subscription.server);
        what.add(current(e.incarnation));
        what.add(e.channel_digest);
        break;
      }
      case EntryKind::Delivery: {
        const auto& e = std::get<agenda::Delivery>(entry);
        what.add(c);
        what.add(e.server);
        what.add(e.message_digest);
        break;
      }
      case EntryKind::Resume: {
        const auto& e = std::get<agenda::Resume>(entry);
        what.add(c);
        what.add(e.until_us - now_us_);
        what.add(current(e.incarnation));
        what.add(node(c).paused_until_us == e.until_us);
        break;
      }
      case EntryKind::Heal:
        what.add(c);
        what.add(partition_gen_.at(static_cast<size_t>(c)) == std::get<agenda::Heal>(entry).generation);
        break;
      case EntryKind::OperationStart:
        what.add(c);
        what.add(std::get<agenda::OperationStart>(entry).name);
        break;
      case EntryKind::None:
      case EntryKind::Step:
      case EntryKind::PlannedFault:
      case EntryKind::InjectedFault:
      case EntryKind::RestartClient:
        throw std::logic_error("World::digest: a queued entry it cannot fingerprint (kind " +
                               std::to_string(static_cast<int>(kind)) + ")");
    }
    items.push_back(DigestScratch::QueuedItem{at_us - now_us_, actor_of(entry, guard), order, what.value()});
  });
  std::sort(items.begin(), items.end());
  out->add(static_cast<uint64_t>(items.size()));
  for (const DigestScratch::QueuedItem& item : items) {
    out->add(item.rel_us);
    out->add(item.actor);
    out->add(item.what);
  }
  return QueueCensus{items.size(), dead};
}

}  // namespace locksim
