// locksim merge DIR... --out DIR: combines the runs directories of shards
// 0..N-1 of one campaign (campaign --shard I/N --out DIR_I) into one runs
// directory: the merged summary.json (reports/summary_merge.h), every
// failure's trace, the shrunk traces and timelines the merged summary keeps,
// and report.html; for a guided campaign, the shards' corpora in one
// corpus.jsonl (search/corpus.h). Refuses (exit 2, naming the directories) shards of
// different campaigns or builds, overlapping or missing shards, and an --out
// that is one of the inputs. Prints the campaign's verdict as `campaign`
// does: its headline, its results line (unexplained, explained by cause,
// advisory), its last line; then what it wrote and a reproduce line per
// failing seed. Exit: 0 the merged campaign passed, 1 it failed (as the
// campaign would), 2 bad input, 3 the merged directory cannot be written.
// Shards are data that may be hostile (a shared volume): every summary is
// read bounded and checked field by field (reports/run_summary.h), and only
// the failure files a campaign itself writes are copied, opened without
// following links, regular files only (reports/run_files.h). The merged
// directory appears complete or not at all (tools/cli/staged_run_dir.h).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/campaign_report.h"
#include "reports/campaign_text.h"
#include "search/corpus.h"
#include "reports/run_summary.h"
#include "reports/summary_merge.h"
#include "tools/cli/commands.h"
#include "reports/run_files.h"
#include "tools/cli/scenario_flags.h"
#include "tools/cli/staged_run_dir.h"
#include "traces/output_file.h"

namespace locksim::cli {

namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir;
};

