// What display_sensor_values and display_temperature_values print, in fpga_sio's habits
// (a "Displaying <block> values for design ..." heading, then a table of measurement, min and
// max per sensor), and their JSON.
#pragma once

#include <string>
#include <vector>

#include "streams/sensor_block.hpp"

namespace sensors {

// Where a design sits, for the headings: "design TEF1001_dma_ddr3 in PCI device 0000:15:00.0 IOMMU group 41".
struct DesignPlace {
    std::string design;  // the design's name (JSON)
    std::string address;
    int iommu_group = -1;
    std::string display_name;  // the design's name in text lines (fpga_sio's); empty: design
    const std::string& text_name() const { return display_name.empty() ? design : display_name; }
};

// "Displaying XADC values for design ... IOMMU group 41:" then the table (a reading with no
// value says "unreadable" and why), the alarms and the status lines, then an empty line.
std::string format_sample_text(const DesignPlace& place, const streams::SensorBlock& block,
                               const streams::SensorSample& sample);
// {"design":..,"pci_address":..,"block":"XADC","location":..,"readings":[{"name":..,"unit":"celsius",
//  "value":41.2,"min":..,"max":..,"alarm":false}|{..,"value":null,"unreadable":".."}],"alarms":[..],"status":[..]}
std::string format_sample_json(const DesignPlace& place, const streams::SensorBlock& block,
                               const streams::SensorSample& sample);

// One design's temperatures in a sample, for display_temperature_values' line:
// "XADC Temperature 41.2 C, SYSMON SLR1 temperature 43.0 C"; "no readable temperature" when none.
std::string temperatures_text(const std::vector<std::pair<std::string, streams::SensorSample>>& blocks);
// '[{"block":"XADC","sensor":"Temperature","celsius":41.2},...]'
std::string temperatures_json(const std::vector<std::pair<std::string, streams::SensorSample>>& blocks);

}  // namespace sensors
