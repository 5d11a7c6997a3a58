// The command line every tool main parses the same way (Boost.Program_options): --help and
// --version print and end the run with 0, an unknown option or a malformed value is a usage
// error (exit 2) worded as the tool has always worded it:
//
//   po::options_description options("Options");
//   cli::add_help_and_version(options);
//   options.add_options()("json", po::bool_switch(&json), "print JSON instead of text");
//   if (auto status = cli::parse_command_line(argc, argv, {options, cli::fpga_sio_usage(argv[0], "Lists ...")}))
//       return *status;
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace cli {

// --help (-h) and --version, the first options of every tool.
void add_help_and_version(boost::program_options::options_description& options);

// How a tool words --help and a usage error.
struct Usage {
    std::string help_head;     // printed on stdout before the options on --help
    std::string error_prefix;  // before the parser's message on stderr
    std::string error_tail;    // after the message line
    bool options_after_error = false;  // then the options
};

// fpga_sio's wording (the design and stream tools): "Error: <what>" and "Usage: <program> [options]
// (--help for the list)"; --help prints "Usage: <program> [options]", the summary, then the options.
Usage fpga_sio_usage(const std::string& program, const std::string& summary);
// The PCI and VFIO tools' wording: "<tool>: <what>" and the options; --help prints help_head
// (empty when the options' caption is the usage line), then the options.
Usage tool_usage(const std::string& tool, const std::string& help_head = "");
// The message alone after `error_prefix` (the CUDA tools); --help prints the options.
Usage message_usage(const std::string& error_prefix);

struct CommandLine {
    // `arguments`: where the words that are no option go, in order (each also accepted as
    // --<arguments_name> <word>); null for a tool that takes none (Boost.Program_options then
    // ignores such a word).
    CommandLine(const boost::program_options::options_description& options, Usage usage,
                std::vector<std::string>* arguments = nullptr, std::string arguments_name = "")
        : options(options), usage(std::move(usage)), arguments(arguments), arguments_name(std::move(arguments_name)) {}
    const boost::program_options::options_description& options;  // what --help prints
    Usage usage;
    std::vector<std::string>* arguments;
    std::string arguments_name;
};

// What a command line asks, for a caller that prints the help and its errors itself
// (pcie_link_measure, whose library is tested parsing without printing).
enum class Request { Run, Help, Version };
// Parses argv into the options' variables and `values`; `line.usage` is not used. A malformed
// command line is a usage error (pdt::usage_error), its hint the parser's message.
pdt::Result<Request> parse_arguments(int argc, const char* const* argv, const CommandLine& line,
                                     boost::program_options::variables_map& values);

// Parses argv into the options' variables (and `values`, when given). Returns the exit status
// when the run ends here: 0 after --help or --version, 2 after a usage error (the message on
// stderr); nullopt when the tool goes on.
std::optional<int> parse_command_line(int argc, char** argv, const CommandLine& line,
                                      boost::program_options::variables_map* values = nullptr);

// parse_command_line in fpga_sio's wording (fpga_sio_usage), as the design tools parse theirs:
//   if (auto status = cli::parse_fpga_sio_command_line(argc, argv, options, "Lists ..."))
//       return *status;
std::optional<int> parse_fpga_sio_command_line(int argc, char** argv,
                                               const boost::program_options::options_description& options,
                                               const std::string& summary);

// A failure the tool reports as "<tool>: <message>" on stderr, the options of the hint's requests
// named (cli::name_options); returns its exit status: 2 for a
// usage error (Error::usage, never inferred from the errno: a device's EINVAL is a failure), else 1.
int report_error(const std::string& tool, const pdt::Error& error);

}  // namespace cli
