#include "tools/cli/runs_dir.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "tools/cli/commands.h"

namespace locksim::cli {

std::string runs_root() {
  const char* env = std::getenv("LOCKSIM_RUNS_DIR");
  return env != nullptr && env[0] != '\0' ? env : "runs";
}

std::string new_run_dir(const std::string& label) {
  namespace fs = std::filesystem;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  const std::string base = std::string(stamp) + "-" + label;
  const fs::path root = runs_root();
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) throw EnvironmentError("cannot create the runs directory '" + root.string() + "': " + ec.message() + " (or give --out DIR)");
  for (int n = 1; n <= 1000; ++n) {
    const std::string name = n == 1 ? base : base + "-" + std::to_string(n);
    const fs::path dir = root / name;
    if (!fs::create_directory(dir, ec)) {
      if (ec) throw EnvironmentError("cannot create '" + dir.string() + "': " + ec.message() + " (or give --out DIR)");
      continue;  // exists: the next name
    }
    return dir.string();
  }
  throw UsageError("too many runs named " + (root / base).string() + "*: give --out DIR");
}

void point_latest_at(const std::string& run_dir, const std::string& command) {
  namespace fs = std::filesystem;
  const fs::path dir(run_dir);
  const fs::path root = dir.parent_path();
  std::error_code ec;
  const fs::path temp = root / (".latest-" + std::to_string(::getpid()));
  fs::remove(temp, ec);
  fs::create_directory_symlink(dir.filename(), temp, ec);
  if (!ec) fs::rename(temp, root / "latest", ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    std::fprintf(stderr, "%s: could not update %s (%s)\n", command.c_str(), (root / "latest").string().c_str(),
                 ec.message().c_str());
  }
}

}  // namespace locksim::cli
