// The explorer's fingerprint (World::digest, ExplicitRun::digest) merges
// two states only if they do the same from then on. Checked by its
// consequence: random walks (random faults, fates and picks, as the
// explorer's random walk takes them) record the fingerprint after every
// transition; for states met on different walks with equal fingerprints,
// each walk is run again to that point and continued with first options
// only (no fault, every message on time, the first actor), and the two
// continuations must give the same events, times taken relative to the
// meeting point. Counterfactual: the comparison catches a fingerprint that
// merges states that do not do the same (ACoarseFingerprintIsCaught).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/scenario_check.h"
#include "search/explore.h"
#include "search/explore_setup.h"
#include "search/explore_tape.h"
#include "sim/explicit_run.h"
#include "sim/model_backend_source.h"
#include "sim/world.h"
#include "tests/lock_kind_of.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

struct Where {
  uint64_t walk = 0;    // its random stream
  size_t steps = 0;     // transitions from the start
  uint64_t past = 0;    // the history that led there (past_digest)
};

// One walk, as the explorer's PathRun takes its transitions.
class Walk {
 public:
  Walk(const ExploreConfig& config, uint64_t seed)
      : tape_(config), rng_(Rng(seed).split("walk")) {
    tape_.start(nullptr, &rng_);
    run_.emplace(config.plan, source_.fresh(config.plan.scenario), sink_, &tape_);
  }
  bool transition() {
    World& world = run_->world();
    for (;;) {
      const int64_t t = world.next_live_us(run_->quiet_until_us());
      if (t < 0) return false;
      if (t != fault_instant_) {
        fault_instant_ = t;
        world.advance_to(t);
        if (tape_.node_faults(*run_, t) > 0) return true;
      }
      const uint64_t before = world.stats().actions;
      run_->step();
      if (world.stats().actions > before) return true;
    }
  }
  // `coarse`: for the counterfactual, a fingerprint that keeps only how
  // many entries are queued and whether the run's clients are alive, and
  // so merges states that do not do the same.
  uint64_t digest(bool coarse = false) {
    StateDigest d;
    const QueueCensus census = run_->digest(&d, &scratch_);
    if (coarse) {
      d = StateDigest{};
      d.add(static_cast<uint64_t>(run_->world().queued()));
      for (int c = 0; c < run_->world().client_count(); ++c) d.add(run_->world().client_alive(c));
    }
    if (census.worth_purging()) run_->world().purge_dead();
    d.add(tape_.faults_used());
    d.add(fault_instant_ == run_->world().now_us());
    return d.value();
  }
  // From here on: first options only.
  void settle() { tape_.follow(nullptr); }
  int64_t now_us() const { return run_->world().now_us(); }
  const std::vector<Event>& events() const { return sink_.events; }

 private:
  ExploreTape tape_;
  Rng rng_;
  ModelBackendSource source_;
  VectorSink sink_;
  DigestScratch scratch_;
  std::optional<ExplicitRun> run_;
  int64_t fault_instant_ = -1;
};

// The events after `from` (an index into the history), each as the text
// of what it says, with its time relative to `at_us`; ids, op ids and
// request ids (counters) left out.
std::vector<std::string> future(const std::vector<Event>& events, size_t from, int64_t at_us) {
  std::vector<std::string> out;
  for (size_t i = from; i < events.size(); ++i) {
    const Event& e = events[i];
    out.push_back(std::to_string(e.true_us - at_us) + " " + std::to_string(static_cast<int>(e.kind)) + " " +
                  std::string(op_name(e.op)) + " c" + std::to_string(e.client) + " s" + std::to_string(e.server) + " " +
                  e.script + " " + e.lock.name() + " " + e.owner.str() + " " + e.reply.to_text() + " v" + std::to_string(e.value));
  }
  return out;
}

// The history so far, as future() writes it, times absolute.
uint64_t past_digest(const std::vector<Event>& events) {
  StateDigest d;
  for (const std::string& line : future(events, 0, 0)) d.add(std::string_view(line));
  return d.value();
}

// The events a walk gives after `steps` transitions when it then takes
// first options to the end.
std::vector<std::string> settled_future(const ExploreConfig& config, const Where& w) {
  Walk walk(config, w.walk);
  for (size_t i = 0; i < w.steps; ++i) EXPECT_TRUE(walk.transition());
  walk.digest();  // as the explorer does (it may drop dead entries)
  walk.settle();
  const size_t from = walk.events().size();
  const int64_t at_us = walk.now_us();
  while (walk.transition()) walk.digest();
  return future(walk.events(), from, at_us);
}

