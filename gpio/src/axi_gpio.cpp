#include "gpio/axi_gpio.hpp"

#include "base/format.hpp"

namespace gpio {

uint32_t AxiGpio::read_data(Channel channel) const {
    return m_regs.read32(channel == Channel::Gpio ? pg144::GPIO_DATA : pg144::GPIO2_DATA);
}

void AxiGpio::write_data(Channel channel, uint32_t value) const {
    m_regs.write32(channel == Channel::Gpio ? pg144::GPIO_DATA : pg144::GPIO2_DATA, value);
}

pdt::Result<std::optional<AxiGpio>> open_design_gpio(vfio::Device& device, const designs::Design& design,
                                                     uint8_t revision, designs::PeripheralType type) {
    for (const designs::Peripheral* p : design.peripherals_for_revision(revision)) {
        if (p->type != type)
            continue;
        vfio::Bar* bar = PDT_TRY(device.bar(p->bar));
        vfio::RegisterWindow window = PDT_TRY(bar->window(p->offset, p->frame_size()));
        return std::optional<AxiGpio>(AxiGpio(std::move(window), "bar " + std::to_string(p->bar) + " offset " +
                                                                     pdt::hex(p->offset)));
    }
    return std::optional<AxiGpio>();
}

}  // namespace gpio
