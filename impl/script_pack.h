// ScriptPack: a directory of Lua lock scripts plus a manifest.json that says,
// for each of the nine scripts (model/script_call.h), which file holds it and
// how its KEYS and ARGV are built from the call's *named parameters*:
//
//   {"format": "locksim-script-pack", "version": 1,
//    "model_variant": "release_no_publish",          (optional: mutant packs)
//    "scripts": {"rlock_acquire": {"file": "rlock_acquire.lua",
//                                  "keys": ["lock"], "argv": ["lease_ms", "owner"]}, ...}}
//
// Each keys/argv entry is an *expression*: a parameter name ("owner"), an
// integer literal ("0", "-1"), or a sum of integer parameters and literals
// ("now_ms + wait_ms"). So packs with another argument order (or precomputed
// sums) can be checked against the same model.
//
// Contract:
//  - load(dir) reads and validates everything it can without a server: the
//    manifest, every script entry, every expression, every Lua file. Any
//    problem throws ScriptPackError whose message names the file and the
//    problem. Lua syntax is checked by Redis when the pack is loaded into a
//    server (LiveBackend), which reports the .lua file name too.
//  - All nine scripts must be present; unknown names are rejected.
//  - build_args() is pure and deterministic.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/script_call.h"
#include "model/variant.h"

namespace locksim {

struct ScriptPackError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One manifest expression: a sum of terms; a term is a parameter name or an
// integer literal. A single non-integer parameter is passed through verbatim.
struct PackExpr {
  struct Term {
    std::string param;    // empty: literal
    int64_t literal = 0;
  };
  std::vector<Term> terms;  // at least one
  std::string text;         // as written in the manifest, for messages

  std::string evaluate(const ScriptParams& params) const;
};

struct PackScript {
  ScriptKind kind = ScriptKind::RlockAcquire;
  std::string file;    // file name as written in the manifest
  std::string path;    // dir + "/" + file
  std::string source;  // the Lua text
  std::vector<PackExpr> keys;
  std::vector<PackExpr> argv;
};

struct ScriptArgs {
  std::vector<std::string> keys;
  std::vector<std::string> argv;
};

class ScriptPack {
 public:
  static constexpr int kFormatVersion = 1;

  // Loads and validates the pack in `dir`; throws ScriptPackError.
  static ScriptPack load(const std::string& dir);
  // $LOCKSIM_SCRIPTS if set and non-empty, else <source dir>/impl/lua.
  static std::string default_dir();

  const std::string& dir() const { return dir_; }
  const PackScript& script(ScriptKind kind) const;
  // Every file the pack was loaded from (the manifest, then each script's
  // Lua file): a command must never write over one of them.
  std::vector<std::string> files() const;
  // The model variant that models this pack (mutant packs); nullopt: Correct.
  std::optional<ModelVariant> model_variant() const { return model_variant_; }

  ScriptArgs build_args(const ScriptCall& call) const;

 private:
  std::string dir_;
  std::optional<ModelVariant> model_variant_;
  std::array<PackScript, kScriptKindCount> scripts_;
};

// Parses one manifest expression; throws ScriptPackError (prefixed by
// `where`) on an empty term, an unknown parameter, or a non-integer
// parameter inside a sum.
PackExpr parse_pack_expr(const std::string& text, const std::string& where);

}  // namespace locksim