struct Meetings {
  size_t pairs = 0;     // states met on two walks, compared
  size_t differing = 0; // of which the futures differed
  std::string first_difference;
};

// Walks `walks` random walks, and compares the settled futures of up to
// `max_pairs` pairs of states met with equal fingerprints on different walks.
// The pairs are spread over the walks: every k-th meeting, k chosen from a
// first count so that about max_pairs are taken, the meetings of states
// reached after different numbers of transitions first.
Meetings meet(const ExploreConfig& config, uint64_t walks, size_t max_pairs, bool coarse = false) {
  std::map<uint64_t, Where> first_seen;
  std::vector<std::pair<Where, Where>> found;
  for (uint64_t seed = 1; seed <= walks; ++seed) {
    Walk walk(config, seed);
    size_t steps = 0;
    while (walk.transition()) {
      ++steps;
      const uint64_t d = walk.digest(coarse);
      const Where here{seed, steps, past_digest(walk.events())};
      auto [it, fresh] = first_seen.try_emplace(d, here);
      // Met by another way: another walk, with another history.
      if (!fresh && it->second.walk != seed && it->second.past != here.past) found.emplace_back(it->second, here);
    }
  }
  std::stable_partition(found.begin(), found.end(), [](const auto& p) { return p.first.steps != p.second.steps; });
  std::vector<std::pair<Where, Where>> pairs;
  const size_t every = std::max<size_t>(1, found.size() / std::max<size_t>(1, max_pairs));
  for (size_t i = 0; i < found.size() && pairs.size() < max_pairs; i += every) pairs.push_back(found[i]);
  Meetings m;
  for (const auto& [a, b] : pairs) {
    const std::vector<std::string> fa = settled_future(config, a);
    const std::vector<std::string> fb = settled_future(config, b);
    ++m.pairs;
    if (fa != fb) {
      ++m.differing;
      if (m.first_difference.empty()) {
        m.first_difference = "walk " + std::to_string(a.walk) + " at " + std::to_string(a.steps) + " and walk " +
                             std::to_string(b.walk) + " at " + std::to_string(b.steps) + ": " +
                             std::to_string(fa.size()) + " against " + std::to_string(fb.size()) + " events";
        for (size_t i = 0; i < std::min(fa.size(), fb.size()); ++i) {
          if (fa[i] != fb[i]) {
            m.first_difference += "; first differing: '" + fa[i] + "' / '" + fb[i] + "'";
            break;
          }
        }
      }
    }
  }
  return m;
}

ExploreConfig config_for(const std::string& lock, int servers, const std::string& ops, bool validity = false) {
  Scenario s;
  s.clients = 2;
  s.servers = servers;
  s.lock_kind = testing::lock_kind_of(lock);
  s.profile = Profile::named("none");
  s.validity = validity;
  ExploreConfig c;
  c.plan = explore_plan(s, ops, 10, 1000, 60'000);
  c.faults = {ExploreFault::Crash, ExploreFault::Pause, ExploreFault::Loss, ExploreFault::Delay};
  c.max_faults = 2;
  c.check = default_check_config();
  return c;
}

struct Row {
  std::string lock;
  int servers;
  std::string ops;
  bool validity;
};

TEST(Fingerprint, StatesWithEqualFingerprintsHaveEqualFutures) {
  const std::vector<Row> rows = {
      {"rlock", 1, "lock,unlock", false},
      {"fair", 1, "trylock:200,unlock", false},
      {"multi", 3, "lock,unlock", false},
      {"redlock", 3, "lock,unlock", false},
      {"redlock", 3, "trylock:100:2000,unlock", true},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.lock + " --servers " + std::to_string(row.servers) + " --ops " + row.ops +
                 (row.validity ? " --validity" : ""));
    const Meetings m = meet(config_for(row.lock, row.servers, row.ops, row.validity), 1000, 200);
    EXPECT_GE(m.pairs, 100u);  // enough meetings to say something
    EXPECT_EQ(m.differing, 0u) << m.first_difference;
  }
}

TEST(Fingerprint, ACoarseFingerprintIsCaught) {
  const Meetings m = meet(config_for("redlock", 3, "lock,unlock"), 400, 60, /*coarse=*/true);
  EXPECT_GT(m.differing, 0u);
}

}  // namespace
}  // namespace locksim
