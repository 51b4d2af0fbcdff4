// Mutant: what --mutant names, read once where it comes in (the command
// line, a mutant suite's table): none, a deliberately broken client
// (ClientMutant, impl/client_mutant.h) or a deliberately broken script (a
// ModelVariant listed by mutant_variants(), model/variant.h; the model runs
// it, and its Lua pack is in impl/mutants/). A design variant
// (impl/variants/) is not a mutant: parse_mutant refuses it and says how to
// run it. Inner layers (campaign setup) take the type.
#pragma once

#include <string>
#include <string_view>

#include "impl/client_mutant.h"
#include "model/variant.h"

namespace locksim {

class Mutant {
 public:
  Mutant() = default;  // none
  static Mutant of(ClientMutant client);
  // `script` must be one of mutant_variants().
  static Mutant of(ModelVariant script);

  bool none() const { return client_ == ClientMutant::None && script_ == ModelVariant::Correct; }
  ClientMutant client() const { return client_; }  // None unless a client mutant
  ModelVariant script() const { return script_; }  // Correct unless a script mutant
  // "none", or the mutant's name.
  std::string name() const;
  bool operator==(const Mutant& other) const { return client_ == other.client_ && script_ == other.script_; }

 private:
  ClientMutant client_ = ClientMutant::None;  // at most one of the two is set
  ModelVariant script_ = ModelVariant::Correct;
};

// The mutant `name` names ("none" or empty: none). Throws
// std::invalid_argument for a design variant (saying how to run it) or an
// unknown name (listing the mutants).
Mutant parse_mutant(std::string_view name);

}  // namespace locksim
