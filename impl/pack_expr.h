// PackExpr: one script-pack manifest expression (impl/script_pack.h), the
// text that says how one KEYS or ARGV entry is built from a call's named
// parameters (model/script_call.h). Grammar:
//
//   expr    := term | term ('+' term)+ | term ('..' term)+
//   term    := parameter name | integer literal | 'text' | "text"
//
//  - A single term passes through: a parameter's value, the literal.
//  - '+' is an integer sum: every term an integer parameter or literal
//    ("now_ms + wait_ms").
//  - '..' concatenates the terms' texts ("'lock_wait:{' .. lock .. '}:' ..
//    owner"), integers rendered in decimal.
//  - '+' and '..' do not mix in one expression; quoted text has no escapes
//    (it cannot hold its own quote character).
//  - `extra_names` admits names that are not call parameters (the wake-up
//    channel template's `waiter`); such a name has no value of its own:
//    evaluate() takes it from `extra_value`, and only '..' or a single term
//    may use it.
//
// Contract: parse_pack_expr throws ScriptPackError prefixed by `where` and
// quoting the expression; evaluate() is pure and deterministic.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/script_call.h"

namespace locksim {

struct ScriptPackError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PackExpr {
  enum class Op { Single, Sum, Concat };
  struct Term {
    enum class Kind { Param, Integer, Text, Extra };
    Kind kind = Kind::Integer;
    std::string name;     // Param / Extra: the name; Text: the text
    int64_t integer = 0;  // Integer
    int param = -1;       // Param: param_index(name) (model/script_call.h)
  };
  Op op = Op::Single;
  std::vector<Term> terms;  // at least one
  std::string text;         // as written in the manifest, for messages

  // `extra_value` stands for every Extra term (e.g. the waiter's owner id).
  std::string evaluate(const ScriptParams& params, const std::string& extra_value = "") const;
  // evaluate() into *out (replacing its content, reusing its buffer).
  void evaluate_into(const ScriptParams& params, std::string* out) const;
  // Whether any term is the extra name.
  bool uses_extra() const;
};

PackExpr parse_pack_expr(const std::string& text, const std::string& where,
                         const std::vector<std::string>& extra_names = {});

}  // namespace locksim
