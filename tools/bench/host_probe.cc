#include "tools/bench/host_probe.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "sim/huge_pages.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

namespace {

// 65,536 dependent multiply-adds on a register; the result is returned so
// that the compiler keeps the chain.
uint64_t loop_chunk(uint64_t x) {
  for (int i = 0; i < (1 << 16); ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

// Chunks run until `seconds` of wall time have passed.
uint64_t chunks_for(double seconds, uint64_t seed, std::atomic<uint64_t>* sink) {
  const WallTimer timer;
  uint64_t chunks = 0;
  uint64_t x = seed;
  while (timer.elapsed_s() < seconds) {
    x = loop_chunk(x);
    ++chunks;
  }
  sink->fetch_xor(x, std::memory_order_relaxed);
  return chunks;
}

}  // namespace

double register_loop_2x1t(double seconds) {
  std::atomic<uint64_t> sink{0};
  const uint64_t alone = chunks_for(seconds, 1, &sink);
  uint64_t other = 0;
  std::thread second([&] { other = chunks_for(seconds, 2, &sink); });
  const uint64_t first = chunks_for(seconds, 3, &sink);
  second.join();
  return alone == 0 ? 0.0 : static_cast<double>(first + other) / static_cast<double>(alone);
}

double page_touch_us(size_t bytes) {
  constexpr size_t kPageBytes = 4096;
  unsigned char* p = map_anonymous(bytes);
  madvise(p, bytes, MADV_NOHUGEPAGE);  // a hint: the 4 KB pages are what is measured
  volatile unsigned char* bytes_at = p;
  const WallTimer timer;
  for (size_t at = 0; at < bytes; at += kPageBytes) bytes_at[at] = 1;
  const double wall_s = timer.elapsed_s();
  munmap(p, bytes);
  return wall_s * 1e6 / static_cast<double>(bytes / kPageBytes);
}

}  // namespace locksim
