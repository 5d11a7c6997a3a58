// Config spaces read from an `lspci -xxxx` capture, the way pciutils' dump method (lspci -F)
// reads one: "BB:DD.F ..." or "DDDD:BB:DD.F ..." starts a device, "OFF: xx xx .." lines carry
// bytes, an empty line ends the device, every other line is ignored. Bytes inside the captured
// range that are missing read as 0xff; reads past the last captured byte fail. Read-only.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pcie_tools/config_space.hpp"

namespace pcie {

// A config space held in memory (up to 4096 bytes) with the range that was captured.
class MemoryConfigSpace : public ConfigSpace {
public:
    MemoryConfigSpace(PciAddress address, std::vector<uint8_t> bytes);
    const PciAddress& address() const override { return m_address; }
    uint32_t size() const override { return static_cast<uint32_t>(m_bytes.size()); }
    Result<void> read(uint32_t offset, void* data, uint32_t length) override;
    const std::vector<uint8_t>& bytes() const { return m_bytes; }

protected:
    PciAddress m_address;
    std::vector<uint8_t> m_bytes;
};

class DumpBackend : public ConfigBackend {
public:
    static Result<std::unique_ptr<DumpBackend>> load(const std::string& path);
    // `source` names the text in errors ("file:line").
    static Result<std::unique_ptr<DumpBackend>> parse(const std::string& text, const std::string& source);

    std::string name() const override { return "dump " + m_source; }
    Result<std::vector<PciAddress>> devices() override;
    Result<ConfigSpace*> open(const PciAddress& address) override;
    // Vendor and device names from pci.ids (a dump carries no OS information).
    SystemInfo system_info(const PciAddress& address) override;

private:
    std::string m_source;
    std::map<PciAddress, std::unique_ptr<MemoryConfigSpace>> m_spaces;
};

// `lspci -xxxx` text for one function (header line, 16 bytes a line, blank line after).
std::string format_lspci_dump(const PciAddress& address, const std::vector<uint8_t>& bytes,
                              const std::string& description = "Device");

// The name before F11, for branches written against it.
using DumpBus = DumpBackend;

}  // namespace pcie
