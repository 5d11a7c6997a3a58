// The bitstream tools' shared code (bitstream_tool.hpp).
#include "bitstream_tool.hpp"

#include <filesystem>
#include <iostream>

#include "base/text_file.hpp"

namespace bitstream_tool {

cli::Usage usage(const std::string& program, const std::string& arguments, const std::string& summary) {
    const std::string line = "Usage: " + program + " [options] " + arguments;
    return cli::Usage{line + "\n" + summary + "\n\n", "Error: ", line + " (--help for the list)\n", false};
}

std::optional<Loaded> load(const std::string& path) {
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) {
        std::cerr << "Error: " << path << " is a directory, not a bitstream file\n";
        return std::nullopt;
    }
    auto bytes = pdt::read_text_file(path, "open bitstream file", "read bitstream file", "check the path");
    if (!bytes) {
        std::cerr << "Error: " << bytes.error().message() << "\n";
        return std::nullopt;
    }
    auto parsed = bitstream::parse(bitstream::bytes(*bytes));
    if (!parsed) {
        std::cerr << "Error: " << path << ": " << parsed.error().message() << "\n";
        return std::nullopt;
    }
    return Loaded{std::move(*bytes), std::move(*parsed)};
}

}  // namespace bitstream_tool
