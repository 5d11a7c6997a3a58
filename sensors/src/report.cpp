#include "sensors/report.hpp"

#include "base/format.hpp"
#include "base/json_text.hpp"

namespace sensors {
namespace {

// Supplies to the millivolt, temperatures, currents and power to a hundredth.
std::string figure(double value, streams::SensorUnit unit) {
    const int places = unit == streams::SensorUnit::Volts ? 4 : 2;
    return pdt::format("%9.*f %s", places, value, streams::unit_symbol(unit));
}

// A column of a reading's figure, blank where it has none.
std::string column(const std::optional<double>& value, streams::SensorUnit unit) {
    return "   " + (value ? figure(*value, unit) : std::string(11, ' '));
}

bool has_averages(const streams::SensorSample& sample) {
    for (const streams::SensorReading& reading : sample.readings)
        if (reading.average)
            return true;
    return false;
}

std::string json_number(const std::optional<double>& value) {
    return value ? pdt::format("%.4f", *value) : "null";
}

}  // namespace

std::string format_sample_text(const DesignPlace& place, const streams::SensorBlock& block,
                               const streams::SensorSample& sample) {
    std::string text = pdt::format("Displaying %s values for design %s in PCI device %s IOMMU group %d:\n",
                                   block.kind().c_str(), place.text_name().c_str(), place.address.c_str(), place.iommu_group);
    // The block's averages (a CMS's AVG) in a column of their own after the others.
    const bool averages = has_averages(sample);
    text += averages ? pdt::format("  %-22s %-13s %-13s %-13s %s\n", "Sensor", "Measurement", "Min", "Max", "Average")
                     : pdt::format("  %-22s %-13s %-13s %s\n", "Sensor", "Measurement", "Min", "Max");
    for (const streams::SensorReading& reading : sample.readings) {
        if (!reading.value) {
            text += pdt::format("  %-22s unreadable: %s\n", reading.name.c_str(), reading.unreadable.c_str());
            continue;
        }
        std::string line = pdt::format("  %-22s %s", reading.name.c_str(), figure(*reading.value, reading.unit).c_str());
        line += column(reading.min, reading.unit) + column(reading.max, reading.unit);
        if (averages)
            line += column(reading.average, reading.unit);
        if (reading.alarm)
            line += "   ALARM";
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        text += line + "\n";
    }
    std::string alarms;
    for (const std::string& alarm : sample.alarms)
        alarms += (alarms.empty() ? "" : ", ") + alarm;
    text += "  Alarms: " + (alarms.empty() ? std::string("none") : alarms) + "\n";
    for (const std::string& status : sample.status)
        text += "  " + status + "\n";
    return text + "\n";
}

std::string format_sample_json(const DesignPlace& place, const streams::SensorBlock& block,
                               const streams::SensorSample& sample) {
    std::string readings;
    for (const streams::SensorReading& r : sample.readings) {
        readings += readings.empty() ? "" : ",";
        readings += "{\"name\":" + pdt::json_quote(r.name) + ",\"unit\":" + pdt::json_quote(streams::unit_name(r.unit)) +
                    ",\"value\":" + json_number(r.value) + ",\"min\":" + json_number(r.min) +
                    ",\"max\":" + json_number(r.max) + ",\"alarm\":" + (r.alarm ? "true" : "false");
        if (r.average)
            readings += ",\"average\":" + json_number(r.average);
        if (!r.value)
            readings += ",\"unreadable\":" + pdt::json_quote(r.unreadable);
        readings += "}";
    }
    return "{\"design\":" + pdt::json_quote(place.design) + ",\"pci_address\":" + pdt::json_quote(place.address) +
           ",\"iommu_group\":" + std::to_string(place.iommu_group) + ",\"block\":" + pdt::json_quote(block.kind()) +
           ",\"location\":" + pdt::json_quote(block.location()) + ",\"readings\":[" + readings +
           "],\"alarms\":" + pdt::json_list(sample.alarms) + ",\"status\":" + pdt::json_list(sample.status) + "}";
}

std::string temperatures_text(const std::vector<std::pair<std::string, streams::SensorSample>>& blocks) {
    std::string text;
    for (const auto& [kind, sample] : blocks)
        for (const streams::SensorReading& r : sample.readings)
            if (r.unit == streams::SensorUnit::Celsius && r.value)
                text += (text.empty() ? "" : ", ") + pdt::format("%s %s %.1f C", kind.c_str(), r.name.c_str(), *r.value);
    return text.empty() ? "no readable temperature" : text;
}

std::string temperatures_json(const std::vector<std::pair<std::string, streams::SensorSample>>& blocks) {
    std::string json;
    for (const auto& [kind, sample] : blocks)
        for (const streams::SensorReading& r : sample.readings)
            if (r.unit == streams::SensorUnit::Celsius && r.value)
                json += (json.empty() ? "" : ",") + ("{\"block\":" + pdt::json_quote(kind) + ",\"sensor\":" +
                                                     pdt::json_quote(r.name) + pdt::format(",\"celsius\":%.2f}", *r.value));
    return "[" + json + "]";
}

}  // namespace sensors
