#include "sim/model_backend.h"

#include <cassert>

#include "model/scripts.h"

namespace locksim {

int64_t server_ms_of_us(int64_t server_now_us) {
  int64_t q = server_now_us / 1000;
  if (server_now_us % 1000 < 0) --q;
  return q;
}

ModelBackend::ModelBackend(int server_count, ModelVariant variant)
    : variant_(variant), stores_(static_cast<size_t>(server_count)) {
  assert(server_count >= 1);
}

Store& ModelBackend::store(int server) {
  assert(server >= 0 && server < server_count());
  return stores_[static_cast<size_t>(server)];
}

ExecResult ModelBackend::execute(int server, const ScriptCall& call, int64_t server_now_us) {
  const int64_t now_ms = server_ms_of_us(server_now_us);
  Store& s = store(server);
  // Redis's active expiry: keeps dead latch keys from piling up; invisible
  // to scripts because time does not go backwards.
  s.sweep_expired(now_ms);
  ExecResult result = run_script(s, call, now_ms, variant_);
  if (!call.params.line.empty() && !call.params.deadlines.empty()) {
    result.line_known = true;
    try {
      for (std::string& owner : s.lrange_all(call.params.line, now_ms)) {
        const std::optional<double> deadline = s.zscore(call.params.deadlines, owner, now_ms);
        result.line_after.push_back(LineWaiter{std::move(owner), deadline});
      }
    } catch (const StoreError&) {
      result.line_known = false;  // not a list / sorted set: no line to report
      result.line_after.clear();
    }
  }
  return result;
}

std::vector<KeyState> ModelBackend::snapshot(int server, int64_t server_now_us) {
  return store(server).snapshot(server_ms_of_us(server_now_us));
}

void ModelBackend::restart(int server) { store(server).clear(); }

void ModelBackend::wipe() {
  for (Store& s : stores_) s.clear();
}

}  // namespace locksim
