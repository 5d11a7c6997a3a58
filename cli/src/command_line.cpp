#include "cli/command_line.hpp"

#include <cerrno>
#include <iostream>

#include "cli/option_names.hpp"
#include "pdt_version/version.hpp"

namespace po = boost::program_options;

namespace cli {

void add_help_and_version(po::options_description& options) {
    options.add_options()("help,h", "show this help")("version", "print the toolkit version and exit");
}

Usage fpga_sio_usage(const std::string& program, const std::string& summary) {
    return Usage{"Usage: " + program + " [options]\n" + summary + "\n\n", "Error: ",
                 "Usage: " + program + " [options] (--help for the list)\n", false};
}

Usage tool_usage(const std::string& tool, const std::string& help_head) {
    return Usage{help_head, tool + ": ", "", true};
}

Usage message_usage(const std::string& error_prefix) { return Usage{"", error_prefix, "", false}; }

namespace {

void parse(int argc, const char* const* argv, const CommandLine& line, po::variables_map& values) {
    if (!line.arguments) {
        po::store(po::command_line_parser(argc, argv).options(line.options).run(), values);
        return;
    }
    po::options_description all;
    all.add(line.options).add_options()(line.arguments_name.c_str(), po::value(line.arguments));
    po::positional_options_description positional;
    positional.add(line.arguments_name.c_str(), -1);
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), values);
}

}  // namespace

pdt::Result<Request> parse_arguments(int argc, const char* const* argv, const CommandLine& line,
                                     po::variables_map& values) {
    try {
        parse(argc, argv, line, values);
        po::notify(values);
    } catch (const po::error& e) {
        return pdt::usage_error("parse command line", "", e.what());
    }
    if (values.count("help"))
        return Request::Help;
    return values.count("version") ? Request::Version : Request::Run;
}

std::optional<int> parse_command_line(int argc, char** argv, const CommandLine& line, po::variables_map* values) {
    po::variables_map own;
    const auto request = parse_arguments(argc, argv, line, values ? *values : own);
    if (!request) {
        std::cerr << line.usage.error_prefix << request.error().hint << "\n" << line.usage.error_tail;
        if (line.usage.options_after_error)
            std::cerr << line.options;
        return 2;
    }
    switch (*request) {
    case Request::Help: std::cout << line.usage.help_head << line.options; return 0;
    case Request::Version: std::cout << pdt_version::version_line(argv[0]) << "\n"; return 0;
    case Request::Run: break;
    }
    return std::nullopt;
}

std::optional<int> parse_fpga_sio_command_line(int argc, char** argv, const po::options_description& options,
                                               const std::string& summary) {
    return parse_command_line(argc, argv, {options, fpga_sio_usage(argv[0], summary)});
}

int report_error(const std::string& tool, const pdt::Error& error) {
    std::cerr << tool << ": " << name_options(error).message() << "\n";
    return error.usage ? 2 : 1;
}

}  // namespace cli
