// ProgramName: how locksim names itself in the commands it prints for a
// person to run (reproduce lines, summary.json's "command", report.html's
// commands), so that each runs when pasted where it was printed.
//
// Contract:
//  - as_invoked: for lines printed on the terminal, pasted in the same
//    directory: argv[0] as typed when it holds a '/' (./build/tools/locksim,
//    ../locksim), the bare name when PATH leads to this very binary under it
//    (an installed locksim), else this binary's absolute path. Shell quoted.
//  - anywhere: for files read later from anywhere (summary.json,
//    report.html): the bare name when PATH leads to this binary under it,
//    else its absolute path. Shell quoted.
//  - Computed once, in main, from argv[0] and /proc/self/exe; no global.
#pragma once

#include <string>

namespace locksim::cli {

struct ProgramName {
  std::string as_invoked = "locksim";
  std::string anywhere = "locksim";
};

ProgramName program_name(const char* argv0);

// `path` made absolute against the current directory (lexically, links
// kept), for a path printed into a file read from elsewhere.
std::string absolute_path_text(const std::string& path);

}  // namespace locksim::cli
