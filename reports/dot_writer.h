// DotWriter: the nodes of a Graphviz drawing whose every position is given
// (rendered with `neato -n2`, which only draws): boxes and other shapes,
// text, straight lines. Coordinates are points with y growing downwards
// (DOT's y grows upwards: pos() flips it); each call appends one node (a
// line: two invisible points and an edge), numbered n0, n1, ... in call
// order, so the same calls give the same text. Labels and tooltips go
// through dot_escape() (reports/dot_text.h). document() wraps the nodes in
// a digraph whose bounding box is the canvas given, with two invisible
// corner points so that nothing lies outside it.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace locksim::review {

class DotWriter {
 public:
  // A shape (box, diamond, circle, triangle...) with its centre at (cx, cy).
  void shape(const std::string& shape, double cx_pt, double cy_pt, double w_pt, double h_pt, const std::string& fill,
             const std::string& edge, double penwidth, const std::string& style, const std::string& tooltip,
             const std::string& cls = "");
  // A box from (x0, y0) to (x1, y1), at least 1 pt each way.
  void rect(double x0_pt, double y0_pt, double x1_pt, double y1_pt, const std::string& fill, const std::string& edge = "",
            double penwidth = 1, const std::string& style = "filled", const std::string& tooltip = "",
            const std::string& cls = "");
  // Text whose left edge is at x (or centred there), middle at y. Left-aligned
  // text sits in a fixed-size node as wide as text_pt() estimates, justified
  // left ("\l"), so it starts at x whatever the font's real widths are.
  void text(const std::string& label, double x_pt, double y_pt, double size_pt = 9, const std::string& colour = "black",
            bool bold = false, bool centred = false);
  void line(double x0_pt, double y0_pt, double x1_pt, double y1_pt, const std::string& colour, const std::string& style,
            double penwidth = 1);
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& colour);
  // The whole DOT text: a digraph over the canvas [0, width] x [0, height].
  std::string document(double width_pt, double height_pt) const;

 private:
  size_t point(double x_pt, double y_pt);
  std::ostringstream out_;
  size_t next_ = 0;
};

}  // namespace locksim::review
