#include "reports/chart_library.h"

#include <cstddef>

namespace locksim {

// Defined in the generated report_assets_data.cc.
extern const unsigned char kChartLibraryJs[];
extern const size_t kChartLibraryJs_size;
extern const unsigned char kChartLibraryCss[];
extern const size_t kChartLibraryCss_size;
extern const unsigned char kReportPageJs[];
extern const size_t kReportPageJs_size;
extern const unsigned char kReportPageCss[];
extern const size_t kReportPageCss_size;

namespace {
std::string_view view(const unsigned char* bytes, size_t size) { return {reinterpret_cast<const char*>(bytes), size}; }
}  // namespace

std::string_view chart_library_js() { return view(kChartLibraryJs, kChartLibraryJs_size); }
std::string_view chart_library_css() { return view(kChartLibraryCss, kChartLibraryCss_size); }
std::string_view report_page_js() { return view(kReportPageJs, kReportPageJs_size); }
std::string_view report_page_css() { return view(kReportPageCss, kReportPageCss_size); }

}  // namespace locksim
