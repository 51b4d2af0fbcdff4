// locksim campaign: runs N seeded scenarios (seed i = --base-seed + i) on the
// model, on the pack's own Lua in process (lua), on live redis-servers
// running the pack's own Lua, or on two of them compared event by event
// (--backend; default: the model when it stands for the pack, else lua),
// --workers at a time, checks each history with the CheckerSuite as it streams, and
// stops at the first failing seed (--keep-going: goes on and lists every
// failing seed): prints every violation of the seed and, for each violated
// property, its shrunk counterexample (search/shrink.h). What fails is
// the VerdictPolicy: every non-advisory property, plus --fail-on names, minus
// violations with a cause under --unexplained-only. Advisory reports
// (busy_poll) are summarised either way. Progress goes to stderr.
// --mutant takes a client mutant (impl/client_mutant.h) or a script mutant
// (model/variant.h, run as its ModelVariant); --scripts DIR takes a script
// pack: the model runs the ModelVariant its manifest names (refused, exit 2,
// when the model cannot stand for the pack); lua and live run its Lua (live:
// one set of redis-servers per worker, reused (flushed) across seeds); a
// pair (both = live,model; A,B) also runs every seed on the reference B (a
// model reference: the correct model) and fails a seed, as a divergence, at
// the first event where the checked history differs. A seed that cannot
// complete (live: a script that never answers; lua: a command it does not
// implement, a script past its step budget) stops the campaign with exit 2,
// naming the seed and the script. Shrinking and traces use the backend the
// seeds were checked on.
// --out DIR writes the campaign's runs directory (reports/run_summary.h):
// summary.json, report.html, failures/<seed>.jsonl for every failing seed,
// and for the first --shrink-seeds failing seeds their shrunk counterexamples
// (failures/<seed>.shrunk.jsonl) and timelines (timelines/<seed>.svg).
// Without --out: runs/<UTC time>-<profile>-<lock>[-<shard>]/ under the
// current directory (or under $LOCKSIM_RUNS_DIR), and runs/latest links to it. Every failing seed prints
// the line that reproduces it. --shard I/N runs the seed indexes i with
// i % N == I (search/campaign.h); `locksim merge` combines the shards.
// Progress on stderr: on a terminal one updating line; otherwise a plain
// line every 10 s (none for a shorter campaign).
// --guided (search/guided_campaign.h): the same budget of runs spent mostly
// on mutations of a corpus of explicit plans that reached new coverage;
// the runs directory then also holds corpus.jsonl, and --corpus FILE starts
// from one (a merged one: `locksim merge`).
// Exit: 0 no property failed, 1 a property failed, 2 bad input.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <filesystem>
#include <limits>
#include <algorithm>
#include <set>
#include <vector>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "reports/campaign_text.h"
#include "search/campaign.h"
#include "search/corpus.h"
#include "search/guided_campaign.h"
#include "properties/scenario_check.h"
#include "reports/campaign_report.h"
#include "reports/run_artifacts.h"
#include "reports/run_summary.h"
#include "sim/lua_backend_source.h"
#include "sim/model_backend_source.h"
#include "sim/run.h"
#include "tools/cli/cmd_campaign.h"
#include "tools/cli/commands.h"
#include "tools/cli/progress_line.h"
#include "tools/cli/runs_dir.h"
#include "tools/cli/scenario_flags.h"
#include "tools/cli/property_options.h"
#include "tools/cli/staged_run_dir.h"
#include "tools/cli/live_backend_source.h"
#include "tools/cli/run_backend.h"
#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

