#include "impl/realtime/redis_lock_client.h"

#include <atomic>
#include <cassert>
#include <cstdio>
#include <future>
#include <random>

namespace locksim {

namespace {

std::string random_uuid() {
  std::random_device device;
  std::mt19937_64 rng((static_cast<uint64_t>(device()) << 32) ^ device());
  const uint64_t hi = rng();
  const uint64_t lo = rng();
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0x0fff),
                static_cast<unsigned>(((lo >> 48) & 0x3fff) | 0x8000),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return text;
}

// "error: error: redis ...: EVALSHA ...: ..." -> "redis ...: EVALSHA ...: ..."
std::string strip_error_prefixes(std::string detail) {
  for (;;) {
    if (detail.rfind("error: ", 0) == 0) {
      detail = detail.substr(7);
    } else if (detail.rfind("renew error: ", 0) == 0) {
      detail = detail.substr(13);
    } else {
      return detail;
    }
  }
}

}  // namespace

RedisLockClient::RedisLockClient(RedisLockClientOptions options) : options_(std::move(options)) {
  config_ = options_.config;
  if (config_.client_uuid.empty()) config_.client_uuid = random_uuid();
  const std::string dir = options_.scripts_dir.empty() ? ScriptPack::default_dir() : options_.scripts_dir;
  pack_ = std::make_unique<ScriptPack>(ScriptPack::load(dir));
  if (pack_->design() != LockDesign{}) {
    // Its recorder reads the hash's fields and its waiters subscribe: our design only.
    throw ScriptPackError(dir + "/manifest.json: \"design\": the lock library runs locks of our design only (hash "
                                "holders, reentrant, pub/sub wake-ups, per-owner tokens); check this pack with "
                                "locksim campaign --backend lua or live instead");
  }
  if (options_.history) history_client_ = options_.history->register_client();
  loop_ = std::make_shared<EventLoop>();
  RealtimeEnvOptions env_options;
  env_options.servers = {options_.server};
  env_options.history = options_.history;
  env_options.client_index = history_client_;
  try {
    env_ = std::make_unique<RealtimeEnv>(
        loop_, *pack_, env_options,
        [this](const std::string& channel, const std::string& payload) { client_->on_message(channel, payload); },
        [this](const Event& e) { on_event(e); });
  } catch (const RedisError& e) {
    loop_->stop();
    throw LockRedisError(e.what());
  }
  client_ = std::make_unique<LockClient>(*env_, config_);
}

RedisLockClient::~RedisLockClient() {
  run_on_loop([this] {
    int64_t holds = 0;
    for (const auto& [key, count] : believed_holds_) holds += count > 0 ? 1 : 0;
    if (options_.history && holds > 0) {
      Event e;
      e.kind = EventKind::Fault;
      e.op = Op::Crash;
      e.target = history_client_;
      e.client = history_client_;
      e.local_ms = env_->now_ms();
      e.detail = "client dropped while holding " + std::to_string(holds) + " lock(s)";
      options_.history->emit(std::move(e));
    }
    client_->crash();  // pending operations end as "crashed"; nothing more is sent
  });
  loop_->stop();  // the watchdog's timers go with it
  env_->close();
}

RLock RedisLockClient::get_lock(const std::string& name) { return RLock(this, LockSpec{name, LockKind::Reentrant, 0, {}}); }

RLock RedisLockClient::get_fair_lock(const std::string& name) { return RLock(this, LockSpec{name, LockKind::Fair, 0, {}}); }

// A number per thread of the process, never reused (std::thread::id values
// are reused once a thread ends, and a new thread must not inherit holds).
int RedisLockClient::task_of_current_thread() {
  static std::atomic<int> next{1};
  thread_local const int number = next.fetch_add(1);
  return number;
}

std::string RedisLockClient::owner_of_current_thread() { return client_->owner(task_of_current_thread()); }

void RedisLockClient::run_on_loop(std::function<void()> fn) {
  assert(!loop_->in_loop_thread());
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> ran = done->get_future();
  loop_->post([fn = std::move(fn), done] {
    fn();
    done->set_value();
  });
  ran.get();
}

