// parse_bitstream_file <file>: a Xilinx .bit or .bin file (7 series, UltraScale, UltraScale+)
// as its configuration logic reads it: the .bit header fields, the dummy and bus width words,
// each Sync word, every configuration packet (offset, type, opcode, register, word count, a
// short write's value: CMD's command, IDCODE's part), the frame data as a word count, then the
// IDCODE, compressed and encrypted. Versal PDI files are out of scope.
// Exit status: 0 parsed, 1 the file cannot be read or is no valid bitstream, 2 usage error.
#include <cstdio>
#include <iostream>

#include "bitstream/report.hpp"
#include "bitstream_tool.hpp"
#include "cli/device_options.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    bool json = false;
    std::vector<std::string> files;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    cli::add_json_option(description, json, cli::JsonForm::Document);
    const auto usage = bitstream_tool::usage(
        "parse_bitstream_file", "<bitstream file>",
        "Parses a Xilinx .bit or .bin bitstream file (UG470, UG570): header, packets, IDCODE, compression, "
        "encryption.");
    if (auto status = cli::parse_command_line(argc, argv, {description, usage, &files, "file"}))
        return *status;
    if (files.size() != 1) {
        std::cerr << usage.error_prefix << (files.empty() ? "no bitstream file named" : "more than one file named")
                  << "\n" << usage.error_tail;
        return 2;
    }
    const auto loaded = bitstream_tool::load(files[0]);
    if (!loaded)
        return 1;
    if (json)
        std::cout << bitstream::format_json(loaded->parsed, files[0], loaded->bytes.size());
    else
        std::cout << bitstream::format_text(loaded->parsed, files[0], loaded->bytes.size());
    return 0;
}
