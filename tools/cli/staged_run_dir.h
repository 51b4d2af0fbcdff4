// StagedRunDir: a runs directory (campaign --out, merge --out) that appears
// complete or not at all, written by one locksim at a time.
//
// Contract:
//  - The constructor claims `out`: it takes an exclusive lock on
//    <parent>/.<name>.locksim-lock for the object's whole life (a second locksim on
//    the same --out is refused at once, never mixed in), then decides what
//    is there. Absent or an empty directory: fine. A complete run that
//    `same_run` recognises from its summary.json (the same campaign shard or
//    merge, retried), holding nothing but a run's own files: it will be
//    replaced. Anything else is refused with UsageError naming it: a run of
//    another campaign, a partial run, other files, a symbolic link, a file.
//  - Everything is written into path(): a private sibling
//    <parent>/.<name>.locksim-staging-<pid>-<n>/, registered for removal if a signal
//    ends the process (tools/server/exit_cleanup.h).
//  - publish() moves it to `out` in one rename (over an absent or empty
//    directory; an old run of the same campaign is exchanged atomically with
//    renameat2 RENAME_EXCHANGE where the file system allows it, then
//    removed). Throws OutputError. Not published (an error, an exception),
//    the destructor removes the staging dir: `out` is as it was.
//  - Leftovers of killed runs in <parent> are swept when a directory there
//    is claimed (after this one's lock is taken): staging dirs whose owner
//    is gone (the pid in the name names no process, or their lock is free,
//    or it is the lock just taken: a SIGKILLed run of this same --out), and
//    those lock files.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace locksim {
class ExitCleanupSlot;
}

namespace locksim::cli {

class StagedRunDir {
 public:
  using SameRun = std::function<bool(const nlohmann::json& old_summary)>;
  StagedRunDir(const std::string& out, SameRun same_run);
  ~StagedRunDir();
  StagedRunDir(const StagedRunDir&) = delete;
  StagedRunDir& operator=(const StagedRunDir&) = delete;

  const std::string& path() const { return staging_; }
  const std::string& out() const { return out_; }
  // Whether publish() replaces an earlier run of the same campaign.
  bool replaces() const { return replace_; }
  void publish();

 private:
  void release_lock() noexcept;

  std::string out_;      // as given, without trailing slashes
  std::string parent_;   // its directory ("." when none)
  std::string name_;     // its last component
  std::string lock_name_;
  std::string staging_;  // parent_/.name_.locksim-staging-<pid>-<n>
  int parent_fd_ = -1;
  int lock_fd_ = -1;
  bool replace_ = false;
  bool published_ = false;
  std::unique_ptr<ExitCleanupSlot> cleanup_;
};

}  // namespace locksim::cli