namespace {

// The command that runs this campaign again (without --out, --workers and
// --shard: the same for every shard of it and any number of workers).
std::string campaign_command_line(const CampaignRequest& args, const ProgramName& program) {
  const CampaignOptions& o = args.options;
  std::string c = program.anywhere + " campaign --seeds " + std::to_string(o.seeds) + " --base-seed " +
                  std::to_string(o.scenario.seed) + " " + scenario_command_text(o);
  c += " --backend " + campaign_backend_name(o.backend);
  if (args.match_variant) c += " --match-variant";
  if (!args.reference.empty()) c += " --reference " + shell_word(args.reference);
  if (o.keep_going) c += " --keep-going";
  if (!o.shrink) c += " --no-shrink";
  if (o.shrink_seeds != CampaignOptions{}.shrink_seeds) c += " --shrink-seeds " + std::to_string(o.shrink_seeds);
  c += o.properties.flag();
  for (const std::string& f : args.fail_on) c += " --fail-on " + shell_word(f);
  if (o.policy.unexplained_only) c += " --unexplained-only";
  if (o.cause_reruns != kDefaultCauseReruns) c += " --cause-reruns " + std::to_string(o.cause_reruns);
  if (!o.policy.fail_vacuous) c += " --allow-vacuous";
  if (o.guided) c += " --guided";
  if (o.focus) c += " --focus";
  if (!args.corpus_file.empty()) c += " --corpus " + shell_word(absolute_path_text(args.corpus_file));
  if (!args.memory_limit.empty()) c += " --memory-limit " + shell_word(args.memory_limit);
  return c;
}

// Writes the runs directory into its staging dir (the failures' files,
// summary.json, report.html), then puts it in place in one rename.
void write_outputs(const CampaignRequest& args, const CampaignResult& r, const Corpus* corpus, double wall_s,
                   BackendSource& source, StagedRunDir& staged, const ProgramName& program,
                   const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  const fs::path dir(staged.path());
  const RunArtifacts artifacts = write_run_artifacts(staged.path(), args.options, r, source, inputs);
  if (corpus != nullptr) {
    OutputFile out((dir / kCorpusFileName).string());
    out.write(corpus->to_jsonl());
    out.commit();
  }
  nlohmann::json summary = campaign_summary_json(args.options, r, campaign_command_line(args, program), wall_s, program.anywhere);
  if (!artifacts.timelines_not_drawn.empty()) mark_timelines_not_drawn(summary, artifacts.timelines_not_drawn);
  OutputFile out((dir / kSummaryFileName).string());
  out.write(summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  out.commit();
  write_campaign_report(staged.path(), ReportCommands{program.anywhere, absolute_path_text(args.out_dir)});
  staged.publish();
  const bool drawn = artifacts.timelines_not_drawn.empty();
  std::fprintf(stderr, "campaign: wrote %s (summary.json, report.html%s%s)%s\n", args.out_dir.c_str(),
               corpus != nullptr ? ", corpus.jsonl" : "",
               !r.failures.empty() ? (drawn ? ", failures/, timelines/" : ", failures/")
                                   : (args.options.shard_index == 0 && drawn ? ", timelines/sample.svg" : ""),
               staged.replaces() ? ", replacing the earlier run of this same campaign" : "");
  if (!drawn) std::fprintf(stderr, "campaign: no timeline drawn: %s\n", artifacts.timelines_not_drawn.c_str());
}

// The default runs directory: <root>/<UTC time>-<profile>-<lock>[-shard-I-of-N]
// (tools/cli/runs_dir.h).
std::string default_run_dir(const CampaignOptions& o) {
  std::string profile = o.scenario.profile.name();
  std::replace(profile.begin(), profile.end(), '+', '_');
  std::string label = profile + "-" + std::string(lock_kind_name(o.scenario.lock_kind));
  if (o.shard_count > 1) label += "-shard-" + std::to_string(o.shard_index) + "-of-" + std::to_string(o.shard_count);
  return new_run_dir(label);
}

// "I/N" with 0 <= I < N <= kMaxCampaignShards; throws UsageError.
void parse_shard(const std::string& text, CampaignOptions* o) {
  const size_t slash = text.find('/');
  uint64_t index = 0, count = 0;
  if (slash == std::string::npos || !parse_whole_integer(text.substr(0, slash), &index) ||
      !parse_whole_integer(text.substr(slash + 1), &count) || text.substr(0, slash).find_first_not_of("0123456789") != std::string::npos ||
      text.substr(slash + 1).find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError("--shard: expected I/N (e.g. 0/3: the first of 3 shards), got '" + text + "'");
  }
  if (count < 1 || count > static_cast<uint64_t>(kMaxCampaignShards)) {
    throw UsageError("--shard " + text + ": N must be between 1 and " + std::to_string(kMaxCampaignShards));
  }
  if (index >= count) {
    throw UsageError("--shard " + text + ": I must be between 0 and N-1 = " + std::to_string(count - 1));
  }
  o->shard_index = static_cast<int>(index);
  o->shard_count = static_cast<int>(count);
}

// Campaign progress (tools/cli/progress_line.h): seeds done of total,
// seeds/s, simulated seconds per wall second, failing seeds, ETA; then,
// while failures are shrunk, the seed and property, the shortest
// counterexample so far, the tries and the time spent shrinking
// (*shrink_started_s: when the first shrink try was heard of).
void show_progress(ProgressLine& line, const CampaignProgressInfo& p, std::optional<double>* shrink_started_s) {
  if (p.shrinking) {
    if (!*shrink_started_s) *shrink_started_s = line.elapsed_s();
    if (!line.due()) return;
    const ShrinkProgress& s = *p.shrinking;
    char text[240];
    std::snprintf(text, sizeof text,
                  "shrinking seed %llu for %s: shortest so far %zu trace events, %d tries (at most %d), %.0f s",
                  static_cast<unsigned long long>(s.seed), s.property.c_str(), s.best_events, s.tries, s.max_tries,
                  line.elapsed_s() - **shrink_started_s);
    line.print(text);
    return;
  }
  if (!line.due(p.done == p.total)) return;
  const double elapsed_s = line.elapsed_s();
  const double seeds_per_s = elapsed_s > 0 ? p.done / elapsed_s : 0;
  const double sim_per_wall = elapsed_s > 0 ? static_cast<double>(p.simulated_us) / 1e6 / elapsed_s : 0;
  const double eta_s = seeds_per_s > 0 ? (p.total - p.done) / seeds_per_s : 0;
  char text[200];
  std::snprintf(text, sizeof text,
                "campaign %d/%d seeds (%d%%), %.1f seeds/s, %.0f simulated s per wall s, %d failed, ETA %.0f s",
                p.done, p.total, static_cast<int>(100LL * p.done / std::max(1, p.total)), seeds_per_s, sim_per_wall,
                p.failed, eta_s);
  line.print(text);
}

// The default backend: the model when it stands for the pack, else lua (the
// pack's own Lua in process).
CampaignBackend default_backend(const Scenario& named, const ScriptPack& pack) {
  return CampaignBackend{default_backend_for(named, pack), std::nullopt};
}

// The reference side of --reference PACK: PACK's Lua on a backend of the
// checked kind, named apart from the checked side's in divergences.
class ReferencePackSource final : public BackendSource {
 public:
  explicit ReferencePackSource(std::unique_ptr<BackendSource> inner) : inner_(std::move(inner)) {}
  std::string kind() const override { return inner_->kind() + "(reference pack)"; }
  Backend& fresh(const Scenario& scenario) override { return inner_->fresh(scenario); }

 private:
  std::unique_ptr<BackendSource> inner_;
};

// --reference PACK: which backend runs PACK. A pair names it (lua,live);
// both (live against the model) and a single backend run it on the checked
// kind. The model runs our scripts only: never a reference pack.
CampaignBackend with_reference_pack(CampaignBackend b) {
  if (b.checked == BackendKind::Model) {
    throw UsageError("--reference runs the reference pack's own Lua beside this pack's: check this pack on lua or "
                     "live (--backend lua, live, both or lua,live), not on the model");
  }
  if (b.reference == BackendKind::Model && !(b == kBothBackends)) {
    throw UsageError("--reference: the model runs our scripts only, never a reference pack: name lua or live as the "
                     "reference backend (e.g. --backend lua,live), or one backend for both packs");
  }
  if (!b.reference || b == kBothBackends) b.reference = b.checked;
  return b;
}

// A source of `kind` for one worker. A model reference is the correct model
// (or, match_variant, the pack's variant); a checked model runs the
// scenario's variant. Live servers start here, before any seed runs, so a
// script Redis rejects is exit 2 at once.
std::unique_ptr<BackendSource> make_source(BackendKind kind, bool reference, bool match_variant,
                                           const ScriptPack* pack, const Scenario& tmpl, LuaLimits lua_limits) {
  const bool correct_model = kind == BackendKind::Model && reference && !match_variant;
  return make_backend_source(kind, pack, tmpl.servers,
                             correct_model ? std::optional<ModelVariant>(ModelVariant::Correct) : std::nullopt,
                             lua_limits);
}

// One worker per --workers, each with its own sources (the model needs no
// pack; lua and live run `pack`). With a reference pack, each worker's
// reference runs it.
std::vector<CampaignWorker> make_workers(const CampaignOptions& o, const Scenario& tmpl, bool match_variant,
                                         const ScriptPack& pack, const std::optional<ScriptPack>& reference_pack,
                                         LuaLimits lua_limits) {
  std::vector<CampaignWorker> workers(static_cast<size_t>(o.workers));
  const ScriptPack* lua_pack = runs_model_only(o.backend) ? nullptr : &pack;
  try {
    for (CampaignWorker& w : workers) {
      w.checked = make_source(o.backend.checked, false, match_variant, lua_pack, tmpl, lua_limits);
      if (reference_pack) {
        w.reference = std::make_unique<ReferencePackSource>(
            make_source(*o.backend.reference, true, false, &*reference_pack, tmpl, lua_limits));
      } else if (o.backend.reference) {
        w.reference = make_source(*o.backend.reference, true, match_variant, lua_pack, tmpl, lua_limits);
      }
    }
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  } catch (const RedisError& e) {
    throw EnvironmentError(std::string("cannot start the live backend: ") + e.what());
  }
  return workers;
}

// --reference PACK, loaded and held to the checked pack's design.
std::optional<ScriptPack> load_reference(const CampaignRequest& q, const Scenario& tmpl) {
  if (q.reference.empty()) return std::nullopt;
  std::optional<ScriptPack> reference;
  try {
    reference = ScriptPack::load(q.reference);
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad reference pack: ") + e.what());
  }
  // The same client runs against both packs: they must declare one design
  // (the kinds each provides aside: the scenario's must be among both's).
  LockDesign theirs = reference->design();
  theirs.kinds = tmpl.design.kinds;
  if (theirs != tmpl.design) {
    throw UsageError("--reference " + q.reference + " declares another lock design than the checked pack (" +
                     design_to_json(reference->design()).dump() + " against " + design_to_json(tmpl.design).dump() +
                     "): their histories differ from the first wait on; compare packs of one design");
  }
  for (DesignKind k : kinds_needed_by(tmpl.lock_kind)) {
    if (!reference->design().provides(k)) {
      throw UsageError("--reference " + q.reference + " does not provide the " + std::string(design_kind_name(k)) +
                       " lock kind");
    }
  }
  return reference;
}

// --corpus FILE, read within its bounds (search/corpus.h), every plan this
// campaign's.
Corpus load_start_corpus(const CampaignRequest& q, const Scenario& tmpl) {
  Corpus start;
  if (q.corpus_file.empty()) return start;
  try {
    start = Corpus::read_start_file(q.corpus_file);
  } catch (const CorpusError& e) {
    throw UsageError(std::string("--corpus: ") + e.what());
  }
  for (const CorpusEntry& e : start.entries()) {
    if (!corpus_entry_fits(tmpl, e.plan.scenario)) {
      throw UsageError("--corpus " + q.corpus_file + ": the plan of run " + std::to_string(e.run) +
                       " is another campaign's (its scenario differs in more than the seed and clients)");
    }
  }
  return start;
}

// What a campaign runs with, resolved once: its options (the backend
// decided), the script pack loaded once and everything made from it (the
// template, the workers' backends, the files never to write over), the
// reference pack, the corpus it starts from.
struct CampaignSetup {
  CampaignOptions options;
  Scenario tmpl;
  std::vector<std::string> inputs;
  Corpus start;
  std::vector<CampaignWorker> workers;
};

CampaignSetup set_up(const CampaignRequest& q) {
  CampaignSetup out;
  out.options = q.options;
  CampaignOptions& o = out.options;
  Scenario named = o.scenario;
  named.scripts = campaign_scripts(o);
  std::optional<ScriptPack> pack;
  try {
    pack = load_scenario_pack(named);
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  }
  o.backend = q.backend.value_or(default_backend(named, *pack));
  if (q.match_variant && o.backend.reference != BackendKind::Model) {
    throw UsageError("--match-variant only goes with a model reference (--backend both, --backend lua,model)");
  }
  if (q.match_variant && !pack->model_variant()) {
    throw UsageError("--match-variant: the pack " + pack->dir() +
                     " names no model variant (no \"model_variant\" in its manifest), so there is nothing to match: "
                     "it is compared with the correct model");
  }
  if (!q.reference.empty()) {
    o.backend = with_reference_pack(o.backend);
    o.reference_scripts = q.reference;
  }
  if (o.guided && o.backend.reference) {
    throw UsageError("--guided checks one backend: --backend " + campaign_backend_name(o.backend) +
                     " compares two (run the guided campaign on one, e.g. --backend " +
                     std::string(backend_kind_name(o.backend.checked)) + ")");
  }
  try {
    out.tmpl = campaign_template(o, *pack);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  const std::optional<ScriptPack> reference = load_reference(q, out.tmpl);
  out.start = load_start_corpus(q, out.tmpl);
  if (!q.corpus_file.empty()) o.guided_corpus_digest = out.start.digest();
  if (!o.scenario.scripts.empty()) out.inputs = pack->files();
  out.workers = make_workers(o, out.tmpl, q.match_variant, *pack, reference, q.lua_limits);
  return out;
}

// The seeds run (or the guided runs), with the progress line.
CampaignResult run_with_progress(CampaignSetup& setup, std::optional<GuidedResult>* guided) {
  ProgressLine progress;
  std::optional<double> shrink_started_s;
  const CampaignProgress show = [&progress, &shrink_started_s](const CampaignProgressInfo& p) {
    show_progress(progress, p, &shrink_started_s);
  };
  try {
    CampaignResult r;
    if (setup.options.guided) {
      *guided = run_guided_campaign(setup.tmpl, setup.options, setup.workers, setup.start, show);
      r = (*guided)->result;
    } else {
      r = run_campaign(setup.tmpl, setup.options, setup.workers, show);
    }
    progress.end();
    return r;
  } catch (const CampaignSeedError& e) {
    progress.end();
    throw UsageError(std::string("campaign cut short on the ") + campaign_backend_name(setup.options.backend) +
                     " backend: " + e.what() + "; no verdict, no outputs written");
  }
}

void print_guided(const GuidedResult& g, const Corpus& start) {
  std::fprintf(stderr,
               "guided: %llu runs: %llu fresh seeds, %llu mutated plans; corpus %zu plans (%zu from --corpus, %llu "
               "from mutated plans)\n",
               static_cast<unsigned long long>(g.fresh_runs + g.mutated_runs),
               static_cast<unsigned long long>(g.fresh_runs), static_cast<unsigned long long>(g.mutated_runs),
               g.corpus.size(), start.size(), static_cast<unsigned long long>(g.corpus_from_mutations));
}

}  // namespace

CampaignRequest validate_campaign(const CampaignArgs& a) {
  CampaignRequest q;
  CampaignOptions& o = q.options;
  o.seeds = a.seeds;
  o.workers = a.workers;
  o.shrink = !a.no_shrink;
  o.shrink_seeds = a.shrink_seeds;
  o.keep_going = a.keep_going;
  o.cause_reruns = a.cause_reruns;
  o.guided = a.guided;
  o.focus = a.focus;
  if (o.focus && o.guided) throw UsageError("--focus and --guided are two ways to choose runs: take one");
  o.policy.unexplained_only = a.unexplained_only;
  o.policy.fail_vacuous = !a.allow_vacuous;
  a.scenario.apply(&o);
  o.scenario.seed = a.base_seed;
  if (o.seeds < 1 || o.seeds > 100'000'000) throw UsageError("--seeds must be between 1 and 100000000");
  if (o.scenario.seed > std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(o.seeds - 1)) {
    throw UsageError("--base-seed " + std::to_string(o.scenario.seed) + " + --seeds " + std::to_string(o.seeds) +
                     " passes the largest seed, 18446744073709551615 (seeds would wrap around to 0)");
  }
  if (a.backend_given) {
    q.backend = campaign_backend_from_name(a.backend);
    if (!q.backend) {
      throw UsageError("--backend: unknown backend '" + a.backend +
                       "' (model, lua, live, both, or two different ones to compare: e.g. lua,live)");
    }
  }
  try {
    apply_fail_on(&o.policy, a.fail_on);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  o.properties = a.properties.parse(&o.policy, a.fail_on);
  if (!a.reference.empty() && a.match_variant) {
    throw UsageError("--match-variant goes with a model reference, --reference with a pack: not both");
  }
  if (!a.reference.empty() && q.backend) with_reference_pack(*q.backend);  // refuses a model checked side at once
  if (!a.shard.empty()) parse_shard(a.shard, &o);
  if (!a.corpus_file.empty() && !o.guided) throw UsageError("--corpus goes with --guided (the corpus it starts from)");
  if (a.corpus_given && a.corpus_file.empty()) throw UsageError("--corpus is empty: name a corpus.jsonl");
  if (a.out_given && a.out_dir.empty()) throw UsageError("--out is empty: name the runs directory to write");
  q.match_variant = a.match_variant;
  q.reference = a.reference;
  q.json = a.json;
  q.out_dir = a.out_dir;
  q.corpus_file = a.corpus_file;
  q.fail_on = a.fail_on;
  q.lua_limits = validate_memory_limit(a.memory_limit);
  if (a.memory_limit.given) q.memory_limit = a.memory_limit.text;
  return q;
}

int run_campaign_command(const CampaignRequest& q, const ProgramName& program) {
  CampaignSetup setup = set_up(q);
  const CampaignOptions& o = setup.options;
  CampaignRequest named = q;
  named.options = o;
  const bool default_dir = named.out_dir.empty();
  if (default_dir) named.out_dir = default_run_dir(o);
  // Claimed for the whole run: a second campaign on the same --out is
  // refused, and the run appears there complete or not at all. A complete
  // run of this same campaign shard (a retry) is replaced.
  const nlohmann::json configuration =
      campaign_configuration_json(o, setup.tmpl, std::string(campaign_backend_name(o.backend)));
  const nlohmann::json shard = {{"index", o.shard_index}, {"count", o.shard_count}};
  StagedRunDir staged(named.out_dir, [&](const nlohmann::json& old) {
    return old.value("build", nlohmann::json()) == std::string(trace_build_id()) &&
           old["configuration"] == configuration && old["shard"] == shard;
  });
  const auto started = std::chrono::steady_clock::now();
  std::optional<GuidedResult> guided;
  const CampaignResult r = run_with_progress(setup, &guided);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (guided) print_guided(*guided, setup.start);
  // The verdict first: whatever happens to the outputs, it is never lost.
  if (q.json) {
    std::printf("%s\n", campaign_result_to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s", format_campaign_result(r).c_str());
  }
  std::fflush(stdout);
  try {
    write_outputs(named, r, guided ? &guided->corpus : nullptr, wall_s, *setup.workers.front().checked, staged,
                  program, setup.inputs);
  } catch (const std::exception& e) {
    // Nothing of the run is left (the staging dir goes); say which verdict
    // stands, naming files by where they were going.
    std::string what = e.what();
    for (size_t at = what.find(staged.path()); at != std::string::npos; at = what.find(staged.path(), at)) {
      what.replace(at, staged.path().size(), named.out_dir);
    }
    std::fprintf(stderr,
                 "locksim: cannot write the campaign outputs: %s (the campaign itself %s, as printed above; "
                 "nothing written to %s; exit 3 for the outputs)\n",
                 what.c_str(), r.failed() ? "FAILED" : "passed", named.out_dir.c_str());
    return kExitEnvironment;
  }
  if (default_dir) point_latest_at(named.out_dir, "campaign");
  // One line per failing seed that reproduces it (stderr under --json).
  FILE* reproduce = q.json ? stderr : stdout;
  const std::filesystem::path dir(named.out_dir);
  for (const SeedFailure& f : r.failures) {
    std::fprintf(reproduce, "reproduce seed %llu: %s replay %s\n", static_cast<unsigned long long>(f.seed),
                 program.as_invoked.c_str(), shell_word((dir / failure_trace_file(f.seed)).string()).c_str());
  }
  return r.failed() ? 1 : 0;
}

void add_campaign_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<CampaignArgs>();
  CLI::App* cmd =
      app.add_subcommand("campaign", "Run seeded scenarios on the model or live Redis and check every property");
  cmd->add_option("--seeds", args->seeds, "number of seeds to run")->required()->transform(integer_in(1, 100'000'000));
  add_scenario_flags(cmd, &args->scenario);
  add_memory_limit_option(cmd, &args->memory_limit);
  cmd->add_option("--backend", args->backend,
                  "model, lua (the pack's own Lua in process, on the model's store), live (the pack's Lua on "
                  "redis-servers in virtual time), both (live, and every history compared event by event with "
                  "the correct model's), or A,B: any two of model, lua, live, each seed checked on A and "
                  "compared event by event with B (e.g. lua,live). Default: model, or lua for a pack the model "
                  "cannot stand for")
      ->each([args](const std::string&) { args->backend_given = true; });
  cmd->add_option("--reference", args->reference,
                  "compare every seed with the same seed on this script pack (a directory or builtin: name) instead "
                  "of the correct model: on the checked backend (--backend lua, live, or both: live), or on B of "
                  "--backend A,B; e.g. a changed pack against its released version. Both packs must declare the same "
                  "lock design");
  cmd->add_flag("--match-variant", args->match_variant,
                "with a model reference (--backend both, lua,model): compare with the model variant the pack "
                "names instead of the correct model");
  cmd->add_option("--workers", args->workers,
                  "seeds run at once, one backend (lua: one Lua state per server; live: one set of "
                  "redis-servers) each; the result is the same for any number")
      ->capture_default_str()->transform(integer_in(1, kMaxCampaignWorkers));
  cmd->add_option("--base-seed", args->base_seed, "seed of the first run")->capture_default_str()->transform(non_negative_integer());
  cmd->add_flag("--no-shrink", args->no_shrink, "report the failing seeds without shrinking");
  cmd->add_option("--shrink-seeds", args->shrink_seeds,
                  "shrink and draw the first this many failing seeds (seed order; every failing seed still gets "
                  "its full trace)")
      ->capture_default_str()->transform(integer_in(0, kMaxShrinkSeeds));
  cmd->add_flag("--keep-going", args->keep_going,
                "go on past failing seeds and list every one (the first --shrink-seeds are shrunk)");
  cmd->add_option("--shard", args->shard,
                  "I/N: run only the seed indexes i (seed = --base-seed + i) with i % N == I; "
                  "`locksim merge` combines the N shards' directories");
  cmd->add_option("--fail-on", args->fail_on,
                  "also fail on these properties (comma-separated or repeated; e.g. busy_poll, or all). "
                  "Default: every property except the advisory busy_poll");
  add_property_options(cmd, &args->properties);
  cmd->add_flag("--unexplained-only", args->unexplained_only,
                "fail only on unexplained violations: set aside (and count) those whose cause re-runs confirmed, "
                "a fault the property permits without which the same plan no longer violates");
  cmd->add_option("--cause-reruns", args->cause_reruns,
                  "re-runs per violation of a failing seed to prove its cause (without its faults); when they run "
                  "out the cause is unconfirmed; 0: no re-run, every violation unexplained")
      ->capture_default_str()->transform(integer_in(0, kMaxCauseReruns));
  cmd->add_flag("--allow-vacuous", args->allow_vacuous,
                "do not fail a campaign in which no operation ever succeeded (it checked nothing; by default it fails)");
  cmd->add_flag("--focus", args->focus,
                "focused runs: each seed draws one trigger that puts its profile's faults where a lock is fragile "
                "(a contended holder crashes or pauses, a crash right after a renewal or during a release, a fair "
                "line's head crashes, a refused waiter is paused or its clock steps, a holder is paused across a "
                "renewal, a hold ends at a renewal), or stays a plain seed (a quarter); every failure says what its "
                "seed was drawn to do");
  cmd->add_flag("--guided", args->guided,
                "spend the seeds mostly on mutations of a corpus of plans that reached new coverage, preferring "
                "rare coverage (same seed, same runs and result for any --workers; writes corpus.jsonl)");
  cmd->add_option("--corpus", args->corpus_file,
                  "with --guided: start from this corpus.jsonl (a guided campaign's, or `locksim merge`'s of its "
                  "shards): at most 128 MiB, 10000 plans, each at most 256 tasks and 20000 operations")
      ->each([args](const std::string&) { args->corpus_given = true; });
  cmd->add_flag("--json", args->json, "print the result as JSON");
  cmd->add_option("--out", args->out_dir,
                  "runs directory to write: summary.json, report.html, failures/<seed>.jsonl, "
                  "failures/<seed>.shrunk.jsonl, timelines/<seed>.svg (default: a new "
                  "runs/<UTC time>-<profile>-<lock>/, linked from runs/latest; $LOCKSIM_RUNS_DIR replaces runs/)")
      ->each([args](const std::string&) { args->out_given = true; });
  cmd->callback([args, ctx] { ctx->exit_code = run_campaign_command(validate_campaign(*args), ctx->program); });
}

}  // namespace locksim::cli
