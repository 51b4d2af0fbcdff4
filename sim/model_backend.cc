#include "sim/model_backend.h"

#include <algorithm>
#include <cassert>

#include "model/script_branches.h"
#include "model/scripts.h"

namespace locksim {

ModelBackend::ModelBackend(int server_count, ModelVariant variant)
    : variant_(variant), stores_(static_cast<size_t>(server_count)), lines_(server_count) {
  assert(server_count >= 1);
}

Store& ModelBackend::store(int server) {
  assert(server >= 0 && server < server_count());
  return stores_[static_cast<size_t>(server)];
}

ExecResult ModelBackend::execute(int server, const ScriptCall& call, int64_t server_now_us) {
  return execute_without_token(*this, server, call, server_now_us);
}

void ModelBackend::execute_into(int server, const ScriptCall& call, int64_t server_now_us,
                                ExecResult* out) {
  assert(out != nullptr);
  const int64_t now_ms = server_ms_of_us(server_now_us);
  Store& s = store(server);
  // Redis's active expiry: keeps dead latch keys from piling up; invisible
  // to scripts because time does not go backwards.
  s.sweep_expired(now_ms);
  const uint64_t held_token = out->line_token;  // the caller's hint (model_backend.h)
  run_script_into(s, call, now_ms, variant_, out);
  branches_ |= out->branches;
  lines_.fill(server, s, call, now_ms, held_token, out);
}

std::vector<KeyState> ModelBackend::snapshot(int server, int64_t server_now_us) {
  return store(server).snapshot(server_ms_of_us(server_now_us));
}

void ModelBackend::restart(int server) { store(server).clear(); }  // versions stay unique: the line cache stays valid

bool ModelBackend::digest(int server, int64_t server_now_us, StateDigest* out) {
  store(server).digest(server_ms_of_us(server_now_us), out);
  return true;
}

void ModelBackend::wipe() {
  for (Store& s : stores_) s.clear();
  branches_ = 0;
}

void ModelBackend::script_coverage(const std::vector<ScriptKind>& kinds, std::vector<std::string>* covered,
                                   std::vector<std::string>* universe) const {
  bool fair = false;
  for (ScriptKind k : kinds) fair = fair || script_name(k).substr(0, 5) == "fair_";
  std::vector<std::string> seen, all;
  for (ScriptBranch b : all_script_branches()) {
    const std::optional<ScriptKind> script = script_of_branch(b);
    const bool wanted = script ? std::find(kinds.begin(), kinds.end(), *script) != kinds.end() : fair;
    if (!wanted) continue;
    all.emplace_back(script_branch_name(b));
    if ((branches_ & branch_bit(b)) != 0) seen.emplace_back(script_branch_name(b));
  }
  std::sort(seen.begin(), seen.end());
  std::sort(all.begin(), all.end());
  if (covered != nullptr) covered->insert(covered->end(), seen.begin(), seen.end());
  if (universe != nullptr) universe->insert(universe->end(), all.begin(), all.end());
}

}  // namespace locksim
