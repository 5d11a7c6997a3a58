// What the bitstream tools share: their usage wording (fpga_sio's: "Error: <what>") and reading
// and parsing the file a user names.
#pragma once

#include <optional>
#include <string>

#include "bitstream/bitstream.hpp"
#include "cli/command_line.hpp"

namespace bitstream_tool {

// "Usage: <program> [options] <arguments>", the summary, then the options.
cli::Usage usage(const std::string& program, const std::string& arguments, const std::string& summary);

struct Loaded {
    std::string bytes;            // the whole file
    bitstream::Bitstream parsed;  // parse(bytes)
};

// The file read and parsed, or nullopt after "Error: <path>: <message>" on stderr (the tools'
// exit status 1: the file cannot be read or is no valid bitstream).
std::optional<Loaded> load(const std::string& path);

}  // namespace bitstream_tool
