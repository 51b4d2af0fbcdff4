// RedisLockClient: the lock client as a blocking, thread-safe C++ library on
// a real Redis (lock-semantics.md sections 2-3), in the spirit of Redisson:
//
//   RedisLockClient client(RedisLockClientOptions{});   // 127.0.0.1:6379
//   RLock lock = client.get_lock("orders");
//   lock.lock();            // waits; the watchdog renews the lease while held
//   ...                     // critical section
//   lock.unlock();
//
// One RedisLockClient is one client process: one UUID, one event-loop thread
// that runs the shared state machine (impl/client.h, the same code the
// simulator runs) over RealtimeEnv (one pipelined command connection and one
// subscriber connection). Owner ids are "<uuid>:<n>" where n numbers the
// process's calling threads (1, 2, ... in order of first use, never reused),
// so holds are per thread and reentrant per thread.
//
// RLock (get_lock: reentrant; get_fair_lock: fair, granted in arrival order)
// is a cheap handle, usable from any thread while its client lives:
//   lock()                    wait without limit; lease = watchdog (default
//                             30 000 ms, renewed every lease/3 while held)
//   lock(lease_ms)            explicit lease, no watchdog
//   try_lock()                exactly one attempt
//   try_lock(wait_ms, lease_ms = -1)  wait at most wait_ms; false if not acquired
//   unlock()                  LockNotHeldError if this thread does not hold it
//   force_unlock()            deletes the lock whoever holds it; true if it was held
//   is_held_by_current_thread()  asks Redis (HEXISTS)
//   renewal_failure()         "" unless the watchdog stopped for this thread's
//                             hold: why (connection lost, renew refused);
//                             the loss is observable, not silent
// Connection loss, timeouts and Redis errors throw LockRedisError naming the
// server and the command (lock_errors.h). An outcome-unknown acquire may
// have taken the lock on the server: it then expires after its lease.
//
// Destroying the client is like its process dying: nothing is released, the
// watchdog stops, and every lock it held expires after its lease. With a
// HistoryRecorder, that is recorded as a "crash" fault of this client.
// Operations must not be running on other threads during destruction.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "impl/client.h"
#include "impl/client_config.h"
#include "impl/realtime/event_loop.h"
#include "impl/realtime/history_recorder.h"
#include "impl/realtime/lock_errors.h"
#include "impl/realtime/realtime_env.h"
#include "impl/script_pack.h"

namespace locksim {

// The watchdog of `owner`'s hold on `lock` stopped (detail says why).
struct LockLoss {
  std::string lock;
  std::string owner;
  std::string detail;  // "renew answered 0" (hold_lost) or "renew error: ..." / "renew timeout"
};

struct RedisLockClientOptions {
  RedisConnOptions server;   // default 127.0.0.1:6379
  // client_uuid empty: a random UUID. Wake-ups that arrive while a poll is
  // in flight are remembered (ClientConfig::remember_wakeups, its default).
  ClientConfig config;
  std::string scripts_dir;   // empty: ScriptPack::default_dir()
  HistoryRecorder* history = nullptr;  // optional; must outlive the client
  // Called on the client's loop thread when a watchdog stops; keep it short
  // and do not call the lock API from it.
  std::function<void(const LockLoss&)> on_lock_lost;
};

class RedisLockClient;

class RLock {
 public:
  const std::string& name() const { return ref_.name; }
  bool fair() const { return ref_.kind == LockKind::Fair; }

  void lock();
  void lock(int64_t lease_ms);
  bool try_lock();
  bool try_lock(int64_t wait_ms, int64_t lease_ms = -1);
  void unlock();
  bool force_unlock();
  bool is_held_by_current_thread();
  std::string renewal_failure() const;

 private:
  friend class RedisLockClient;
  RLock(RedisLockClient* client, LockSpec ref) : client_(client), ref_(std::move(ref)) {}
  RedisLockClient* client_;
  LockSpec ref_;
};

class RedisLockClient {
 public:
  // Connects and loads the scripts; throws LockRedisError (cannot connect,
  // naming the server) or ScriptPackError (also for a pack whose manifest
  // declares another lock design than ours: impl/lock_design.h).
  explicit RedisLockClient(RedisLockClientOptions options = {});
  ~RedisLockClient();
  RedisLockClient(const RedisLockClient&) = delete;
  RedisLockClient& operator=(const RedisLockClient&) = delete;

  RLock get_lock(const std::string& name);
  RLock get_fair_lock(const std::string& name);

  const std::string& uuid() const { return config_.client_uuid; }
  std::string owner_of_current_thread();
  int history_client() const { return history_client_; }  // -1 without history

 private:
  friend class RLock;
  struct OpWait;

  int task_of_current_thread();
  void run_on_loop(std::function<void()> fn);  // blocks until fn ran
  AcquireResult acquire(const LockSpec& ref, int64_t wait_ms, int64_t lease_ms, bool once, OpEnding* why);
  std::string explain(const LockSpec& ref, const OpEnding& why, const char* script) const;
  void on_event(const Event& e);

  ClientConfig config_;
  RedisLockClientOptions options_;
  int history_client_ = -1;
  std::unique_ptr<ScriptPack> pack_;
  std::shared_ptr<EventLoop> loop_;
  std::unique_ptr<RealtimeEnv> env_;
  std::unique_ptr<LockClient> client_;

  std::mutex mutex_;  // renewal_failures_
  std::map<std::pair<std::string, std::string>, std::string> renewal_failures_;  // (lock, owner) -> why
  // Loop thread only:
  std::map<uint64_t, OpEnding> op_details_;  // op_id -> how its completion ended
  std::set<uint64_t> tracked_ops_;
  std::map<std::pair<std::string, std::string>, int64_t> believed_holds_;  // (lock, owner) -> count
};

}  // namespace locksim
