// The locksim subcommands. Each lives in its own cmd_<name>.cc and registers
// itself on the CLI11 app with an add_<name>_command() function; the callback
// stores the command's exit code in *exit_code (0 ok, 1 check failed,
// 2 bad input / environment error).
#pragma once

#include <CLI/CLI.hpp>

namespace locksim::cli {

void add_doctor_command(CLI::App& app, int* exit_code);
void add_timeline_command(CLI::App& app, int* exit_code);
void add_run_command(CLI::App& app, int* exit_code);
void add_replay_command(CLI::App& app, int* exit_code);
void add_campaign_command(CLI::App& app, int* exit_code);
void add_mutants_command(CLI::App& app, int* exit_code);
void add_diff_command(CLI::App& app, int* exit_code);
void add_check_command(CLI::App& app, int* exit_code);

// Accepts only a plain non-negative integer ("-1" would otherwise wrap
// around in an unsigned option).
inline CLI::Validator non_negative_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "expected a non-negative integer, got '" + text + "'";
        }
        return "";
      },
      "UINT");
}

// Thrown by a command on bad input; main prints "locksim: <what>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace locksim::cli
