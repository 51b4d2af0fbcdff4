#include "reports/dot_writer.h"

#include <algorithm>
#include <cstdio>

#include "reports/dot_text.h"
#include "reports/review_text.h"

namespace locksim::review {

namespace {

std::string inches(double pt) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", pt / 72.0);
  return buf;
}

std::string pos(double x_pt, double y_pt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f,%.1f!", x_pt, -y_pt);
  return buf;
}

}  // namespace

void DotWriter::shape(const std::string& shape, double cx_pt, double cy_pt, double w_pt, double h_pt,
                      const std::string& fill, const std::string& edge, double penwidth, const std::string& style,
                      const std::string& tooltip, const std::string& cls) {
  out_ << "  n" << next_++ << " [shape=" << shape << ", label=\"\", fixedsize=true, width=" << inches(w_pt)
       << ", height=" << inches(h_pt) << ", style=\"" << style << "\", fillcolor=\"" << fill << "\", color=\""
       << (edge.empty() ? fill : edge) << "\", penwidth=" << num(penwidth) << ", pos=\"" << pos(cx_pt, cy_pt) << "\"";
  if (!tooltip.empty()) out_ << ", tooltip=\"" << dot_escape(tooltip) << "\"";
  if (!cls.empty()) out_ << ", class=\"" << cls << "\"";
  out_ << "];\n";
}

void DotWriter::rect(double x0_pt, double y0_pt, double x1_pt, double y1_pt, const std::string& fill,
                     const std::string& edge, double penwidth, const std::string& style, const std::string& tooltip,
                     const std::string& cls) {
  const double w = std::max(x1_pt - x0_pt, 1.0);
  shape("box", x0_pt + w / 2, (y0_pt + y1_pt) / 2, w, std::max(y1_pt - y0_pt, 1.0), fill, edge, penwidth, style, tooltip,
        cls);
}

void DotWriter::text(const std::string& label, double x_pt, double y_pt, double size_pt, const std::string& colour,
                     bool bold, bool centred) {
  const double w = std::max(text_pt(label, size_pt, bold), 4.0);
  out_ << "  n" << next_++ << " [shape=plaintext, fontsize=" << num(size_pt) << ", fontcolor=\"" << colour << "\""
       << (bold ? ", fontname=\"Helvetica-Bold\"" : "") << ", margin=0";
  if (centred) {
    out_ << ", label=\"" << dot_escape(label) << "\", width=0, height=0, pos=\"" << pos(x_pt, y_pt) << "\"];\n";
  } else {
    out_ << ", label=\"" << dot_escape(label) << "\\l\", fixedsize=true, width=" << inches(w)
         << ", height=" << inches(size_pt + 2) << ", pos=\"" << pos(x_pt + w / 2, y_pt) << "\"];\n";
  }
}

void DotWriter::line(double x0_pt, double y0_pt, double x1_pt, double y1_pt, const std::string& colour,
                     const std::string& style, double penwidth) {
  const size_t a = point(x0_pt, y0_pt);
  const size_t b = point(x1_pt, y1_pt);
  out_ << "  n" << a << " -> n" << b << " [color=\"" << colour << "\", style=\"" << style
       << "\", penwidth=" << num(penwidth) << "];\n";
}

void DotWriter::polyline(const std::vector<std::pair<double, double>>& points, const std::string& colour) {
  for (size_t i = 1; i < points.size(); ++i) {
    line(points[i - 1].first, points[i - 1].second, points[i].first, points[i].second, colour, "solid");
  }
}

size_t DotWriter::point(double x_pt, double y_pt) {
  const size_t id = next_++;
  out_ << "  n" << id << " [shape=point, style=invis, width=0.01, height=0.01, label=\"\", pos=\"" << pos(x_pt, y_pt)
       << "\"];\n";
  return id;
}

std::string DotWriter::document(double width_pt, double height_pt) const {
  std::ostringstream dot;
  dot << "digraph timeline {\n"
      << "  graph [splines=line, outputorder=nodesfirst, fontname=\"Helvetica\", bgcolor=white, pad=0.1, bb=\"0,"
      << num(-height_pt) << "," << num(width_pt) << ",0\"];\n"
      << "  node [fontname=\"Helvetica\"];\n"
      << "  edge [arrowhead=none];\n"
      // Two invisible corners: the drawing spans the whole canvas, so no label lies outside it.
      << "  corner0 [shape=point, style=invis, width=0.01, height=0.01, label=\"\", pos=\"0.0,0.0!\"];\n"
      << "  corner1 [shape=point, style=invis, width=0.01, height=0.01, label=\"\", pos=\"" << num(width_pt) << ","
      << num(-height_pt) << "!\"];\n"
      << out_.str() << "}\n";
  return dot.str();
}

}  // namespace locksim::review