// Loop thread: remembers what the operations we wait for ended with, and
// what stopped a watchdog.
void RedisLockClient::on_event(const Event& e) {
  if (e.op_id != 0 && tracked_ops_.count(e.op_id) > 0 &&
      (e.kind == EventKind::Ok || e.kind == EventKind::Fail || e.kind == EventKind::Info)) {
    op_details_[e.op_id] = OpEnding::of(e);
  }
  const auto key = std::make_pair(e.lock, e.owner);
  if (e.kind == EventKind::Ok && is_acquire(e.op) && e.value == 1) {
    believed_holds_[key] += 1;
    std::lock_guard<std::mutex> lock(mutex_);
    renewal_failures_.erase(key);
  } else if (e.kind == EventKind::Invoke && e.op == Op::Unlock) {
    auto it = believed_holds_.find(key);
    if (it != believed_holds_.end() && --it->second <= 0) believed_holds_.erase(it);
  } else if (e.kind == EventKind::Info && (e.op == Op::HoldLost || e.op == Op::WatchdogStop)) {
    if (e.op == Op::HoldLost) believed_holds_.erase(key);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      renewal_failures_[key] = strip_error_prefixes(e.detail);
    }
    if (options_.on_lock_lost) options_.on_lock_lost(LockLoss{e.lock, e.owner, strip_error_prefixes(e.detail)});
  }
}

std::string RedisLockClient::explain(const LockSpec& ref, const OpEnding& why, const char* script) const {
  switch (why.reason) {
    case EndReason::Timeout:
      return env_->where(ref.server) + ": EVALSHA " + script + ": no reply within " +
             std::to_string(config_.request_timeout_ms) + " ms (outcome unknown)";
    case EndReason::Crashed: return "the client was closed while " + ref.name + " was in use";
    case EndReason::IllegalMonitorState:
    case EndReason::None: break;
  }
  return strip_error_prefixes(why.note);
}

AcquireResult RedisLockClient::acquire(const LockSpec& ref, int64_t wait_ms, int64_t lease_ms, bool once,
                                       OpEnding* why_out) {
  const int task = task_of_current_thread();
  auto done = std::make_shared<std::promise<std::pair<AcquireResult, OpEnding>>>();
  auto result = done->get_future();
  loop_->post([this, ref, wait_ms, lease_ms, once, task, done] {
    auto op_id = std::make_shared<uint64_t>(0);
    auto finished = [this, done, op_id](AcquireResult r) {
      OpEnding why;
      if (auto it = op_details_.find(*op_id); it != op_details_.end()) {
        why = it->second;
        op_details_.erase(it);
      }
      tracked_ops_.erase(*op_id);
      done->set_value({r, why});
    };
    if (once) {
      client_->try_lock_once(task, ref, lease_ms, finished);
    } else if (wait_ms < 0) {
      client_->lock(task, ref, lease_ms, finished);
    } else {
      client_->try_lock(task, ref, wait_ms, lease_ms, finished);
    }
    *op_id = env_->last_op_id();  // completion is never inside the call
    tracked_ops_.insert(*op_id);
  });
  auto [r, why] = result.get();
  *why_out = std::move(why);
  return r;
}

void RLock::lock() { lock(-1); }

void RLock::lock(int64_t lease_ms) {
  if (lease_ms != -1 && lease_ms <= 0) throw LockError("lock(" + ref_.name + "): lease_ms must be > 0");
  OpEnding detail;
  const AcquireResult r = client_->acquire(ref_, -1, lease_ms, false, &detail);
  const char* script = fair() ? "fair_acquire" : "rlock_acquire";
  if (r == AcquireResult::Acquired) return;
  if (r == AcquireResult::NotAcquired) {
    throw LockGaveUpError("lock(" + ref_.name + ") gave up: " + client_->explain(ref_, detail, script));
  }
  throw LockRedisError(client_->explain(ref_, detail, script));
}

bool RLock::try_lock() {
  OpEnding detail;
  const AcquireResult r = client_->acquire(ref_, 0, -1, true, &detail);
  if (r == AcquireResult::Unknown) {
    throw LockRedisError(client_->explain(ref_, detail, fair() ? "fair_try_once" : "rlock_acquire"));
  }
  return r == AcquireResult::Acquired;
}

