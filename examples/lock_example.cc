// lock_example: four threads add to one shared total, one at a time, guarded
// by a Redis lock. Needs a redis-server on 127.0.0.1:6379 (or give HOST PORT):
//
//   redis-server --port 6379 --save '' &
//   ./build/examples/lock_example [HOST PORT]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "impl/realtime/redis_lock_client.h"

int main(int argc, char** argv) {
  locksim::RedisLockClientOptions options;  // defaults: 127.0.0.1:6379, lease 30 s with watchdog
  if (argc == 3) {
    options.server.host = argv[1];
    options.server.port = std::atoi(argv[2]);
  }
  try {
    locksim::RedisLockClient client(options);  // one client = one UUID, its own connections
    long total = 0;                            // shared state the lock guards
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; ++w) {
      workers.emplace_back([&client, &total] {
        locksim::RLock lock = client.get_lock("example:orders");
        for (int i = 0; i < 100; ++i) {
          lock.lock();  // blocks until this thread holds it
          total += 1;   // critical section
          lock.unlock();
        }
      });
    }
    for (auto& t : workers) t.join();

    // try_lock waits at most 100 ms; unlock by a thread that does not hold
    // the lock throws LockNotHeldError.
    locksim::RLock lock = client.get_lock("example:orders");
    if (lock.try_lock(100)) {
      std::thread([&lock] {
        try {
          lock.unlock();
        } catch (const locksim::LockNotHeldError& e) {
          std::printf("another thread may not unlock: %s\n", e.what());
        }
      }).join();
      lock.unlock();
    }
    std::printf("total = %ld (expected 400)\n", total);
    return total == 400 ? 0 : 1;
  } catch (const std::exception& e) {  // e.g. LockRedisError: no Redis there (names server and command)
    std::fprintf(stderr, "lock_example: %s\n", e.what());
    return 2;
  }
}
