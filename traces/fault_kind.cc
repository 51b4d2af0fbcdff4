#include "traces/fault_kind.h"

#include "traces/event.h"

namespace locksim {

bool is_client_fault(FaultKind k) {
  switch (k) {
    case FaultKind::Crash:
    case FaultKind::Pause:
    case FaultKind::Partition:
    case FaultKind::ClientClockJump:
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe:
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::SlowLink:
      return true;
    case FaultKind::ServerClockJump:
    case FaultKind::RedisRestart:
    case FaultKind::Failover:
    case FaultKind::ServerClockDrift:
      return false;
  }
  return false;
}

FaultKind lost_fault_kind(LostMessage::What what) {
  switch (what) {
    case LostMessage::What::Request: return FaultKind::LostRequest;
    case LostMessage::What::Reply: return FaultKind::LostReply;
    case LostMessage::What::Message: return FaultKind::LostMessage;
    case LostMessage::What::Subscribe:
    case LostMessage::What::SubscribeAck:
    case LostMessage::What::None:
      return FaultKind::LostSubscribe;
  }
  return FaultKind::LostSubscribe;
}

std::optional<FaultKind> fault_kind_of(const Event& e) {
  if (e.kind != EventKind::Fault) return std::nullopt;
  switch (e.op) {
    case Op::Crash: return FaultKind::Crash;
    case Op::Pause: return FaultKind::Pause;
    case Op::Partition: return FaultKind::Partition;
    case Op::ClockJump: return e.client >= 0 ? FaultKind::ClientClockJump : FaultKind::ServerClockJump;
    case Op::RedisRestart: return FaultKind::RedisRestart;
    case Op::Failover: return FaultKind::Failover;
    case Op::Lost: return lost_fault_kind(e.lost.what);
    case Op::None:
    case Op::Lock:
    case Op::TryLock:
    case Op::Unlock:
    case Op::ForceUnlock:
    case Op::Renew:
    case Op::AcquireFailed:
    case Op::HoldLost:
    case Op::WatchdogStop:
    case Op::ValidityEnd:
    case Op::Restart:
    case Op::Resume:
    case Op::Heal:
    case Op::Delayed:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace locksim
