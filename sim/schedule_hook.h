// ScheduleHook: the choices a World leaves to its caller in schedule mode
// (World::set_schedule) instead of drawing them from the link's random
// generator or taking them from the order of scheduling:
//  - message_fate(): every message on a client's link (a script request or
//    its reply, a subscribe request or its acknowledgement, a pub/sub
//    delivery; an unsubscribe always arrives on time) arrives on time
//    (exactly the link's fixed latency after it was sent), is lost, or
//    arrives late, at a later time the hook names.
//  - pick(): when actions of several actors are due at the same instant,
//    which runs first. An actor is one client's own timers and operations,
//    or one direction of one link (client c to server s; server s's replies
//    to c; s's pub/sub deliveries to c): the actions of one actor at one
//    instant keep the order they were scheduled in (a connection is FIFO).
//    The candidates are the actors' first actions, in a fixed order
//    (World::Candidate).
// Faults are not the hook's: the caller applies them between steps, or a
// plan schedules them (a planned action runs first at its instant, without
// a pick).
// Used by the explorer (search/explore.h), which makes every choice in
// turn, and by replay of an explored counterexample (sim/schedule_replay.h),
// which makes the recorded ones.
#pragma once

#include <cstddef>
#include <cstdint>

namespace locksim {

enum class MessageKind : uint8_t { Request, Reply, Subscribe, SubscribeAck, Delivery };

const char* message_kind_name(MessageKind kind);

struct MessageInfo {
  int client = 0;        // the client whose link carries it
  int server = 0;
  MessageKind kind = MessageKind::Request;
  uint64_t index = 0;    // per client, from 0, in the order the world sends them
  int64_t on_time_us = 0;
};

struct MessageFate {
  enum class Kind : uint8_t { OnTime, Lost, Late };
  Kind kind = Kind::OnTime;
  int64_t arrive_us = 0;  // Late: the arrival, > on_time_us

  static MessageFate on_time() { return MessageFate{}; }
  static MessageFate lost() { return MessageFate{Kind::Lost, 0}; }
  static MessageFate late(int64_t arrive_us) { return MessageFate{Kind::Late, arrive_us}; }
};

class World;

class ScheduleHook {
 public:
  virtual ~ScheduleHook() = default;
  virtual MessageFate message_fate(const World& world, const MessageInfo& message) = 0;
  // 0 <= result < candidates; candidates >= 2.
  virtual size_t pick(const World& world, size_t candidates) = 0;
};

}  // namespace locksim
