#include "tools/cli/program_name.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "tools/cli/scenario_flags.h"

namespace locksim::cli {

namespace {

namespace fs = std::filesystem;

bool same_file_as(const std::string& a, const std::string& b) {
  struct stat sa {};
  struct stat sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The first executable `name` on PATH, or "".
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr || name.empty() || name.find('/') != std::string::npos) return "";
  std::string_view rest(path);
  while (true) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return "";
    rest.remove_prefix(colon + 1);
  }
}

}  // namespace

std::string absolute_path_text(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

ProgramName program_name(const char* argv0) {
  const std::string self = "/proc/self/exe";
  std::error_code ec;
  const std::string exe = fs::read_symlink(self, ec).string();
  const std::string invoked = argv0 != nullptr ? argv0 : "";
  ProgramName out;
  // The installed name, when PATH leads to this binary under it.
  for (const std::string& name : {fs::path(invoked).filename().string(), std::string("locksim")}) {
    const std::string found = on_path(name);
    if (!found.empty() && same_file_as(found, self)) {
      out.anywhere = shell_word(name);
      out.as_invoked = invoked.find('/') != std::string::npos ? shell_word(invoked) : out.anywhere;
      return out;
    }
  }
  const std::string absolute = !exe.empty() ? exe : absolute_path_text(invoked);
  out.anywhere = shell_word(absolute);
  out.as_invoked = invoked.find('/') != std::string::npos && same_file_as(invoked, self) ? shell_word(invoked)
                                                                                          : out.anywhere;
  return out;
}

}  // namespace locksim::cli
