// xilinx_bit_to_bin <in.bit> <out.bin>: the .bin a SPI configuration flash is programmed with,
// as write_cfgmem -format BIN -interface SPIx1/SPIx4 writes it: the .bit header dropped, the
// configuration data from the dummy words on, not bit-swapped (UG570 "Bit Swapping": BIN and
// SPI files never are). The input is parsed first: a corrupt file writes nothing.
// Exit status: 0 written, 1 the input is no valid bitstream or the output cannot be written,
// 2 usage error.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "base/format.hpp"
#include "base/numbers.hpp"
#include "bitstream/parts.hpp"
#include "bitstream/spi_bin.hpp"
#include "bitstream_tool.hpp"

namespace po = boost::program_options;

namespace {

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    return static_cast<bool>(out);
}

std::string idcode_text(const bitstream::Configuration& c) {
    return c.idcode ? pdt::format("IDCODE 0x%08x (%s)", *c.idcode, bitstream::part_name(*c.idcode).c_str())
                    : std::string("no IDCODE");
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::vector<std::string> files;
    std::string pad_to = "0";
    bitstream::BinOptions options;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    description.add_options()("pad_to", po::value(&pad_to)->default_value(pad_to),
                              "pad with 0xFF (erased flash) to a multiple of this many bytes, e.g. 64K; 0: no padding")(
        "bit_swap", po::bool_switch(&options.bit_swap),
        "reverse the bits of each byte, for SelectMAP/BPI (UG570 'Bit Swapping'); never for SPI flash");
    const auto usage = bitstream_tool::usage("xilinx_bit_to_bin", "<in.bit> <out.bin>",
                                             "Writes the .bin for SPI flash programming from a Xilinx .bit file.");
    if (auto status = cli::parse_command_line(argc, argv, {description, usage, &files, "file"}))
        return *status;
    const auto pad = pdt::parse_size(pad_to);
    if (files.size() != 2 || !pad) {
        std::cerr << usage.error_prefix
                  << (!pad ? "--pad_to " + pad_to + ": " + pad.error().message() : "two files are needed, in and out")
                  << "\n" << usage.error_tail;
        return 2;
    }
    options.pad_to = *pad;
    const auto loaded = bitstream_tool::load(files[0]);
    if (!loaded)
        return 1;
    const auto bin = bitstream::spi_flash_bin(loaded->parsed, bitstream::bytes(loaded->bytes), options);
    if (!write_file(files[1], bin)) {
        std::cerr << "Error: cannot write " << files[1] << "\n";
        return 1;
    }
    std::cout << "Wrote " << files[1] << ": " << bin.size() << " bytes (" << loaded->parsed.data_length
              << " bytes of configuration data from byte offset " << loaded->parsed.data_offset << " of " << files[0]
              << (options.bit_swap ? ", bit-swapped" : ", not bit-swapped") << "), "
              << idcode_text(loaded->parsed.configuration) << "\n";
    return 0;
}
