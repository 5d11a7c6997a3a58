#include "ethernet/open_cmac.hpp"

#include "base/format.hpp"

namespace ethernet {

CmacBuild cmac_build(const designs::Peripheral& peripheral) {
    CmacBuild build;
    build.port = peripheral.cmac_port;
    build.tx = peripheral.cmac_operation != designs::CmacOperation::SimplexRx;
    build.rx = peripheral.cmac_operation != designs::CmacOperation::SimplexTx;
    build.rs_fec = peripheral.cmac_rs_fec;
    build.gt_loopback = peripheral.cmac_gt_loopback;
    return build;
}

pdt::Result<std::vector<Cmac>> open_cmac_ports(vfio::Device& device, const designs::Design& design, uint8_t revision) {
    std::vector<Cmac> ports;
    for (const designs::Peripheral* p : design.peripherals_for_revision(revision)) {
        if (p->type != designs::PeripheralType::Cmac)
            continue;
        vfio::Bar* bar = PDT_TRY(device.bar(p->bar));
        vfio::RegisterWindow window = PDT_TRY(bar->window(p->offset, p->frame_size()));
        ports.emplace_back(std::move(window), cmac_build(*p),
                           "bar " + std::to_string(p->bar) + " offset " + pdt::hex(p->offset));
    }
    return ports;
}

}  // namespace ethernet
