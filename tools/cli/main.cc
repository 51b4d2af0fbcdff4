// locksim: command-line entry point. Dispatches to the subcommands of
// commands.h; maps CLI11 parse errors and UsageError to exit code 2,
// EnvironmentError to 3 (commands.h: the exit codes).
// Installs the exit-cleanup signal handlers and sweeps stale server dirs
// (tools/server/exit_cleanup.h, server_dir.h) before anything else.
#include <cstdio>
#include <exception>

#include "tools/cli/commands.h"
#include "tools/server/exit_cleanup.h"
#include "tools/server/server_dir.h"

int main(int argc, char** argv) {
  // Servers and temp dirs of this run go with it even when a signal ends it;
  // those of runs killed with SIGKILL go now.
  locksim::install_exit_cleanup_handlers();
  locksim::sweep_stale_server_dirs();
  CLI::App app{"locksim: deterministic virtual-time verification harness for Redis locks"};
  app.require_subcommand(1);
  locksim::cli::CliContext context;
  context.program = locksim::cli::program_name(argv[0]);
  locksim::cli::add_doctor_command(app, &context);
  locksim::cli::add_timeline_command(app, &context);
  locksim::cli::add_run_command(app, &context);
  locksim::cli::add_replay_command(app, &context);
  locksim::cli::add_campaign_command(app, &context);
  locksim::cli::add_mutants_command(app, &context);
  locksim::cli::add_diff_command(app, &context);
  locksim::cli::add_check_command(app, &context);
  locksim::cli::add_bench_command(app, &context);
  locksim::cli::add_pack_command(app, &context);
  locksim::cli::add_stress_command(app, &context);
  locksim::cli::add_report_command(app, &context);
  locksim::cli::add_coverage_command(app, &context);
  locksim::cli::add_merge_command(app, &context);
  locksim::cli::add_explore_command(app, &context);
  locksim::cli::add_index_command(app, &context);
  locksim::cli::add_shrink_command(app, &context);
  // After the subcommands, which would otherwise repeat it.
  app.footer(
      "Environment: LOCKSIM_SCRIPTS=DIR replaces the built-in script pack (builtin:impl/lua, compiled in) "
      "wherever no --scripts is given; LOCKSIM_VCLOCK_SHIM=FILE names the virtual-clock shim for redis-server "
      "(default: the one installed beside locksim). Exit codes: 0 success; 1 a check failed (a property, a "
      "divergence, a replay mismatch); 2 bad input; 3 the environment (an output directory that cannot be written "
      "or is busy, a redis-server that cannot be started): the same command may succeed later or elsewhere.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, exit 2: bad input is never a crash.
    if (const std::string unknown = locksim::cli::unknown_subcommand_message(app, argc, argv); !unknown.empty()) {
      std::fprintf(stderr, "locksim: %s\n", unknown.c_str());
      return 2;
    }
    // An option before any subcommand: name it (CLI11 says only that a
    // subcommand is required, or complains about the next one).
    if (argc > 1 && argv[1][0] == '-') {
      std::string names;
      for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      std::fprintf(stderr, "locksim: unknown option '%s': locksim takes a subcommand first (one of: %s; see --help)\n",
                   argv[1], names.c_str());
      return 2;
    }
    std::fprintf(stderr, "locksim: %s (see --help)\n", e.what());
    return 2;
  } catch (const locksim::cli::UsageError& e) {
    std::fprintf(stderr, "locksim: %s\n", e.what());
    return locksim::cli::kExitBadInput;
  } catch (const locksim::cli::EnvironmentError& e) {
    std::fprintf(stderr, "locksim: %s\n", e.what());
    return locksim::cli::kExitEnvironment;
  } catch (const std::exception& e) {
    // An output the system refused that no command caught: the environment.
    if (locksim::cli::is_system_output_failure(e)) {
      std::fprintf(stderr, "locksim: %s\n", e.what());
      return locksim::cli::kExitEnvironment;
    }
    std::fprintf(stderr, "locksim: error: %s\n", e.what());
    return 2;
  }
  return context.exit_code;
}
