/*
 * vclock_shim: an LD_PRELOAD library that makes redis-server read the time
 * from a shared memory word instead of the system clock.
 *
 * Contract: when the environment variable LOCKSIM_VCLOCK_FILE names a file of
 * at least 8 bytes, gettimeofday(), time() and clock_gettime() for the
 * realtime clocks answer the signed 64-bit count of microseconds stored at the
 * start of that file (written by the simulator through its own mapping).
 * Monotonic and CPU clocks stay real: Redis's event loop keeps running in real
 * time, but every timestamp it records or compares against key expiries is
 * virtual. Without the variable, or if the file cannot be mapped, the real
 * clock is used.
 *
 * The hooks allocate nothing and call no libc time function (that would
 * recurse into ourselves): the file is opened and mapped with raw system
 * calls on first use, and the fallback reads the clock with a raw syscall.
 * redis-server's allocator asks for the time during start-up, before much of
 * libc is ready, which is why this matters.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* 0 = not tried, 1 = mapped, 2 = unavailable (use the real clock). */
static int g_state = 0;
static volatile int64_t* g_word = 0;

static void vclock_init(void) {
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 0) return;
  int next = 2;
  const char* path = getenv("LOCKSIM_VCLOCK_FILE");
  if (path && path[0]) {
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      long addr = syscall(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, fd, 0);
      syscall(SYS_close, fd);
      if (addr != -1 && !(addr < 0 && addr > -4096)) {
        g_word = (volatile int64_t*)addr;
        next = 1;
      }
    }
  }
  int expected = 0;
  /* A racing thread may have mapped it too: harmless, one mapping leaks. */
  __atomic_compare_exchange_n(&g_state, &expected, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static int virtual_us(int64_t* out_us) {
  vclock_init();
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 1) return 0;
  *out_us = __atomic_load_n(g_word, __ATOMIC_ACQUIRE);
  return 1;
}

static int is_realtime(clockid_t clk) {
  return clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE;
}

int clock_gettime(clockid_t clk, struct timespec* ts) {
  int64_t us;
  if (is_realtime(clk) && virtual_us(&us)) {
    ts->tv_sec = (time_t)(us / 1000000);
    ts->tv_nsec = (long)(us % 1000000) * 1000;
    return 0;
  }
  return (int)syscall(SYS_clock_gettime, clk, ts);
}

int gettimeofday(struct timeval* tv, void* tz) {
  int64_t us;
  if (virtual_us(&us)) {
    /* glibc declares tv non-null, as do we. */
    tv->tv_sec = (time_t)(us / 1000000);
    tv->tv_usec = (suseconds_t)(us % 1000000);
    return 0;
  }
  return (int)syscall(SYS_gettimeofday, tv, tz);
}

time_t time(time_t* out) {
  int64_t us;
  time_t now;
  if (virtual_us(&us)) {
    now = (time_t)(us / 1000000);
  } else {
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
    now = ts.tv_sec;
  }
  if (out) *out = now;
  return now;
}
