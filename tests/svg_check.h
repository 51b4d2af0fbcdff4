// SVG checks for timeline tests: reads a Graphviz SVG's canvas (viewBox and
// the graph's translation), its texts with their positions and font sizes,
// and the SVG classes of its nodes, so a test can say what a reader sees:
// which lanes are there, that every label lies inside the canvas, how many
// overlaps are drawn.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace locksim::testing {

struct SvgText {
  std::string text;   // unescaped
  double x_pt = 0;    // in canvas coordinates (the graph's translation applied)
  double y_pt = 0;
  double size_pt = 0;
  std::string anchor;  // start, middle, end
  bool bold = false;
};

// A node's shape: its SVG class, its tooltip, its bounding box (canvas
// coordinates, y growing downwards).
struct SvgShape {
  std::string cls;
  std::string tooltip;  // unescaped
  std::string fill;     // the polygon's or ellipse's fill ("#d50000", "none")
  double x0_pt = 0, y0_pt = 0, x1_pt = 0, y1_pt = 0;
  double cy_pt() const { return (y0_pt + y1_pt) / 2; }
};

struct Svg {
  double width_pt = 0;
  double height_pt = 0;
  std::vector<SvgText> texts;
  std::vector<std::string> classes;  // of every node group, e.g. "node overlap ev e47"
  std::vector<SvgShape> shapes;      // of every node group drawn as a polygon or an ellipse

  // The first shape whose tooltip starts with `prefix` and whose class
  // contains `cls` (nullptr: none).
  const SvgShape* shape(const std::string& prefix, const std::string& cls = "") const {
    for (const SvgShape& s : shapes)
      if (s.tooltip.rfind(prefix, 0) == 0 && s.cls.find(cls) != std::string::npos) return &s;
    return nullptr;
  }
  // The name of the lane (a shape of class "lane", its tooltip the name)
  // whose band holds the height y ("" if none).
  std::string lane_at(double y_pt) const {
    for (const SvgShape& s : shapes)
      if (s.cls.find(" lane") != std::string::npos && y_pt >= s.y0_pt && y_pt <= s.y1_pt) return s.tooltip;
    return "";
  }

  // The picture's title: its first 12 pt bold text ("" if none).
  std::string title() const {
    for (const SvgText& t : texts)
      if (t.bold && t.size_pt >= 12) return t.text;
    return "";
  }
  bool has_text(const std::string& t) const {
    for (const SvgText& s : texts)
      if (s.text == t) return true;
    return false;
  }
  bool has_text_containing(const std::string& t) const {
    for (const SvgText& s : texts)
      if (s.text.find(t) != std::string::npos) return true;
    return false;
  }
  size_t count_class(const std::string& cls) const {
    size_t n = 0;
    const std::regex word("(^| )" + cls + "( |$)");
    for (const std::string& c : classes)
      if (std::regex_search(c, word)) ++n;
    return n;
  }
  // Texts that run off the canvas, by a generous estimate of their width
  // (Helvetica and its stand-ins average about half the font size per
  // character; 0.55 leaves a margin).
  std::vector<std::string> texts_off_canvas() const {
    std::vector<std::string> off;
    for (const SvgText& t : texts) {
      size_t chars = 0;
      for (unsigned char c : t.text)
        if ((c & 0xC0) != 0x80) ++chars;
      const double w = static_cast<double>(chars) * t.size_pt * 0.55;
      const double left = t.anchor == "middle" ? t.x_pt - w / 2 : (t.anchor == "end" ? t.x_pt - w : t.x_pt);
      if (left < -1 || left + w > width_pt + 1 || t.y_pt < -1 || t.y_pt > height_pt + 1) off.push_back(t.text);
    }
    return off;
  }
};

inline std::string svg_unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    if (semi == std::string::npos) {
      out += s[i];
      continue;
    }
    const std::string entity = s.substr(i + 1, semi - i - 1);
    if (entity == "amp") out += '&';
    else if (entity == "lt") out += '<';
    else if (entity == "gt") out += '>';
    else if (entity == "quot") out += '"';
    else if (entity == "apos") out += '\'';
    else if (!entity.empty() && entity[0] == '#') {
      const long code = entity.size() > 1 && entity[1] == 'x' ? std::strtol(entity.c_str() + 2, nullptr, 16)
                                                              : std::strtol(entity.c_str() + 1, nullptr, 10);
      if (code < 0x80) {
        out += static_cast<char>(code);
      } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
      } else {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
      }
    } else {
      out += s.substr(i, semi - i + 1);
    }
    i = semi;
  }
  return out;
}