bool RLock::try_lock(int64_t wait_ms, int64_t lease_ms) {
  if (wait_ms < 0) throw LockError("try_lock(" + ref_.name + "): wait_ms must be >= 0");
  if (lease_ms != -1 && lease_ms <= 0) throw LockError("try_lock(" + ref_.name + "): lease_ms must be > 0");
  OpEnding detail;
  const AcquireResult r = client_->acquire(ref_, wait_ms, lease_ms, false, &detail);
  if (r == AcquireResult::Unknown) {
    throw LockRedisError(client_->explain(ref_, detail, fair() ? "fair_acquire" : "rlock_acquire"));
  }
  return r == AcquireResult::Acquired;
}

void RLock::unlock() {
  RedisLockClient& c = *client_;
  const int task = c.task_of_current_thread();
  auto done = std::make_shared<std::promise<std::pair<UnlockResult, OpEnding>>>();
  auto result = done->get_future();
  const LockSpec ref = ref_;
  c.loop_->post([&c, ref, task, done] {
    auto op_id = std::make_shared<uint64_t>(0);
    c.client_->unlock(task, ref, [&c, done, op_id](UnlockResult r) {
      OpEnding why;
      if (auto it = c.op_details_.find(*op_id); it != c.op_details_.end()) {
        why = it->second;
        c.op_details_.erase(it);
      }
      c.tracked_ops_.erase(*op_id);
      done->set_value({r, why});
    });
    *op_id = c.env_->last_op_id();
    c.tracked_ops_.insert(*op_id);
  });
  auto [r, why] = result.get();
  if (r == UnlockResult::Released || r == UnlockResult::StillHeld) return;
  if (r == UnlockResult::NotHeld) {
    throw LockNotHeldError("unlock(" + ref_.name + "): not held by " + c.client_->owner(task) +
                           " (illegal monitor state: never locked by this thread, or its lease expired)");
  }
  throw LockRedisError(c.explain(ref_, why, fair() ? "fair_release" : "rlock_release"));
}

bool RLock::force_unlock() {
  RedisLockClient& c = *client_;
  const int task = c.task_of_current_thread();
  auto done = std::make_shared<std::promise<std::pair<bool, OpEnding>>>();
  auto result = done->get_future();
  const LockSpec ref = ref_;
  c.loop_->post([&c, ref, task, done] {
    auto op_id = std::make_shared<uint64_t>(0);
    c.client_->force_unlock(task, ref, [&c, done, op_id](bool released) {
      OpEnding why;
      if (auto it = c.op_details_.find(*op_id); it != c.op_details_.end()) {
        why = it->second;
        c.op_details_.erase(it);
      }
      c.tracked_ops_.erase(*op_id);
      done->set_value({released, why});
    });
    *op_id = c.env_->last_op_id();
    c.tracked_ops_.insert(*op_id);
  });
  auto [released, why] = result.get();
  if (!why.empty()) throw LockRedisError(c.explain(ref_, why, fair() ? "fair_force_release" : "rlock_force_release"));
  return released;
}

bool RLock::is_held_by_current_thread() {
  RedisLockClient& c = *client_;
  const std::string owner = c.owner_of_current_thread();
  auto done = std::make_shared<std::promise<std::pair<Reply, std::string>>>();
  auto result = done->get_future();
  const std::string lock = ref_.name;
  const int server = ref_.server;
  c.loop_->post([&c, lock, owner, server, done] {
    c.env_->command(server, {"HEXISTS", lock, owner},
                    [done](Reply reply, std::string error) { done->set_value({std::move(reply), std::move(error)}); });
  });
  auto [reply, error] = result.get();
  if (!error.empty()) throw LockRedisError(error);
  if (reply.is_error()) throw LockRedisError(c.env_->where(server) + ": HEXISTS: " + reply.text);
  return reply.is_int() && reply.integer == 1;
}

std::string RLock::renewal_failure() const {
  RedisLockClient& c = *client_;
  const std::string owner = c.owner_of_current_thread();
  std::lock_guard<std::mutex> lock(c.mutex_);
  auto it = c.renewal_failures_.find({ref_.name, owner});
  return it == c.renewal_failures_.end() ? std::string() : it->second;
}

}  // namespace locksim
