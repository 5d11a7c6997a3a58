# pcie_link_report: merges result files of pcie_link_measure into one HTML page with SVG plots
# made by gnuplot (Debian package gnuplot-nox). Included from measure/CMakeLists.txt.
add_library(measure_report
  src/report_input.cpp
  src/report_stats.cpp
  src/report_merge.cpp
  src/report_plots.cpp
  src/report_html.cpp
  src/report_sections.cpp
)
target_include_directories(measure_report PUBLIC include)
target_link_libraries(measure_report PUBLIC vfio_access nlohmann_json::nlohmann_json)

add_executable(pcie_link_report ${PROJECT_SOURCE_DIR}/tools/measure/pcie_link_report.cpp)
target_link_libraries(pcie_link_report PRIVATE measure_report cli)

add_subdirectory(tests/report)
