#include "impl/pack_expr.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>

namespace locksim {

namespace {

bool parse_int64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return false;
  }
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

struct Token {
  enum class Kind { Word, Quoted, Plus, Concat };
  Kind kind;
  std::string text;
};

bool is_space(char c) { return c == ' ' || c == '\t'; }

// Splits an expression into words, quoted texts and the two operators. A
// '+' right after an operator (or at the start) followed by a digit belongs
// to the number ("+5" is a literal), as a '-' always does.
std::vector<Token> tokenize(const std::string& text, const std::string& where) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (is_space(c)) {
      ++i;
    } else if (c == '\'' || c == '"') {
      const size_t close = text.find(c, i + 1);
      if (close == std::string::npos) {
        throw ScriptPackError(where + ": unterminated quoted text in expression \"" + text + "\"");
      }
      out.push_back(Token{Token::Kind::Quoted, text.substr(i + 1, close - i - 1)});
      i = close + 1;
    } else if (c == '+') {
      out.push_back(Token{Token::Kind::Plus, "+"});
      ++i;
    } else if (c == '.' && i + 1 < text.size() && text[i + 1] == '.') {
      out.push_back(Token{Token::Kind::Concat, ".."});
      i += 2;
    } else {
      size_t j = i;
      while (j < text.size() && !is_space(text[j]) && text[j] != '+' && text[j] != '\'' && text[j] != '"' &&
             !(text[j] == '.' && j + 1 < text.size() && text[j + 1] == '.')) {
        ++j;
      }
      out.push_back(Token{Token::Kind::Word, text.substr(i, j - i)});
      i = j;
    }
  }
  return out;
}

std::string known_names() {
  std::string names;
  for (const auto& name : param_names()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

}  // namespace

PackExpr parse_pack_expr(const std::string& text, const std::string& where,
                         const std::vector<std::string>& extra_names) {
  PackExpr expr;
  expr.text = text;
  const std::vector<Token> tokens = tokenize(text, where);
  const std::string quoted = "\"" + text + "\"";
  // Alternating term, operator, term, ...; an operator where a term should
  // be (or at either end) is an empty term.
  bool want_term = true;
  for (const Token& t : tokens) {
    const bool is_op = t.kind == Token::Kind::Plus || t.kind == Token::Kind::Concat;
    if (want_term && is_op) throw ScriptPackError(where + ": empty term in expression " + quoted);
    if (!want_term && !is_op) {
      throw ScriptPackError(where + ": missing '+' or '..' between terms in expression " + quoted);
    }
    want_term = !want_term;
    if (is_op) {
      const PackExpr::Op op = t.kind == Token::Kind::Plus ? PackExpr::Op::Sum : PackExpr::Op::Concat;
      if (expr.op != PackExpr::Op::Single && expr.op != op) {
        throw ScriptPackError(where + ": expression " + quoted +
                              " mixes '+' (integer sum) and '..' (concatenation); use one of them");
      }
      expr.op = op;
      continue;
    }
    PackExpr::Term term;
    if (t.kind == Token::Kind::Quoted) {
      term.kind = PackExpr::Term::Kind::Text;
      term.name = t.text;
    } else if (parse_int64(t.text, &term.integer)) {
      term.kind = PackExpr::Term::Kind::Integer;
    } else if (std::find(extra_names.begin(), extra_names.end(), t.text) != extra_names.end()) {
      term.kind = PackExpr::Term::Kind::Extra;
      term.name = t.text;
    } else if (std::find(param_names().begin(), param_names().end(), t.text) != param_names().end()) {
      term.kind = PackExpr::Term::Kind::Param;
      term.name = t.text;
      term.param = param_index(t.text);
    } else {
      std::string names = known_names();
      for (const auto& extra : extra_names) names += ", " + extra;
      throw ScriptPackError(where + ": unknown parameter \"" + t.text + "\" in expression " + quoted +
                            " (known: " + names + "; quote text: 'text')");
    }
    expr.terms.push_back(std::move(term));
  }
  if (want_term) throw ScriptPackError(where + ": empty term in expression " + quoted);
  assert(!expr.terms.empty());
  if (expr.op == PackExpr::Op::Sum) {
    for (const PackExpr::Term& term : expr.terms) {
      if (term.kind == PackExpr::Term::Kind::Text) {
        throw ScriptPackError(where + ": quoted text '" + term.name + "' cannot be used in the sum " + quoted +
                              " (concatenate with '..')");
      }
      if (term.kind == PackExpr::Term::Kind::Extra ||
          (term.kind == PackExpr::Term::Kind::Param && !param_is_integer(term.name))) {
        throw ScriptPackError(where + ": parameter \"" + term.name + "\" is not an integer and cannot be used in the sum " +
                              quoted);
      }
    }
  }
  return expr;
}

bool PackExpr::uses_extra() const {
  return std::any_of(terms.begin(), terms.end(), [](const Term& t) { return t.kind == Term::Kind::Extra; });
}

void PackExpr::evaluate_into(const ScriptParams& params, std::string* out) const {
  out->clear();
  if (op == Op::Sum || uses_extra()) {
    *out = evaluate(params);
    return;
  }
  for (const Term& t : terms) {
    switch (t.kind) {
      case Term::Kind::Param: append_param_value(params, t.param, out); break;
      case Term::Kind::Integer: out->append(std::to_string(t.integer)); break;
      case Term::Kind::Text: out->append(t.name); break;
      case Term::Kind::Extra: break;
    }
  }
}

std::string PackExpr::evaluate(const ScriptParams& params, const std::string& extra_value) const {
  assert(!terms.empty());
  auto term_text = [&](const Term& t) -> std::string {
    switch (t.kind) {
      case Term::Kind::Param: {
        auto v = param_value(params, t.name);
        assert(v.has_value());  // names were validated at parse time
        return *v;
      }
      case Term::Kind::Integer: return std::to_string(t.integer);
      case Term::Kind::Text: return t.name;
      case Term::Kind::Extra: return extra_value;
    }
    return "";
  };
  if (op != Op::Sum) {
    std::string out;
    for (const Term& t : terms) out += term_text(t);
    return out;
  }
  uint64_t sum = 0;  // wraps like two's complement instead of overflowing
  for (const Term& t : terms) {
    int64_t v = t.integer;
    if (t.kind == Term::Kind::Param) {
      auto p = param_integer(params, t.name);
      assert(p.has_value());  // sums hold integer parameters only
      v = *p;
    }
    sum += static_cast<uint64_t>(v);
  }
  return std::to_string(static_cast<int64_t>(sum));
}

}  // namespace locksim
