#include "tools/bench/bench_report.h"

#include "tools/bench/allocator.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace locksim {

BenchReport::BenchReport(bool quick) : quick_(quick) {
  for (const char* key : kBenchKeys) {
    figures_.push_back(BenchFigure{key, std::nullopt, "not measured", ""});
  }
}

BenchFigure& BenchReport::at(const std::string& key) {
  for (BenchFigure& f : figures_) {
    if (f.key == key) return f;
  }
  throw std::out_of_range("unknown bench key '" + key + "'");
}

const BenchFigure& BenchReport::figure(const std::string& key) const {
  return const_cast<BenchReport*>(this)->at(key);
}

void BenchReport::set(const std::string& key, double value, std::string detail) {
  BenchFigure& f = at(key);
  if (!std::isfinite(value) || value <= 0) {
    f.value.reset();
    f.null_reason = "measurement gave no positive rate (" + detail + ")";
    return;
  }
  f.value = value;
  f.null_reason.clear();
  f.detail = std::move(detail);
}

void BenchReport::set_null(const std::string& key, std::string reason) {
  BenchFigure& f = at(key);
  f.value.reset();
  f.null_reason = std::move(reason);
}

void BenchReport::set_section(const std::string& name, nlohmann::json rows, std::string text) {
  sections_[name] = std::move(rows);
  section_text_ += text;
}

nlohmann::json BenchReport::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  nlohmann::json reasons = nlohmann::json::object();
  for (const BenchFigure& f : figures_) {
    if (f.value) {
      j[f.key] = *f.value;
    } else {
      j[f.key] = nullptr;
      reasons[f.key] = f.null_reason;
    }
  }
  j["quick"] = quick_;
  j["allocator"] = allocator_in_use();
  j["null_reasons"] = reasons;
  for (const auto& [name, rows] : sections_.items()) j[name] = rows;
  return j;
}

std::string bench_figure_text(double value) {
  char text[64];
  std::snprintf(text, sizeof text, value >= 100 ? "%.0f" : "%.2f", value);
  return text;
}

std::string BenchReport::to_text() const {
  std::string out = quick_ ? "locksim bench --quick (scaled-down scenarios)\n" : "locksim bench\n";
  for (const BenchFigure& f : figures_) {
    const std::string value = f.value ? bench_figure_text(*f.value) : "null";
    char line[160];
    std::snprintf(line, sizeof line, "  %-30s %14s  ", f.key.c_str(), value.c_str());
    out += line;
    out += f.value ? f.detail : f.null_reason;
    out += "\n";
  }
  return out + section_text_;
}

}  // namespace locksim
