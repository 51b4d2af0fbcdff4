// TracePrefetch: reads a trace on a thread of its own, a few batches of
// events ahead of the consumer, so that decoding a trace and checking it
// run side by side (on two cores, a check takes about the longer of the
// two instead of their sum). The consumer sees exactly the events, in
// exactly the order, that TraceReader::next would give, and a TraceError
// where TraceReader would throw it: after every event before the bad line.
//
// Contract: construct with an open TraceReader (its header already read and
// checked, in the caller's thread); call next_batch() until it returns an
// empty batch. A batch stays valid until the next call. Memory: `batches`
// batches of `batch_events` events, reused (each Event keeps its storage).
// The destructor stops the reader thread and waits for it, also when the
// consumer stops early (the reader first ends the batch it is reading).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "traces/event.h"
#include "traces/trace_reader.h"

namespace locksim {

class TracePrefetch {
 public:
  static constexpr size_t kDefaultBatchEvents = 256;
  static constexpr size_t kDefaultBatches = 4;

  explicit TracePrefetch(std::unique_ptr<TraceReader> reader, size_t batch_events = kDefaultBatchEvents,
                         size_t batches = kDefaultBatches);
  ~TracePrefetch();
  TracePrefetch(const TracePrefetch&) = delete;
  TracePrefetch& operator=(const TracePrefetch&) = delete;

  const TraceHeader& header() const { return reader_->header(); }

  // The next events, in trace order; empty at the end of the trace. Throws
  // the reader's error (TraceError) once the events before it are taken.
  std::span<const Event> next_batch();

 private:
  struct Batch {
    std::vector<Event> events;  // sized batch_events; the first `count` are filled
    size_t count = 0;
    bool last = false;            // the trace ends (or fails) after this batch
    std::exception_ptr error;     // the reader's error after these events
  };
  void read_loop();

  std::unique_ptr<TraceReader> reader_;
  std::vector<Batch> ring_;
  std::vector<Event> handed_;  // the batch last handed out (swapped with a ring slot)
  // Guarded by mutex_: filled_ batches wait for the consumer, starting at
  // ring position consume_at_ (the reader fills at (consume_at_ + filled_)).
  // filled_ and stop_ change only under mutex_; they are atomic so that a
  // thread may spin on them before it waits (trace_prefetch.cc).
  std::mutex mutex_;
  std::condition_variable can_fill_;
  std::condition_variable can_take_;
  size_t consume_at_ = 0;
  std::atomic<size_t> filled_ = 0;
  std::atomic<bool> stop_ = false;
  bool done_ = false;          // the consumer has taken the last batch
  std::exception_ptr pending_error_;  // thrown by the next next_batch()
  std::thread thread_;
};

// Hands every event of `reader`'s trace, in order and in batches, to
// `consume`, and returns how many there were: through a TracePrefetch with
// `second_thread` (by default when the machine has two cores or more), else
// read in this thread (same events, same errors). What `locksim check` and
// the bench's trace check use.
uint64_t stream_events(std::unique_ptr<TraceReader> reader, const std::function<void(std::span<const Event>)>& consume,
                       bool second_thread = std::thread::hardware_concurrency() >= 2);

}  // namespace locksim
