#include "flash/open_flash.hpp"

#include "base/format.hpp"

namespace flash {

const designs::Peripheral* quad_spi_peripheral(const designs::Design& design, uint8_t revision) {
    for (const designs::Peripheral* p : design.peripherals_for_revision(revision))
        if (p->type == designs::PeripheralType::QuadSpi)
            return p;
    return nullptr;
}

pdt::Result<SpiNor> open_flash(vfio::Device& device, const designs::Design& design, uint8_t revision,
                               FlashTimeouts timeouts) {
    const designs::Peripheral* p = quad_spi_peripheral(design, revision);
    if (!p)
        return pdt::make_error("open flash", design.name, ENOENT, "the design lists no quad_spi peripheral");
    vfio::Bar* bar = PDT_TRY(device.bar(p->bar));
    vfio::RegisterWindow window = PDT_TRY(bar->window(p->offset, pg153::kFrameSize));
    const std::string location = "bar " + std::to_string(p->bar) + " offset " + pdt::hex(p->offset);
    AxiQuadSpi spi = PDT_TRY(AxiQuadSpi::open(std::move(window), p->quad_spi_mode ? SpiMode::Quad : SpiMode::Standard,
                                              location));
    return SpiNor::open(std::move(spi), timeouts);
}

}  // namespace flash