// Copies <shard>/<file> (a name its validated summary gives: inside
// failures/ or timelines/) to <staging>/<file>, opening the source without
// following links, refusing anything but a regular file of bounded size.
void copy_shard_file(const std::string& shard, const std::string& file, const std::string& staging) {
  int in = -1;
  try {
    in = open_run_file(shard, file, kMaxRunFileBytes);
  } catch (const RunFileError& e) {
    throw UsageError(std::string(e.what()) + " (named by " + shard + "/" + kSummaryFileName + ")");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{in};
  const fs::path to = fs::path(staging) / file;
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  OutputFile out(to.string());
  char buffer[1 << 16];
  uint64_t copied = 0;
  for (;;) {
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UsageError(shard + "/" + file + ": read error: " + std::strerror(errno));
    if (n == 0) break;
    copied += static_cast<uint64_t>(n);
    if (copied > kMaxRunFileBytes) throw UsageError(shard + "/" + file + ": grew past its bound while copied");
    out.write(std::string_view(buffer, static_cast<size_t>(n)));
  }
  out.commit();
}

// A guided campaign's shards: their corpora in one (each shard's
// corpus.jsonl read bounded, without following links).
std::optional<Corpus> merged_corpus(const std::vector<ShardSummary>& shards, const nlohmann::json& merged) {
  if (!merged["configuration"].contains("guided")) return std::nullopt;
  std::vector<Corpus> parts;
  for (const ShardSummary& s : shards) {
    try {
      std::istringstream text(read_run_file(s.dir, kCorpusFileName, kMaxCorpusFileBytes));
      parts.push_back(Corpus::from_jsonl(text, s.dir + "/" + kCorpusFileName));
    } catch (const RunFileError& e) {
      throw UsageError(std::string(e.what()) + " (a guided campaign's shard keeps its corpus there)");
    } catch (const CorpusError& e) {
      throw UsageError(e.what());
    }
  }
  return Corpus::merge(parts);
}

int merge_command(const MergeArgs& args, const ProgramName& program) {
  // Everything is read and checked before anything is written.
  std::vector<ShardSummary> shards;
  for (const std::string& dir : args.dirs) {
    if (!fs::is_directory(dir)) throw UsageError(dir + ": not a directory");
    if (fs::exists(args.out_dir) && same_file(dir, args.out_dir)) {
      throw UsageError("--out " + args.out_dir + " is one of the shards to merge (" + dir + "): give a new directory");
    }
    try {
      shards.push_back({dir, read_run_summary(dir)});
    } catch (const RunFileError& e) {
      throw UsageError(std::string(e.what()) + " (is " + dir + " a campaign shard's runs directory?)");
    }
  }
  nlohmann::json merged;
  try {
    merged = merge_summaries(shards);
  } catch (const MergeError& e) {
    throw UsageError(e.what());
  }
  const std::optional<Corpus> corpus = merged_corpus(shards, merged);
  // A retried merge of the same campaign replaces its own earlier output.
  StagedRunDir staged(args.out_dir, [&](const nlohmann::json& old) {
    return old["shard"].is_null() && old["build"] == merged["build"] && old["configuration"] == merged["configuration"];
  });
  try {
    // Each file from the shard whose summary names it.
    const std::vector<std::string> kept = summary_files(merged);
    for (const ShardSummary& s : shards) {
      for (const std::string& file : summary_files(s.summary)) {
        if (std::find(kept.begin(), kept.end(), file) == kept.end()) continue;
        copy_shard_file(s.dir, file, staged.path());
      }
    }
    OutputFile out((fs::path(staged.path()) / kSummaryFileName).string());
    out.write(merged.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    out.commit();
    if (corpus) {
      OutputFile corpus_out((fs::path(staged.path()) / kCorpusFileName).string());
      corpus_out.write(corpus->to_jsonl());
      corpus_out.commit();
    }
    write_campaign_report(staged.path(), ReportCommands{program.anywhere, absolute_path_text(args.out_dir)});
    staged.publish();
  } catch (const OutputError& e) {
    throw EnvironmentError(std::string("cannot write the merged outputs: ") + e.what() + " (nothing written to " +
                           args.out_dir + ")");
  } catch (const UsageError&) {
    throw;
  } catch (const EnvironmentError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  // The campaign's verdict as the campaign prints it (reports/campaign_text.h).
  const ResultCounts verdict = result_counts_from_summary(merged);
  const auto& counts = merged["counts"];
  std::printf("%s", format_headline(verdict).c_str());
  if (verdict.vacuous_fails) std::printf("VACUOUS: no operation succeeded in any seed: nothing was checked\n");
  std::printf("%s", format_result_tally(verdict).c_str());
  if (verdict.failed) {
    std::printf("failed: %d of %d seeds (%llu unexplained violation(s), %llu explained)\n", verdict.failing_seeds,
                verdict.seeds_run, static_cast<unsigned long long>(verdict.unexplained),
                static_cast<unsigned long long>(verdict.explained));
  } else {
    std::printf("ok: %d seeds, %s events, no property failed%s\n", verdict.seeds_run,
                counts["events_checked"].dump().c_str(),
                verdict.explained > 0 && verdict.unexplained_only ? " unexplained" : "");
  }
  std::printf("merge: %zu shards, %s seeds run, %s failed; wrote %s%s\n", shards.size(), counts["seeds_run"].dump().c_str(),
              counts["seeds_failed"].dump().c_str(), args.out_dir.c_str(),
              staged.replaces() ? ", replacing the earlier merge of this same campaign" : "");
  std::string previous_seed;
  for (const auto& f : merged["failures"]) {  // one line per failing seed
    if (f["seed"].dump() == previous_seed) continue;
    previous_seed = f["seed"].dump();
    std::printf("reproduce seed %s: %s replay %s\n", previous_seed.c_str(), program.as_invoked.c_str(),
                shell_word((fs::path(args.out_dir) / f["trace"].get<std::string>()).string()).c_str());
  }
  return verdict.failed ? 1 : 0;
}

}  // namespace

void add_merge_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine the runs directories of a campaign's shards (campaign --shard I/N) into one");
  cmd->add_option("dirs", args->dirs, "the shards' runs directories, one per shard 0..N-1")->required();
  cmd->add_option("--out", args->out_dir, "the merged runs directory to write")->required();
  cmd->callback([args, ctx] { ctx->exit_code = merge_command(*args, ctx->program); });
}

}  // namespace locksim::cli
