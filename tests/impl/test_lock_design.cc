// A lock design declared by the pack (impl/lock_design.h, manifest "design")
// and reply conventions per script (impl/reply_convention.h, "replies"):
// our pack declares ours explicitly and loads as a manifest without them
// (the same scripts, the same conventions); the token lock's manifest loads
// with its design; every bad declaration is refused naming the field; a
// holder read that fails names the key and the error.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "impl/lock_design.h"
#include "impl/reply_convention.h"
#include "impl/script_pack.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = LOCKSIM_SOURCE_DIR;
const std::string kOurs = (kSource / "impl" / "lua").string();
const std::string kTokenLock = (kSource / "tests" / "impl" / "packs" / "token_lock").string();

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A directory holding a manifest written from JSON, with the token lock's
// Lua files beside it; removed at the end.
class ManifestDir {
 public:
  explicit ManifestDir(const nlohmann::json& manifest) {
    std::string templ = (fs::temp_directory_path() / "locksim-design-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
    for (const char* f : {"release.lua", "extend.lua"}) fs::copy_file(fs::path(kTokenLock) / f, fs::path(dir_) / f);
    for (const auto& e : fs::directory_iterator(kOurs)) {
      if (e.path().extension() == ".lua") fs::copy_file(e.path(), fs::path(dir_) / e.path().filename());
    }
    std::ofstream(dir_ + "/manifest.json") << manifest.dump(2);
  }
  ~ManifestDir() { fs::remove_all(dir_); }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

nlohmann::json read_manifest(const std::string& dir) {
  std::ifstream in(dir + "/manifest.json");
  return nlohmann::json::parse(in);
}

// "" when the manifest loads, else the error.
std::string load_error(const nlohmann::json& manifest) {
  ManifestDir d(manifest);
  try {
    ScriptPack::load(d.dir());
  } catch (const ScriptPackError& e) {
    return e.what();
  }
  return "";
}

TEST(LockDesign, OurPackDeclaresOursAndLoadsAsAManifestWithoutADesign) {
  const ScriptPack ours = ScriptPack::load(kOurs);
  EXPECT_EQ(ours.design(), LockDesign{});
  EXPECT_EQ(ours.holder_script(), nullptr);
  nlohmann::json old = read_manifest(kOurs);
  ASSERT_TRUE(old.contains("design"));
  old.erase("design");
  for (auto& [name, entry] : old["scripts"].items()) entry.erase("replies");
  ManifestDir d(old);
  const ScriptPack undeclared = ScriptPack::load(d.dir());
  EXPECT_EQ(undeclared.design(), ours.design());
  for (ScriptKind kind : all_script_kinds()) {
    // Ours declared reads as nothing declared: the same conventions, script for script.
    EXPECT_EQ(undeclared.script(kind).conventions_text(), ours.script(kind).conventions_text()) << script_name(kind);
    EXPECT_FALSE(ours.script(kind).replies.has_value()) << script_name(kind);
  }
}

TEST(LockDesign, TheTokenLockLoadsWithItsDesign) {
  const ScriptPack pack = ScriptPack::load(kTokenLock);
  const LockDesign& d = pack.design();
  EXPECT_EQ(d.holders, HolderRead::StringValue);
  EXPECT_FALSE(d.reentrant);
  EXPECT_EQ(d.wake.mode, WakeMode::Poll);
  EXPECT_EQ(d.wake.interval_ms, 100);
  EXPECT_EQ(d.wake.jitter_ms, 50);
  EXPECT_EQ(d.token, TokenMode::FreshPerAcquire);
  EXPECT_TRUE(d.provides(DesignKind::Rlock));
  EXPECT_FALSE(d.provides(DesignKind::Fair));
  EXPECT_FALSE(d.provides(DesignKind::Redlock));
  // The fair scripts are left out: absent.
  for (ScriptKind k : {ScriptKind::FairAcquire, ScriptKind::FairTryOnce, ScriptKind::FairRelease,
                       ScriptKind::FairAcquireFailed, ScriptKind::FairForceRelease}) {
    EXPECT_EQ(pack.script(k).form, PackForm::Absent) << script_name(k);
  }
  EXPECT_EQ(pack.script(ScriptKind::RlockAcquire).form, PackForm::Command);
  // Its replies read as ours.
  EXPECT_EQ(pack.adapt_reply(ScriptKind::RlockAcquire, Reply::bulk("OK")), Reply::nil());
  EXPECT_EQ(pack.adapt_reply(ScriptKind::RlockAcquire, Reply::nil()), Reply::of_int(-1));
  EXPECT_EQ(pack.adapt_reply(ScriptKind::RlockRelease, Reply::of_int(1)), Reply::of_int(1));
  EXPECT_EQ(pack.adapt_reply(ScriptKind::RlockRelease, Reply::of_int(0)), Reply::nil());  // not owned
  EXPECT_EQ(pack.adapt_reply(ScriptKind::RlockRenew, Reply::of_int(0)), Reply::of_int(0));
  const Reply odd = pack.adapt_reply(ScriptKind::RlockAcquire, Reply::of_int(5));
  ASSERT_TRUE(odd.is_error());
  EXPECT_TRUE(contains(odd.text, "rlock_acquire answered 5, which is none of its declared replies")) << odd.text;
  EXPECT_TRUE(contains(odd.text, "acquired \"OK\"")) << odd.text;
  // The design round-trips through the trace header's form.
  EXPECT_EQ(design_from_json(design_to_json(d), false), d);
}

TEST(LockDesign, HolderReadsNameTheKeyAndTheError) {
  const ScriptPack token = ScriptPack::load(kTokenLock);
  std::vector<std::string> holders;
  token.read_holders("lsim:L0", Reply::bulk("A:1#3"), &holders);
  EXPECT_EQ(holders, std::vector<std::string>{"A:1#3"});
  token.read_holders("lsim:L0", Reply::nil(), &holders);
  EXPECT_TRUE(holders.empty());
  const Reply wrongtype = Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value");
  for (const ScriptPack* pack : {&token}) {
    try {
      pack->read_holders("lsim:L0", wrongtype, &holders);
      ADD_FAILURE() << "a failed read taken as holders";
    } catch (const HolderReadError& e) {
      EXPECT_TRUE(contains(e.what(), "lsim:L0")) << e.what();
      EXPECT_TRUE(contains(e.what(), "GET")) << e.what();
      EXPECT_TRUE(contains(e.what(), "WRONGTYPE")) << e.what();
    }
  }
  const ScriptPack ours = ScriptPack::load(kOurs);
  EXPECT_THROW(ours.read_holders("lsim:L1", wrongtype, &holders), HolderReadError);  // never "no holders"
  EXPECT_THROW(ours.read_holders("lsim:L1", Reply::bulk("x"), &holders), HolderReadError);
}

TEST(LockDesign, AReadScriptIsDeclaredAsAnObject) {
  nlohmann::json m = read_manifest(kTokenLock);
  m["design"]["holders"] = {{"file", "extend.lua"}, {"keys", {"lock"}}, {"argv", nlohmann::json::array()}};
  ManifestDir d(m);
  const ScriptPack pack = ScriptPack::load(d.dir());
  ASSERT_NE(pack.holder_script(), nullptr);
  EXPECT_EQ(pack.design().holders, HolderRead::Script);
  EXPECT_EQ(pack.files().back(), pack.holder_script()->path);
  std::vector<std::string> holders;
  pack.read_holders("L", Reply{Reply::Kind::Array, 0, "", {Reply::bulk("b"), Reply::bulk("a")}}, &holders);
  EXPECT_EQ(holders, (std::vector<std::string>{"a", "b"}));
  EXPECT_THROW(pack.read_holders("L", Reply::of_int(1), &holders), HolderReadError);
}

TEST(LockDesign, BadDesignsAreRefusedNamingTheField) {
  const nlohmann::json base = read_manifest(kTokenLock);
  struct Bad {
    const char* what;
    nlohmann::json design;
    const char* expected;
  };
  const Bad bads[] = {
      {"unknown field", {{"colour", "red"}}, "unknown field \"colour\""},
      {"holders", {{"holders", "hkeys"}}, "\"holders\" must be"},
      {"holders word", {{"holders", "script"}}, "\"holders\" must be"},
      {"reentrant", {{"reentrant", "no"}}, "\"reentrant\" must be true or false"},
      {"wake_up mode", {{"wake_up", {{"mode", "shout"}}}}, "\"mode\" must be \"pubsub\" or \"poll\""},
      {"poll without interval", {{"wake_up", {{"mode", "poll"}}}}, "needs \"interval_ms\""},
      {"interval 0", {{"wake_up", {{"mode", "poll"}, {"interval_ms", 0}}}}, "\"interval_ms\" must be an integer in [1, "},
      {"jitter", {{"wake_up", {{"mode", "poll"}, {"interval_ms", 5}, {"jitter_ms", -1}}}}, "\"jitter_ms\" must be"},
      {"pubsub interval", {{"wake_up", {{"mode", "pubsub"}, {"interval_ms", 5}}}}, "takes no interval_ms"},
      {"token", {{"token", "random"}}, "\"token\" must be \"per_owner\" or \"fresh_per_acquire\""},
      {"kind", {{"kinds", {"rlock", "semaphore"}}}, "unknown lock kind \"semaphore\""},
      {"kind twice", {{"kinds", {"rlock", "rlock"}}}, "listed twice"},
      {"no kinds", {{"kinds", nlohmann::json::array()}}, "non-empty list"},
      {"fair not reentrant", {{"reentrant", false}, {"kinds", {"rlock", "fair"}}}, "cannot provide \"fair\""},
  };
  for (const Bad& b : bads) {
    nlohmann::json m = base;
    m["design"] = b.design;
    // A design that keeps the manifest's own (non-reentrant) replies valid where it must.
    if (!m["design"].contains("reentrant")) m["design"]["reentrant"] = false;
    if (!m["design"].contains("kinds")) m["design"]["kinds"] = {"rlock"};
    const std::string e = load_error(m);
    EXPECT_TRUE(contains(e, "manifest.json: \"design\"")) << b.what << ": " << e;
    EXPECT_TRUE(contains(e, b.expected)) << b.what << ": " << e;
  }
}

TEST(LockDesign, BadRepliesAreRefusedNamingTheScript) {
  const nlohmann::json base = read_manifest(kTokenLock);
  struct Bad {
    const char* script;
    nlohmann::json replies;
    const char* expected;
  };
  const Bad bads[] = {
      {"rlock_acquire", {{"acquired", "OK"}}, "\"refused\" is missing"},
      {"rlock_acquire", {{"acquired", "OK"}, {"refused", "OK"}}, "both match \"OK\""},
      {"rlock_acquire", {{"acquired", 1}, {"refused", "integer"}}, "both match 1"},
      {"rlock_acquire", {{"acquired", "OK"}, {"refused", nullptr}, {"released", 1}}, "unknown meaning \"released\""},
      {"rlock_release", {{"released", 1}, {"not_owned", 0}, {"still_held", 2}}, "only a reentrant lock"},
      {"rlock_renew", {{"extended", true}, {"not_owned", 0}}, "must be null, an integer"},
      {"rlock_renew", "1", "must be an object of meanings"},
  };
  for (const Bad& b : bads) {
    nlohmann::json m = base;
    m["scripts"][b.script]["replies"] = b.replies;
    const std::string e = load_error(m);
    EXPECT_TRUE(contains(e, "script \"" + std::string(b.script) + "\": \"replies\"")) << e;
    EXPECT_TRUE(contains(e, b.expected)) << b.script << ": " << e;
  }
  // A reentrant release must say what "still held" looks like.
  nlohmann::json ours = read_manifest(kOurs);
  ours["scripts"]["rlock_release"]["replies"].erase("still_held");
  EXPECT_TRUE(contains(load_error(ours), "\"still_held\" is missing")) << load_error(ours);
  // The give-up script's reply is never read.
  ours = read_manifest(kOurs);
  ours["scripts"]["fair_acquire_failed"]["replies"] = {{"released", 1}};
  EXPECT_TRUE(contains(load_error(ours), "takes no \"replies\"")) << load_error(ours);
}

TEST(LockDesign, OnlyScriptsNoProvidedKindRunsMayBeAbsent) {
  nlohmann::json m = read_manifest(kTokenLock);
  m["scripts"].erase("rlock_renew");  // the reentrant lock's watchdog runs it
  std::string e = load_error(m);
  EXPECT_TRUE(contains(e, "script \"rlock_renew\" is missing")) << e;
  EXPECT_TRUE(contains(e, "(the lock kinds the pack provides, rlock, run it)")) << e;
  m = read_manifest(kTokenLock);
  m["scripts"]["rlock_release"] = {{"absent", true}};
  e = load_error(m);
  EXPECT_TRUE(contains(e, "\"absent\": this script cannot be absent: the lock kinds the pack provides (rlock)")) << e;
  // A fair-only pack may leave the reentrant lock's acquire and release out, not its renewal.
  nlohmann::json ours = read_manifest(kOurs);
  ours["design"]["kinds"] = {"fair"};
  ours["scripts"].erase("rlock_acquire");
  ours["scripts"]["rlock_release"] = {{"absent", true}};
  EXPECT_EQ(load_error(ours), "");
  ours["scripts"].erase("rlock_renew");
  EXPECT_TRUE(contains(load_error(ours), "\"rlock_renew\" is missing")) << load_error(ours);
  // Without a design every script is listed, as before.
  nlohmann::json old = read_manifest(kOurs);
  old.erase("design");
  old["scripts"].erase("fair_force_release");
  EXPECT_TRUE(contains(load_error(old), "script \"fair_force_release\" is missing from \"scripts\"")) << load_error(old);
}

TEST(LockDesign, PollSleepsAreTheIntervalPlusADeterministicJitter) {
  WakeUp w;
  w.mode = WakeMode::Poll;
  w.interval_ms = 100;
  EXPECT_EQ(poll_sleep_ms(w, 1), 100);
  w.jitter_ms = 50;
  bool spread = false;
  for (uint64_t draw = 0; draw < 200; ++draw) {
    const int64_t ms = poll_sleep_ms(w, draw);
    EXPECT_GE(ms, 100);
    EXPECT_LE(ms, 150);
    EXPECT_EQ(ms, poll_sleep_ms(w, draw));
    spread = spread || ms != poll_sleep_ms(w, 0);
  }
  EXPECT_TRUE(spread);
}

TEST(LockDesign, KindsNeededByEachLockOption) {
  EXPECT_EQ(kinds_needed_by(ScenarioLockKind::Rlock), std::vector<DesignKind>{DesignKind::Rlock});
  EXPECT_EQ(kinds_needed_by(ScenarioLockKind::Fair), std::vector<DesignKind>{DesignKind::Fair});
  EXPECT_EQ(kinds_needed_by(ScenarioLockKind::Mixed), (std::vector<DesignKind>{DesignKind::Rlock, DesignKind::Fair}));
  EXPECT_EQ(kinds_needed_by(ScenarioLockKind::Multi), std::vector<DesignKind>{DesignKind::Multi});
  EXPECT_EQ(kinds_needed_by(ScenarioLockKind::RedLock), std::vector<DesignKind>{DesignKind::Redlock});
  // The spin lock runs the reentrant lock's acquire and renewal (and its own
  // release, which a pack may lack: apply_scenario_pack refuses it then).
  EXPECT_EQ(kinds_needed_by(ScenarioLockKind::Spin), std::vector<DesignKind>{DesignKind::Rlock});
  // The faster multi-lock runs scripts of its own on a hash read as ours.
  EXPECT_EQ(kinds_needed_by(ScenarioLockKind::FasterMulti), std::vector<DesignKind>{DesignKind::Rlock});
  // Every lock kind by its name, and back; "spinlock" is none.
  for (ScenarioLockKind k : all_lock_kinds()) EXPECT_EQ(lock_kind_from_name(lock_kind_name(k)), k);
  EXPECT_EQ(all_lock_kinds().size(), 7u);
  EXPECT_FALSE(lock_kind_from_name("spinlock").has_value());
  LockDesign d;
  d.kinds = 0b0001;
  EXPECT_EQ(design_kinds_text(d), "rlock");
}

}  // namespace
}  // namespace locksim
