#include "traces/trace_prefetch.h"

#include <cassert>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace locksim {

namespace {

// Checks `ready` up to kSpins times, pausing between checks, before the
// caller falls back to waiting on its condition variable with the same
// predicate (re-checked there under the mutex). On this virtual
// machine a thread put to sleep costs an interrupt to another CPU to wake:
// a checker that slept until each batch was decoded spent an eighth of a
// trace check in the kernel. The spin lasts at most a few hundred
// microseconds, about what decoding or checking one batch takes.
template <typename Ready>
void spin_until(Ready ready) {
  constexpr int kSpins = 1 << 12;
  for (int i = 0; i < kSpins && !ready(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
}

}  // namespace

TracePrefetch::TracePrefetch(std::unique_ptr<TraceReader> reader, size_t batch_events, size_t batches)
    : reader_(std::move(reader)), ring_(batches) {
  assert(reader_ != nullptr && batch_events > 0 && batches > 0);
  for (Batch& b : ring_) b.events.resize(batch_events);
  handed_.resize(batch_events);
  thread_ = std::thread([this] { read_loop(); });
}

TracePrefetch::~TracePrefetch() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  can_fill_.notify_all();
  thread_.join();
}

void TracePrefetch::read_loop() {
  for (;;) {
    size_t slot = 0;
    const auto can_fill = [this] { return stop_ || filled_ < ring_.size(); };
    spin_until(can_fill);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      can_fill_.wait(lock, can_fill);
      if (stop_) return;
      slot = (consume_at_ + filled_) % ring_.size();
    }
    // Until it is counted as filled, only this thread touches the slot.
    Batch& b = ring_[slot];
    b.count = 0;
    b.last = false;
    b.error = nullptr;
    try {
      while (b.count < b.events.size() && reader_->next(b.events[b.count])) ++b.count;
      b.last = b.count < b.events.size();
    } catch (...) {
      b.error = std::current_exception();
      b.last = true;
    }
    const bool last = b.last;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++filled_;
    }
    can_take_.notify_one();
    if (last) return;
  }
}

std::span<const Event> TracePrefetch::next_batch() {
  if (pending_error_) {
    std::exception_ptr error = std::exchange(pending_error_, nullptr);
    std::rethrow_exception(error);
  }
  if (done_) return {};
  size_t count = 0;
  const auto can_take = [this] { return filled_ > 0; };
  spin_until(can_take);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    can_take_.wait(lock, can_take);
    Batch& b = ring_[consume_at_];
    handed_.swap(b.events);  // the slot gets the previous batch's storage back
    count = b.count;
    if (b.last) {
      done_ = true;
      pending_error_ = b.error;
    }
    consume_at_ = (consume_at_ + 1) % ring_.size();
    --filled_;
  }
  can_fill_.notify_one();
  if (count == 0 && pending_error_) {
    std::exception_ptr error = std::exchange(pending_error_, nullptr);
    std::rethrow_exception(error);
  }
  return std::span<const Event>(handed_.data(), count);
}

uint64_t stream_events(std::unique_ptr<TraceReader> reader, const std::function<void(std::span<const Event>)>& consume,
                       bool second_thread) {
  uint64_t events = 0;
  if (!second_thread) {
    Event e;
    while (reader->next(e)) {
      consume(std::span<const Event>(&e, 1));
      ++events;
    }
    return events;
  }
  TracePrefetch prefetch(std::move(reader));
  for (auto batch = prefetch.next_batch(); !batch.empty(); batch = prefetch.next_batch()) {
    consume(batch);
    events += batch.size();
  }
  return events;
}

}  // namespace locksim
