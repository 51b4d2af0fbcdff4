// LiveBackendSource (tools/cli/live_backend_source.h), the live campaign
// worker's backend source: servers started once and flushed between runs,
// and a server that does not take the flush (it died, or is stuck in a
// script that never returns) restarted empty with the scripts loaded again.
#include <gtest/gtest.h>

#include <string>

#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "model/script_cases.h"
#include "tools/cli/live_backend_source.h"

namespace locksim {
namespace {

const std::string kOurs = std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua";
constexpr int64_t kUs = cases::kT * 1000;

RedisConn side_connection(ServerControl& server, int64_t io_timeout_ms = 5000) {
  RedisConnOptions o;
  o.host = server.host();
  o.port = server.port();
  o.io_timeout_ms = io_timeout_ms;
  return RedisConn::connect(o);
}

// Both servers hold nothing and run the scripts.
void expect_empty_and_working(Backend& b) {
  for (int s = 0; s < b.server_count(); ++s) {
    EXPECT_TRUE(b.snapshot(s, kUs).empty()) << "server " << s;
    EXPECT_TRUE(b.execute(s, cases::acquire(cases::kA), kUs).reply.is_nil()) << "server " << s;
  }
}

TEST(LiveBackendSource, ReusesItsServersFlushedAndRestartsOneThatDoesNotTakeTheFlush) {
  cli::LiveBackendSource source(ScriptPack::load(kOurs));
  Scenario scenario;
  scenario.servers = 2;
  Backend& first = source.fresh(scenario);
  ASSERT_EQ(first.server_count(), 2);
  EXPECT_EQ(source.kind(), "live");
  expect_empty_and_working(first);
  const int port0 = source.server(0).port();

  // The next run: the same servers, flushed.
  expect_empty_and_working(source.fresh(scenario));
  EXPECT_EQ(source.restarts(), 0);
  EXPECT_EQ(source.server(0).port(), port0);

  // A server that died behind the source's back.
  {
    auto conn = side_connection(source.server(1));
    try {
      conn.command({"SHUTDOWN", "NOSAVE"});
    } catch (const RedisError&) {  // the connection closes under the reply
    }
  }
  expect_empty_and_working(source.fresh(scenario));
  EXPECT_EQ(source.restarts(), 1);

  // A server stuck in a script that never returns answers the flush BUSY.
  {
    auto conn = side_connection(source.server(0), 300);
    ASSERT_FALSE(conn.command({"CONFIG", "SET", "busy-reply-threshold", "100"}).is_error());  // BUSY after 100 ms
    EXPECT_THROW(conn.command({"EVAL", "while true do end", "0"}), RedisError);  // our read times out
  }
  expect_empty_and_working(source.fresh(scenario));
  EXPECT_EQ(source.restarts(), 2);

  // Another server count: new servers.
  scenario.servers = 1;
  Backend& one = source.fresh(scenario);
  EXPECT_EQ(one.server_count(), 1);
  EXPECT_EQ(source.server_count(), 1);
  expect_empty_and_working(one);
}

}  // namespace
}  // namespace locksim