inline Svg parse_svg(const std::string& svg) {
  Svg out;
  std::smatch m;
  if (std::regex_search(svg, m, std::regex(R"(viewBox="([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)\")"))) {
    out.width_pt = std::stod(m[3]);
    out.height_pt = std::stod(m[4]);
  }
  double tx = 0, ty = 0;
  if (std::regex_search(svg, m, std::regex(R"(class="graph" transform="[^"]*translate\(([-\d.]+) ([-\d.]+)\))"))) {
    tx = std::stod(m[1]);
    ty = std::stod(m[2]);
  }
  const std::regex text_re(R"re(<text ([^>]*)>([^<]*)</text>)re");
  const std::regex attr_re(R"re(([a-z-]+)="([^"]*)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it) {
    SvgText t;
    t.text = svg_unescape((*it)[2]);
    const std::string attrs = (*it)[1];
    for (auto a = std::sregex_iterator(attrs.begin(), attrs.end(), attr_re); a != std::sregex_iterator(); ++a) {
      const std::string name = (*a)[1], value = (*a)[2];
      if (name == "x") t.x_pt = std::stod(value) + tx;
      else if (name == "y") t.y_pt = std::stod(value) + ty;
      else if (name == "font-size") t.size_pt = std::stod(value);
      else if (name == "text-anchor") t.anchor = value;
      else if (name == "font-weight") t.bold = value == "bold";
      else if (name == "font-family") t.bold = t.bold || value.find("Bold") != std::string::npos;
    }
    out.texts.push_back(std::move(t));
  }
  const std::regex class_re(R"re(<g id="[^"]*" class="(node[^"]*)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), class_re); it != std::sregex_iterator(); ++it)
    out.classes.push_back((*it)[1]);
  // Shapes: a node group, its title, its tooltip's link (if any), then its
  // polygon or ellipse.
  const std::regex shape_re(
      R"re(<g id="[^"]*" class="(node[^"]*)">\s*<title>[^<]*</title>\s*(?:<g id="[^"]*"><a xlink:title="([^"]*)">\s*)?<(polygon|ellipse) ([^>]*)/>)re");
  const std::regex number_re(R"(-?[\d.]+)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), shape_re); it != std::sregex_iterator(); ++it) {
    SvgShape shape;
    shape.cls = (*it)[1];
    shape.tooltip = svg_unescape((*it)[2]);
    const std::string attrs = (*it)[4];
    if (std::regex_search(attrs, m, std::regex(R"re(fill="([^"]*)")re"))) shape.fill = m[1];
    std::vector<double> xs, ys;
    if ((*it)[3] == "polygon") {
      if (!std::regex_search(attrs, m, std::regex(R"re(points="([^"]*)")re"))) continue;
      const std::string points = m[1];
      std::vector<double> values;
      for (auto n = std::sregex_iterator(points.begin(), points.end(), number_re); n != std::sregex_iterator(); ++n)
        values.push_back(std::stod((*n)[0]));
      for (size_t i = 0; i + 1 < values.size(); i += 2) {
        xs.push_back(values[i]);
        ys.push_back(values[i + 1]);
      }
    } else {
      std::map<std::string, double> a;
      for (auto n = std::sregex_iterator(attrs.begin(), attrs.end(), attr_re); n != std::sregex_iterator(); ++n) {
        const std::string value = (*n)[2];
        if (std::regex_match(value, number_re)) a[(*n)[1]] = std::stod(value);
      }
      xs = {a["cx"] - a["rx"], a["cx"] + a["rx"]};
      ys = {a["cy"] - a["ry"], a["cy"] + a["ry"]};
    }
    if (xs.empty()) continue;
    shape.x0_pt = *std::min_element(xs.begin(), xs.end()) + tx;
    shape.x1_pt = *std::max_element(xs.begin(), xs.end()) + tx;
    shape.y0_pt = *std::min_element(ys.begin(), ys.end()) + ty;
    shape.y1_pt = *std::max_element(ys.begin(), ys.end()) + ty;
    out.shapes.push_back(std::move(shape));
  }
  return out;
}

}  // namespace locksim::testing
