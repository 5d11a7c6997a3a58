#include "sensors/open_sensors.hpp"

#include "base/format.hpp"
#include "sensors/cms.hpp"
#include "sensors/sysmon.hpp"
#include "sensors/xadc.hpp"

namespace sensors {

std::string block_location(unsigned bar, uint64_t offset) {
    return "bar " + std::to_string(bar) + " offset " + pdt::hex(offset);
}

pdt::Result<std::vector<std::unique_ptr<streams::SensorBlock>>> open_sensor_blocks(vfio::Device& device,
                                                                                   const designs::Design& design,
                                                                                   uint8_t revision) {
    using designs::PeripheralType;
    std::vector<std::unique_ptr<streams::SensorBlock>> blocks;
    for (const designs::Peripheral* p : design.peripherals_for_revision(revision)) {
        if (p->type != PeripheralType::Xadc && p->type != PeripheralType::Sysmon && p->type != PeripheralType::Cms)
            continue;
        vfio::Bar* bar = PDT_TRY(device.bar(p->bar));
        vfio::RegisterWindow window = PDT_TRY(bar->window(p->offset, p->frame_size()));
        std::string location = block_location(p->bar, p->offset);
        if (p->type == PeripheralType::Xadc)
            blocks.push_back(make_xadc(std::move(window), std::move(location)));
        else if (p->type == PeripheralType::Sysmon)
            blocks.push_back(make_sysmon(std::move(window), p->sysmon_slaves, p->sysmon_primitive, std::move(location)));
        else
            blocks.push_back(make_cms(std::move(window), std::move(location)));
    }
    return blocks;
}

}  // namespace sensors
