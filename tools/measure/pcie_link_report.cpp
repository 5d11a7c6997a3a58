// pcie_link_report --output report.html result.json [result.json | directory ...]: merges result
// files of pcie_link_measure (several runs, cards and hosts) into one self-contained HTML page.
// Exit 0 when the page was written, 1 when a result file is missing or malformed or gnuplot
// failed, 2 for a usage error.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "measure/report.hpp"
#include "cli/command_line.hpp"

namespace po = boost::program_options;
namespace report = measure::report;

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::string output, title = "PCIe link report", gnuplot = "gnuplot";
    std::vector<std::string> inputs;
    po::options_description visible(
        "Usage: pcie_link_report --output FILE.html RESULT.json [RESULT.json|DIRECTORY ...]\n"
        "Merges result files of pcie_link_measure into one HTML page (plots made with gnuplot).\n\nOptions");
    cli::add_help_and_version(visible);
    visible.add_options()("output,o", po::value(&output), "the HTML file to write")(
        "title", po::value(&title)->default_value(title), "the page's title")(
        "gnuplot", po::value(&gnuplot)->default_value(gnuplot), "the gnuplot program (searched in PATH)");
    if (auto status = cli::parse_command_line(
            argc, argv, {visible, cli::tool_usage("pcie_link_report"), &inputs, "input"}))
        return *status;
    if (output.empty() || inputs.empty()) {
        std::cerr << "pcie_link_report: " << (output.empty() ? "--output FILE.html is required" : "no result file given")
                  << "\nUsage: pcie_link_report --output FILE.html RESULT.json [RESULT.json|DIRECTORY ...]\n";
        return 2;
    }
    auto runs = report::load_runs(inputs);
    if (!runs) {
        std::cerr << "pcie_link_report: " << runs.error().message() << "\n";
        return 1;
    }
    const report::Report merged = report::merge(std::move(*runs));
    auto plots = report::make_plots(merged, report::gnuplot_plotter(gnuplot));
    if (!plots) {
        std::cerr << "pcie_link_report: " << plots.error().message() << "\n";
        return 1;
    }
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    out << report::render_html(merged, *plots, title);
    out.close();
    if (!out) {
        std::cerr << "pcie_link_report: write " << output << " failed\n";
        return 1;
    }
    for (const report::Card& card : merged.cards)
        std::cout << card.tag << " " << card.name << " on " << card.hostname << ": " << card.runs.size() << (card.runs.size() == 1 ? " run, " : " runs, ")
                  << card.verdict << ", " << card.bytes_verified << " bytes verified\n";
    std::cout << "Report: " << output << ": " << merged.cards.size() << " cards, " << merged.runs.size()
              << " result files, " << plots->size() << " plots, " << merged.warnings.size() << " warnings\n";
    return 0;
}
