// Script-pack manifest fields beyond file/keys/argv (impl/script_pack.h):
// quoted text and concatenation in expressions, reply adapters, one-command
// scripts, absent scripts, unlock message and wake-up channel conventions.
// Each field: a pack using it loads and behaves as documented; each bad use
// is rejected naming the manifest, the script and the field.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "impl/script_pack.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

const std::string kOurs = std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";

// A copy of our pack in a fresh temporary directory, removed at the end.
class TempPack {
 public:
  TempPack() {
    std::string templ = (fs::temp_directory_path() / "locksim-fields-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
    for (const auto& entry : fs::directory_iterator(kOurs)) {
      fs::copy_file(entry.path(), fs::path(dir_) / entry.path().filename());
    }
    std::ifstream in(dir_ + "/manifest.json");
    manifest_ = nlohmann::json::parse(in);
  }
  ~TempPack() { fs::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  nlohmann::json& script(const char* name) { return manifest_["scripts"][name]; }
  // Writes the manifest and loads; returns the error ("" if it loaded).
  std::string load_error() {
    std::ofstream(dir_ + "/manifest.json", std::ios::trunc) << manifest_.dump(2);
    try {
      ScriptPack::load(dir_);
    } catch (const ScriptPackError& e) {
      return e.what();
    }
    return "";
  }
  ScriptPack load() {
    std::ofstream(dir_ + "/manifest.json", std::ios::trunc) << manifest_.dump(2);
    return ScriptPack::load(dir_);
  }

 private:
  std::string dir_;
  nlohmann::json manifest_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The error names the manifest file, the script and the field.
void expect_named(const std::string& e, const std::string& script, const std::string& field) {
  EXPECT_TRUE(contains(e, "manifest.json")) << e;
  EXPECT_TRUE(contains(e, "script \"" + script + "\"")) << e;
  EXPECT_TRUE(contains(e, "\"" + field + "\"")) << e;
}

ScriptCall call_of(ScriptKind kind) {
  ScriptCall c;
  c.kind = kind;
  c.params.lock = "L";
  c.params.owner = "A:1";
  c.params.channel = "ch{L}";
  c.params.channel_prefix = "ch{L}";
  c.params.line = "q";
  c.params.deadlines = "t";
  c.params.latch = "latch";
  c.params.message = "0";
  c.params.lease_ms = 30000;
  c.params.wait_ms = 5000;
  c.params.now_ms = 1700000000000;
  c.params.latch_ttl_ms = 10000;
  return c;
}

TEST(PackExpr, QuotedTextAndConcatenation) {
  ScriptParams p;
  p.lock = "L";
  p.owner = "A:1";
  p.wait_ms = 7;
  EXPECT_EQ(parse_pack_expr("'publish'", "m").evaluate(p), "publish");
  EXPECT_EQ(parse_pack_expr("\"spublish\"", "m").evaluate(p), "spublish");
  EXPECT_EQ(parse_pack_expr("'a + b .. c'", "m").evaluate(p), "a + b .. c");  // operators inside quotes are text
  EXPECT_EQ(parse_pack_expr("'wait:{' .. lock .. '}:' .. owner", "m").evaluate(p), "wait:{L}:A:1");
  EXPECT_EQ(parse_pack_expr("lock..':'..wait_ms", "m").evaluate(p), "L:7");
  EXPECT_EQ(parse_pack_expr("''", "m").evaluate(p), "");
  EXPECT_EQ(parse_pack_expr("-5 + wait_ms", "m").evaluate(p), "2");
}

TEST(PackExpr, BadExpressionsAreRejected) {
  auto error = [](const std::string& text) -> std::string {
    try {
      parse_pack_expr(text, "where");
    } catch (const ScriptPackError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_TRUE(contains(error("'open"), "unterminated quoted text")) << error("'open");
  EXPECT_TRUE(contains(error("lock .. owner + wait_ms"), "mixes '+'")) << error("lock .. owner + wait_ms");
  EXPECT_TRUE(contains(error("'x' + wait_ms"), "cannot be used in the sum")) << error("'x' + wait_ms");
  EXPECT_TRUE(contains(error("lock .."), "empty term")) << error("lock ..");
  EXPECT_TRUE(contains(error(".. lock"), "empty term")) << error(".. lock");
  EXPECT_TRUE(contains(error("lock owner"), "missing '+' or '..'")) << error("lock owner");
  EXPECT_TRUE(contains(error("lock .. waiter"), "unknown parameter \"waiter\"")) << error("lock .. waiter");
  EXPECT_EQ(error("lock .. 'a'").size(), 0u);
}

TEST(PackManifest, StringLiteralInArgv) {
  TempPack pack;
  pack.script("rlock_acquire")["argv"] = {"lease_ms", "owner", "'publish'"};
  const ScriptPack p = pack.load();
  const ScriptArgs a = p.build_args(call_of(ScriptKind::RlockAcquire));
  EXPECT_EQ(a.argv, (std::vector<std::string>{"30000", "A:1", "publish"}));
}

TEST(PackManifest, ConcatenatedKey) {
  TempPack pack;
  pack.script("fair_acquire")["keys"] = {"lock", "line", "deadlines", "'wait:{' .. lock .. '}:' .. owner"};
  const ScriptPack p = pack.load();
  EXPECT_EQ(p.build_args(call_of(ScriptKind::FairAcquire)).keys,
            (std::vector<std::string>{"L", "q", "t", "wait:{L}:A:1"}));
}

TEST(PackManifest, ReplyAdapters) {
  TempPack pack;
  pack.script("rlock_renew")["reply"] = "first";
  pack.script("rlock_acquire")["reply"] = {"first", "nil_as_0"};
  const ScriptPack p = pack.load();
  Reply list;
  list.kind = Reply::Kind::Array;
  list.elements = {Reply::of_int(1)};
  EXPECT_EQ(p.adapt_reply(ScriptKind::RlockRenew, list), Reply::of_int(1));
  EXPECT_TRUE(p.adapt_reply(ScriptKind::RlockRenew, Reply::of_int(1)).is_error());  // not a list: said so
  Reply two = list;
  two.elements.push_back(Reply::of_int(0));
  const Reply bad = p.adapt_reply(ScriptKind::RlockRenew, two);
  ASSERT_TRUE(bad.is_error());
  EXPECT_TRUE(contains(bad.text, "expected a one-element list, got [1, 0]")) << bad.text;
  EXPECT_EQ(p.adapt_reply(ScriptKind::RlockRenew, Reply::error("ERR x")), Reply::error("ERR x"));
  Reply nil_list;
  nil_list.kind = Reply::Kind::Array;
  nil_list.elements = {Reply::nil()};
  EXPECT_EQ(p.adapt_reply(ScriptKind::RlockAcquire, nil_list), Reply::of_int(0));
  EXPECT_EQ(p.adapt_reply(ScriptKind::RlockRelease, two), two);  // no adapter: as is
}

TEST(PackManifest, BadReplyAdapter) {
  TempPack pack;
  pack.script("rlock_renew")["reply"] = "second";
  std::string e = pack.load_error();
  expect_named(e, "rlock_renew", "reply");
  EXPECT_TRUE(contains(e, "unknown reply adapter \"second\" (known: as_is, first, nil_as_0)")) << e;
  pack.script("rlock_renew")["reply"] = nlohmann::json::array();
  e = pack.load_error();
  expect_named(e, "rlock_renew", "reply");
  pack.script("rlock_renew")["reply"] = 1;
  e = pack.load_error();
  expect_named(e, "rlock_renew", "reply");
}

TEST(PackManifest, OneCommandScript) {
  TempPack pack;
  pack.script("rlock_renew") = {{"command", "PEXPIRE"}, {"keys", {"lock"}}, {"argv", {"lease_ms"}}};
  fs::remove(pack.dir() + "/rlock_renew.lua");  // not needed any more
  const ScriptPack p = pack.load();
  const PackScript& s = p.script(ScriptKind::RlockRenew);
  EXPECT_EQ(s.form, PackForm::Command);
  EXPECT_EQ(s.command, "PEXPIRE");
  EXPECT_EQ(p.build_args(call_of(ScriptKind::RlockRenew)).argv, (std::vector<std::string>{"30000"}));
  for (const std::string& f : p.files()) EXPECT_FALSE(contains(f, "rlock_renew")) << f;
}

TEST(PackManifest, BadCommandOrForm) {
  TempPack pack;
  pack.script("rlock_renew") = {{"command", "PEXPIRE x"}, {"keys", {"lock"}}, {"argv", {"lease_ms"}}};
  expect_named(pack.load_error(), "rlock_renew", "command");
  pack.script("rlock_renew")["command"] = 7;
  expect_named(pack.load_error(), "rlock_renew", "command");
  pack.script("rlock_renew")["command"] = "PEXPIRE";
  pack.script("rlock_renew")["file"] = "rlock_renew.lua";
  std::string e = pack.load_error();
  EXPECT_TRUE(contains(e, "needs exactly one of \"file\"")) << e;
  pack.script("rlock_renew") = {{"keys", {"lock"}}, {"argv", {"lease_ms"}}};
  e = pack.load_error();
  EXPECT_TRUE(contains(e, "script \"rlock_renew\": needs exactly one of")) << e;
}

TEST(PackManifest, AbsentScripts) {
  TempPack pack;
  pack.script("fair_acquire_failed") = {{"absent", true}};
  pack.script("rlock_force_release") = {{"absent", true}};
  pack.script("fair_force_release") = {{"absent", true}};
  const ScriptPack p = pack.load();
  EXPECT_EQ(p.script(ScriptKind::FairAcquireFailed).form, PackForm::Absent);
  const ScriptArgs a = p.build_args(call_of(ScriptKind::FairAcquireFailed));
  EXPECT_TRUE(a.keys.empty() && a.argv.empty());
  const Reply r = ScriptPack::absent_reply(ScriptKind::FairAcquireFailed);
  ASSERT_TRUE(r.is_error());
  EXPECT_TRUE(contains(r.text, "fair_acquire_failed is absent")) << r.text;
}

TEST(PackManifest, BadAbsent) {
  TempPack pack;
  pack.script("rlock_renew") = {{"absent", true}};
  std::string e = pack.load_error();
  expect_named(e, "rlock_renew", "absent");
  EXPECT_TRUE(contains(e, "cannot be absent")) << e;
  TempPack pack2;
  pack2.script("fair_acquire_failed") = {{"absent", false}};
  expect_named(pack2.load_error(), "fair_acquire_failed", "absent");
  pack2.script("fair_acquire_failed") = {{"absent", true}, {"reply", "first"}};
  e = pack2.load_error();
  EXPECT_TRUE(contains(e, "an absent script takes no other field")) << e;
}

TEST(PackManifest, UnknownFieldIsRejected) {
  TempPack pack;
  pack.script("rlock_acquire")["replay"] = "first";
  const std::string e = pack.load_error();
  expect_named(e, "rlock_acquire", "replay");
  EXPECT_TRUE(contains(e, "unknown field")) << e;
}

TEST(PackManifest, MessageConvention) {
  TempPack pack;
  pack.script("rlock_release")["message"] = "unlocked";
  pack.script("fair_release")["message"] = 7;
  const ScriptPack p = pack.load();
  const ScriptCall c = call_of(ScriptKind::RlockRelease);
  const ScriptArgs a = p.build_args(c);
  EXPECT_EQ(a.argv[0], "unlocked");  // our manifest passes message first
  EXPECT_EQ(p.canonical_published(c, Published{"ch{L}", "unlocked"}), (Published{"ch{L}", "0"}));
  EXPECT_EQ(p.canonical_published(c, Published{"ch{L}", "other"}), (Published{"ch{L}", "other"}));
  EXPECT_EQ(p.build_args(call_of(ScriptKind::FairRelease)).argv[0], "7");
  // A script without the field: unchanged.
  const ScriptCall r = call_of(ScriptKind::RlockForceRelease);
  EXPECT_EQ(p.canonical_published(r, Published{"ch{L}", "unlocked"}), (Published{"ch{L}", "unlocked"}));
}

TEST(PackManifest, WakeChannelConvention) {
  TempPack pack;
  pack.script("rlock_release")["wake_channel"] = "'old_channel_' .. lock";
  pack.script("fair_release")["wake_channel"] = "'old_channel_' .. lock .. '/' .. waiter .. '!'";
  const ScriptPack p = pack.load();
  const ScriptCall r = call_of(ScriptKind::RlockRelease);
  EXPECT_EQ(p.canonical_published(r, Published{"old_channel_L", "0"}), (Published{"ch{L}", "0"}));
  EXPECT_EQ(p.canonical_published(r, Published{"old_channel_M", "0"}), (Published{"old_channel_M", "0"}));
  const ScriptCall f = call_of(ScriptKind::FairRelease);
  EXPECT_EQ(p.canonical_published(f, Published{"old_channel_L/B:2!", "0"}), (Published{"ch{L}:B:2", "0"}));
  EXPECT_EQ(p.canonical_published(f, Published{"old_channel_L/!", "0"}), (Published{"old_channel_L/!", "0"}));
  EXPECT_EQ(p.canonical_published(f, Published{"elsewhere", "0"}), (Published{"elsewhere", "0"}));
}

TEST(PackManifest, BadConventions) {
  TempPack pack;
  pack.script("rlock_acquire")["message"] = "1";
  std::string e = pack.load_error();
  expect_named(e, "rlock_acquire", "message");
  EXPECT_TRUE(contains(e, "only for the scripts that publish")) << e;
  pack.script("rlock_acquire").erase("message");
  pack.script("rlock_release")["message"] = "";
  expect_named(pack.load_error(), "rlock_release", "message");
  pack.script("rlock_release").erase("message");
  pack.script("fair_release")["wake_channel"] = "channel_prefix";
  e = pack.load_error();
  expect_named(e, "fair_release", "wake_channel");
  EXPECT_TRUE(contains(e, "exactly once")) << e;
  pack.script("fair_release")["wake_channel"] = "waiter .. waiter";
  expect_named(pack.load_error(), "fair_release", "wake_channel");
  pack.script("fair_release").erase("wake_channel");
  pack.script("rlock_release")["wake_channel"] = "channel .. waiter";
  e = pack.load_error();
  expect_named(e, "rlock_release", "wake_channel");
  EXPECT_TRUE(contains(e, "unknown parameter \"waiter\"")) << e;
  pack.script("rlock_release")["wake_channel"] = "lease_ms + 1";
  e = pack.load_error();
  EXPECT_TRUE(contains(e, "not a sum")) << e;
  pack.script("rlock_release").erase("wake_channel");
  pack.script("rlock_acquire")["argv"] = {"lease_ms", "waiter"};
  expect_named(pack.load_error(), "rlock_acquire", "argv");
}

TEST(PackManifest, ConventionsTextSeesEveryField) {
  TempPack pack;
  const std::string base = pack.load().script(ScriptKind::RlockRelease).conventions_text();
  pack.script("rlock_release")["reply"] = "as_is";
  const std::string with_reply = pack.load().script(ScriptKind::RlockRelease).conventions_text();
  EXPECT_NE(base, with_reply);
  pack.script("rlock_release")["message"] = "1";
  const std::string with_message = pack.load().script(ScriptKind::RlockRelease).conventions_text();
  EXPECT_NE(with_reply, with_message);
  pack.script("rlock_release")["wake_channel"] = "channel";
  EXPECT_NE(with_message, pack.load().script(ScriptKind::RlockRelease).conventions_text());
}

}  // namespace
}  // namespace locksim
