// EventLoop: one thread that runs posted tasks and timers, one at a time, so
// the lock client's state machine (impl/client.h), which is not thread-safe,
// can be driven from many threads: everything that touches it is posted here.
//
// Contract:
//  - post(task) is thread-safe; tasks run in posting order on the loop thread.
//    After stop(), post() drops the task silently (replies that arrive late
//    from I/O threads are simply discarded).
//  - start_timer(delay_ms, fire) / cancel_timer(id) are thread-safe; `fire`
//    runs on the loop thread once delay_ms of *monotonic* time
//    (std::chrono::steady_clock) have passed, unless cancelled first.
//    Cancelling a fired or unknown id is a no-op. Timers due at the same
//    instant fire in start order. A timer never fires inside start_timer.
//  - stop() (idempotent, also the destructor) lets the task running now
//    finish, then discards every queued task and timer and joins the thread.
//    It must not be called from the loop thread itself.
//  - Bounded: at most kMaxQueued tasks and kMaxTimers timers (asserted).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace locksim {

class EventLoop {
 public:
  using TimerId = uint64_t;
  static constexpr size_t kMaxQueued = 1'000'000;
  static constexpr size_t kMaxTimers = 1'000'000;

  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  void post(std::function<void()> task);
  TimerId start_timer(int64_t delay_ms, std::function<void()> fire);
  void cancel_timer(TimerId id);
  void stop();
  bool in_loop_thread() const { return std::this_thread::get_id() == thread_id_; }

 private:
  using Clock = std::chrono::steady_clock;
  using TimerKey = std::pair<Clock::time_point, TimerId>;  // due, then start order
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  std::map<TimerKey, std::function<void()>> timers_;
  std::map<TimerId, Clock::time_point> timer_due_;  // id -> its key's due time
  TimerId next_timer_ = 1;
  bool stopping_ = false;
  std::thread thread_;
  std::thread::id thread_id_;
};

}  // namespace locksim
