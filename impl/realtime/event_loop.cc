#include "impl/realtime/event_loop.h"

#include <cassert>

namespace locksim {

EventLoop::EventLoop() {
  thread_ = std::thread([this] { run(); });
  thread_id_ = thread_.get_id();
}

EventLoop::~EventLoop() { stop(); }

void EventLoop::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    assert(tasks_.size() < kMaxQueued);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

EventLoop::TimerId EventLoop::start_timer(int64_t delay_ms, std::function<void()> fire) {
  const auto due = Clock::now() + std::chrono::milliseconds(delay_ms < 0 ? 0 : delay_ms);
  TimerId id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = next_timer_++;
    if (stopping_) return id;
    assert(timers_.size() < kMaxTimers);
    timers_.emplace(TimerKey{due, id}, std::move(fire));
    timer_due_.emplace(id, due);
  }
  wake_.notify_one();
  return id;
}

void EventLoop::cancel_timer(TimerId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = timer_due_.find(id);
  if (it == timer_due_.end()) return;
  timers_.erase(TimerKey{it->second, id});
  timer_due_.erase(it);
}

void EventLoop::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) {
    assert(!in_loop_thread());
    thread_.join();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  tasks_.clear();
  timers_.clear();
  timer_due_.clear();
}

void EventLoop::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (!tasks_.empty()) {
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
      continue;
    }
    if (!timers_.empty()) {
      auto first = timers_.begin();
      if (first->first.first <= Clock::now()) {
        std::function<void()> fire = std::move(first->second);
        timer_due_.erase(first->first.second);
        timers_.erase(first);
        lock.unlock();
        fire();
        lock.lock();
        continue;
      }
      wake_.wait_until(lock, first->first.first);
      continue;
    }
    wake_.wait(lock);
  }
}

}  // namespace locksim
