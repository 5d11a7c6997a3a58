// Every built-in design's fpga_part is a part of the bitstream library's table, so that
// quad_spi_flasher can check an image's IDCODE against it; every design with a quad_spi
// peripheral names its part but OpenNIC's, and each simulated flash shape named exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "bitstream/parts.hpp"
#include "designs/registry.hpp"
#include "sim/quad_spi_model.hpp"

TEST(DesignParts, EveryFpgaPartIsAKnownPart) {
    auto registry = designs::Registry::load({});
    ASSERT_TRUE(registry) << registry.error().message();
    std::vector<std::string> flash_without_part;
    for (const std::string& name : registry->names()) {
        const designs::Design& design = *registry->find(name);
        for (const designs::Peripheral& p : design.peripherals) {
            if (p.type == designs::PeripheralType::QuadSpi) {
                EXPECT_TRUE(p.flash.empty() || sim::flash_shape(p.flash)) << name << ": flash " << p.flash;
                if (design.fpga_part.empty())
                    flash_without_part.push_back(name);
            }
        }
        if (design.fpga_part.empty())
            continue;
        const bool known = std::any_of(bitstream::known_parts().begin(), bitstream::known_parts().end(),
                                       [&](const bitstream::Part& part) {
                                           std::string lower = part.name;
                                           for (char& c : lower)
                                               c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                                           return lower == design.fpga_part;
                                       });
        EXPECT_TRUE(known) << name << ": fpga_part " << design.fpga_part;
    }
    // The OpenNIC shell is built for several Alveo cards: its part is not one.
    EXPECT_EQ(flash_without_part, std::vector<std::string>{"open-nic"});
}
