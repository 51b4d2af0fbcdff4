// What report.html inlines to stay one file that works offline, embedded
// byte for byte at build time (reports/embed_files.cmake):
//  - the chart library, Dygraphs (Debian's libjs-dygraphs, MIT licence, its
//    notice kept at the top of the script). Why Dygraphs: it plots time
//    series with zoom (drag), reset (double click) and values on hover built
//    in, and its underlay callback shades spans (the faults) under the
//    curves, in one 128 KB script with no dependencies; d3 (Debian's is the
//    old 3.x) would mean writing the charts ourselves, Chart.js needs a
//    plugin for shaded spans, Vega a spec compiler three times the size;
//  - the page's own script and style (reports/report_page.js, .css): the
//    timelines' zoom, pan, hover and click-to-event, and the plots' set-up.
#pragma once

#include <string_view>

namespace locksim {

std::string_view chart_library_js();
std::string_view chart_library_css();
std::string_view report_page_js();
std::string_view report_page_css();

}  // namespace locksim
