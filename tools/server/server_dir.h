// ServerDir: the private temp dir of one redis-server (its clock file and
// log), named <temp>/locksim-redis-<pid>-XXXXXX where <temp> is $TMPDIR (an
// absolute path) or /tmp and <pid> is the owning locksim process. The owner
// holds an exclusive flock on <dir>/owner.lock for the dir's whole life; the
// kernel drops it when the owner dies, however it dies.
//
// Contract:
//  - create() makes the dir and takes the lock, or throws RedisError.
//  - remove() (and the destructor) deletes the dir and everything in it;
//    idempotent, never throws.
//  - sweep_stale_server_dirs() deletes every locksim-redis-* dir under
//    <temp> that belongs to this user and whose owner is gone: its
//    owner.lock can be locked, or (a dir killed before it got its lock file)
//    it has none, the pid in its name is not running and it is older than a
//    minute. A dir in use by a live process is never touched. Returns how
//    many it removed. The locksim main calls it once at every start, which
//    is how dirs of a SIGKILLed run go away.
#pragma once

#include <string>

namespace locksim {

class ServerDir {
 public:
  static ServerDir create();
  ServerDir() = default;
  ~ServerDir();
  ServerDir(ServerDir&& other) noexcept;
  ServerDir& operator=(ServerDir&& other) noexcept;
  ServerDir(const ServerDir&) = delete;
  ServerDir& operator=(const ServerDir&) = delete;

  const std::string& path() const { return path_; }
  void remove();

 private:
  std::string path_;
  int lock_fd_ = -1;
};

// $TMPDIR when it is an absolute path, else /tmp.
std::string server_dir_root();

int sweep_stale_server_dirs();

}  // namespace locksim
