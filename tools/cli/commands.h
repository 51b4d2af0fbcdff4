// The locksim subcommands. Each lives in its own cmd_<name>.cc and registers
// itself on the CLI11 app with an add_<name>_command() function; the callback
// stores the command's exit code in ctx->exit_code (0 ok, 1 check failed;
// bad input and the environment are thrown: UsageError, exit 2;
// EnvironmentError, exit 3). Each command reads its flags into a plain
// Args, validate_<name>(Args) -> Options (pure: the text parsed into types,
// or UsageError) and run_<name>(Options, context) does the work.
#pragma once

#include <CLI/CLI.hpp>

#include "tools/cli/number_option.h"
#include "tools/cli/program_name.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

// What every command gets from main: where its exit code goes, and how
// locksim names itself in the commands it prints (tools/cli/program_name.h).
struct CliContext {
  int exit_code = 0;
  ProgramName program;
};

void add_doctor_command(CLI::App& app, CliContext* ctx);
void add_timeline_command(CLI::App& app, CliContext* ctx);
void add_run_command(CLI::App& app, CliContext* ctx);
void add_replay_command(CLI::App& app, CliContext* ctx);
void add_campaign_command(CLI::App& app, CliContext* ctx);
void add_mutants_command(CLI::App& app, CliContext* ctx);
void add_diff_command(CLI::App& app, CliContext* ctx);
void add_check_command(CLI::App& app, CliContext* ctx);
void add_bench_command(CLI::App& app, CliContext* ctx);
void add_pack_command(CLI::App& app, CliContext* ctx);
void add_stress_command(CLI::App& app, CliContext* ctx);
void add_report_command(CLI::App& app, CliContext* ctx);
void add_coverage_command(CLI::App& app, CliContext* ctx);
void add_merge_command(CLI::App& app, CliContext* ctx);
void add_explore_command(CLI::App& app, CliContext* ctx);
void add_index_command(CLI::App& app, CliContext* ctx);
void add_shrink_command(CLI::App& app, CliContext* ctx);

// Accepts only a plain non-negative integer that fits 64 bits ("-1" would
// otherwise wrap around in an unsigned option, and 2^64 saturate). Attach it
// with ->transform(): it rewrites the text in canonical decimal ("010" ->
// "10"), which CLI11 would otherwise read as octal.
inline CLI::Validator non_negative_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t value = 0;
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "expected a non-negative integer, got '" + text + "'";
        }
        if (!parse_whole_integer(text, &value)) {
          return "'" + text + "' is out of range (at most 18446744073709551615)";
        }
        text = std::to_string(value);
        return "";
      },
      "UINT");
}

// When a word where a subcommand is expected (the first argument, or the one
// after a command that has subcommands, e.g. `pack`) is not an option and
// names no subcommand, the one-line complaint naming it and the known
// subcommands; "" otherwise.
inline std::string unknown_subcommand_message(CLI::App& app, int argc, char** argv) {
  CLI::App* level = &app;
  std::string path = "subcommand";
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    std::vector<CLI::App*> subs = level->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return "";  // a positional argument of a leaf command
    std::string names;
    CLI::App* next = nullptr;
    for (CLI::App* sub : subs) {
      if (sub->check_name(argv[i])) next = sub;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (next == nullptr) {
      return "unknown " + path + " '" + argv[i] + "' (expected one of: " + names + ")";
    }
    path = next->get_name() + " subcommand";
    level = next;
  }
  return "";
}

// The --scripts help of the commands that take a script pack.
inline constexpr const char* kScriptsHelp =
    "Script pack: a directory holding a manifest.json, or a built-in pack (builtin:impl/lua, "
    "builtin:impl/mutants/NAME, builtin:impl/variants/NAME). Default: the directory $LOCKSIM_SCRIPTS names if set, "
    "else builtin:impl/lua, our scripts as compiled into locksim";

// Exit codes of every command: 0 success; 1 a check failed (a property, a
// divergence, a replay mismatch); 2 bad input (an option, a script pack, a
// trace: the same command fails again anywhere); 3 the environment failed
// with good input (campaign's or merge's runs directory cannot be written or
// is being written by another locksim, a redis-server cannot be started):
// the same command may succeed later or on another machine.
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitEnvironment = 3;

// Thrown by a command on bad input; main prints "locksim: <what>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by a command when its environment fails (kExitEnvironment); main
// prints "locksim: <what>" and exits 3.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether `e` says the system refused an output (a read-only or full file
// system, no permission: traces/output_file.h OutputSystemError, or a trace
// writer's TraceWriteError), rather than that the output named is wrong.
inline bool is_system_output_failure(const std::exception& e) {
  return dynamic_cast<const OutputSystemError*>(&e) != nullptr || dynamic_cast<const TraceWriteError*>(&e) != nullptr;
}

// An output that cannot be written, as the exit codes say: the system's
// refusal is the environment (EnvironmentError, exit 3, with its reason:
// "No space left on device"), anything else about the output is bad input
// (UsageError, exit 2). `prefix` goes before the error's own text.
[[noreturn]] inline void throw_output_failure(const std::exception& e, const std::string& prefix = "") {
  if (is_system_output_failure(e)) throw EnvironmentError(prefix + e.what());
  throw UsageError(prefix + e.what());
}

}  // namespace locksim::cli
