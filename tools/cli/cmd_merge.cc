// locksim merge DIR... --out DIR: combines the runs directories of shards
// 0..N-1 of one campaign (campaign --shard I/N --out DIR_I) into one runs
// directory: the merged summary.json (reports/summary_merge.h), every
// failure's trace, the shrunk traces and timelines the merged summary keeps,
// and report.html. Refuses (exit 2, naming the directories) shards of
// different campaigns or builds, overlapping or missing shards, and an --out
// that is one of the inputs. Exit: 0 the merged campaign passed, 1 it failed
// (as the campaign would), 2 bad input or a file that cannot be written.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/campaign_report.h"
#include "reports/run_summary.h"
#include "reports/summary_merge.h"
#include "tools/cli/commands.h"
#include "tools/cli/fresh_run_dir.h"
#include "traces/output_file.h"

namespace locksim::cli {

namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir;
};

nlohmann::json read_summary(const std::string& dir) {
  const fs::path path = fs::path(dir) / kSummaryFileName;
  std::ifstream in(path);
  if (!in) throw UsageError(path.string() + ": cannot read (is " + dir + " a campaign's runs directory?)");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(path.string() + ": not valid JSON: " + e.what());
  }
}

void copy_shard_file(const fs::path& from, const fs::path& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw UsageError(from.string() + ": cannot read (the shard's summary names it)");
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  OutputFile out(to.string());
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) out.write(std::string_view(buffer, static_cast<size_t>(in.gcount())));
  if (in.bad()) throw UsageError(from.string() + ": read error");
  out.commit();
}

int merge_command(const MergeArgs& args) {
  std::vector<ShardSummary> shards;
  for (const std::string& dir : args.dirs) {
    if (!fs::is_directory(dir)) throw UsageError(dir + ": not a directory");
    if (fs::exists(args.out_dir) && same_file(dir, args.out_dir)) {
      throw UsageError("--out " + args.out_dir + " is one of the shards to merge (" + dir + "): give a new directory");
    }
    shards.push_back({dir, read_summary(dir)});
  }
  nlohmann::json merged;
  try {
    merged = merge_summaries(shards);
  } catch (const MergeError& e) {
    throw UsageError(e.what());
  }
  refuse_used_run_dir(args.out_dir);
  std::error_code ec;
  fs::create_directories(args.out_dir, ec);
  if (ec || !fs::is_directory(args.out_dir)) {
    throw UsageError("cannot create output directory '" + args.out_dir + "': " + (ec ? ec.message() : "not a directory"));
  }
  try {
    // Each file from the shard whose summary names it.
    for (const ShardSummary& s : shards) {
      const std::vector<std::string> kept = summary_files(merged);
      for (const std::string& file : summary_files(s.summary)) {
        if (std::find(kept.begin(), kept.end(), file) == kept.end()) continue;
        copy_shard_file(fs::path(s.dir) / file, fs::path(args.out_dir) / file);
      }
    }
    OutputFile out((fs::path(args.out_dir) / kSummaryFileName).string());
    out.write(merged.dump(2) + "\n");
    out.commit();
    write_campaign_report(args.out_dir);
  } catch (const OutputError& e) {
    throw UsageError(std::string("cannot write the merged outputs: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  const auto& counts = merged["counts"];
  std::printf("merge: %zu shards, %s seeds run, %s failed; wrote %s\n", shards.size(), counts["seeds_run"].dump().c_str(),
              counts["seeds_failed"].dump().c_str(), args.out_dir.c_str());
  std::string previous_seed;
  for (const auto& f : merged["failures"]) {  // one line per failing seed
    if (f["seed"].dump() == previous_seed) continue;
    previous_seed = f["seed"].dump();
    std::printf("reproduce seed %s: locksim replay %s\n", previous_seed.c_str(),
                (fs::path(args.out_dir) / f["trace"].get<std::string>()).string().c_str());
  }
  return merged["failures"].empty() ? 0 : 1;
}

}  // namespace

void add_merge_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine the runs directories of a campaign's shards (campaign --shard I/N) into one");
  cmd->add_option("dirs", args->dirs, "the shards' runs directories, one per shard 0..N-1")->required();
  cmd->add_option("--out", args->out_dir, "the merged runs directory to write")->required();
  cmd->callback([args, exit_code] { *exit_code = merge_command(*args); });
}

}  // namespace locksim::cli
