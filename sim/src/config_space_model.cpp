#include "sim/config_topology.hpp"

#include <algorithm>
#include <cstring>

#include "pcie_tools/capabilities.hpp"

namespace sim {

namespace {
constexpr uint32_t kSpace = 4096;

uint32_t width_of(uint32_t lnkcap) { return (lnkcap & PCI_EXP_LNKCAP_MLW) >> 4; }
uint8_t max_speed_of(uint32_t lnkcap) { return static_cast<uint8_t>(lnkcap & PCI_EXP_LNKCAP_SLS); }
uint32_t speeds_of(uint32_t lnkcap, uint32_t lnkcap2) {
    const uint32_t vector = lnkcap2 & reg::EXP_LNKCAP2_SLS;
    return vector ? vector : lnkcap2_upto(max_speed_of(lnkcap));
}
}  // namespace

uint32_t lnkcap_value(uint8_t speed, uint8_t width, uint8_t port_number, uint32_t other) {
    return (other & 0x00fffc00u) | static_cast<uint32_t>(port_number) << 24 | (width & 0x3fu) << 4 | (speed & 0xfu);
}

uint16_t lnksta_value(uint8_t speed, uint8_t width, uint16_t flags) {
    return static_cast<uint16_t>((flags & 0xfc00u) | (width & 0x3fu) << 4 | (speed & 0xfu));
}

uint32_t lnkcap2_upto(uint8_t max_speed) {
    uint32_t vector = 0;
    for (uint8_t s = 1; s <= max_speed && s <= 7; ++s)
        vector |= 1u << s;
    return vector;
}

// ---- SimConfigSpace -------------------------------------------------------------------------

SimConfigSpace::SimConfigSpace(PciAddress address, std::vector<uint8_t> bytes, std::vector<uint8_t> writable,
                               std::vector<uint8_t> rw1c)
    : MemoryConfigSpace(address, std::move(bytes)), m_writable(std::move(writable)), m_rw1c(std::move(rw1c)) {}

Result<void> SimConfigSpace::write(uint32_t offset, const void* data, uint32_t length) {
    if (length == 0 || length > 4 || offset > m_bytes.size() || length > m_bytes.size() - offset)
        return access_error("write config", offset, length, EIO, "outside the simulated space");
    const auto* in = static_cast<const uint8_t*>(data);
    uint32_t value = 0;
    for (uint32_t i = 0; i < length; ++i) {
        const uint8_t b = in[i];
        value |= static_cast<uint32_t>(b) << (8 * i);
        uint8_t& cell = m_bytes[offset + i];
        cell = static_cast<uint8_t>((cell & ~m_writable[offset + i]) | (b & m_writable[offset + i]));
        cell = static_cast<uint8_t>(cell & ~(b & m_rw1c[offset + i]));
    }
    m_writes.push_back({offset, length, value});
    after_write(offset, length);
    return {};
}

void SimConfigSpace::poke16(uint32_t offset, uint16_t value) {
    m_bytes.at(offset) = static_cast<uint8_t>(value);
    m_bytes.at(offset + 1) = static_cast<uint8_t>(value >> 8);
}

uint16_t SimConfigSpace::peek16(uint32_t offset) const {
    return static_cast<uint16_t>(m_bytes.at(offset) | m_bytes.at(offset + 1) << 8);
}

uint32_t SimConfigSpace::peek32(uint32_t offset) const {
    return peek16(offset) | static_cast<uint32_t>(peek16(offset + 2)) << 16;
}

uint16_t SimConfigSpace::express_offset() const {
    MemoryConfigSpace copy(m_address, m_bytes);
    const auto caps = walk_capabilities(copy);
    const auto* exp = caps.find(PCI_CAP_ID_EXP);
    return exp ? exp->offset : 0;
}

// ---- SimDownstreamPort ----------------------------------------------------------------------

SimDownstreamPort::SimDownstreamPort(PciAddress address, std::vector<uint8_t> bytes, std::vector<uint8_t> writable,
                                     std::vector<uint8_t> rw1c, PortModel model)
    : SimConfigSpace(address, std::move(bytes), std::move(writable), std::move(rw1c)), m_model(model) {
    if (const uint16_t cap = express_offset())
        m_committed_lnkctl2 = peek16(cap + PCI_EXP_LNKCTL2);
}

Result<void> SimDownstreamPort::read(uint32_t offset, void* data, uint32_t length) {
    const uint16_t cap = express_offset();
    const uint32_t lnksta = cap + PCI_EXP_LNKSTA;
    if (cap && m_training_left != 0 && offset <= lnksta + 1 && offset + length > lnksta) {
        if (m_training_left > 0)
            --m_training_left;
        if (m_training_left == 0)
            finish_training();
    }
    return MemoryConfigSpace::read(offset, data, length);
}

void SimDownstreamPort::after_write(uint32_t offset, uint32_t length) {
    const uint16_t cap = express_offset();
    if (!cap)
        return;
    const uint32_t lnkctl2 = cap + PCI_EXP_LNKCTL2;
    if (offset <= lnkctl2 && offset + length > lnkctl2) {
        uint16_t requested = peek16(lnkctl2);
        uint8_t speed = requested & PCI_EXP_LNKCTL2_TLS;
        if (m_model.latch_max_speed && speed > m_model.latch_max_speed) {
            speed = m_model.latch_max_speed;
            requested = static_cast<uint16_t>((requested & ~PCI_EXP_LNKCTL2_TLS) | speed);
            poke16(lnkctl2, requested);
        }
        if (m_model.lnkctl2_read_only || (speed < 8 && (m_model.refused_speeds & (1u << speed))))
            poke16(lnkctl2, m_committed_lnkctl2);
        else
            m_committed_lnkctl2 = requested;
    }
    const uint32_t lnkctl = cap + PCI_EXP_LNKCTL;
    if (offset <= lnkctl && offset + length > lnkctl) {
        const ConfigWrite& w = writes().back();
        const uint8_t low = static_cast<uint8_t>(w.value >> (8 * (lnkctl - offset)));
        if ((low & PCI_EXP_LNKCTL_RL) && !m_model.ignore_retrain) {
            ++m_retrains;
            poke16(cap + PCI_EXP_LNKSTA, peek16(cap + PCI_EXP_LNKSTA) | PCI_EXP_LNKSTA_LT);
            m_training_left = m_model.training_reads < 0 ? -1 : m_model.training_reads;
            if (m_training_left == 0)
                finish_training();
        }
    }
}

void SimDownstreamPort::finish_training() {
    m_training_left = 0;
    const uint16_t cap = express_offset();
    const uint32_t lnkcap = peek32(cap + PCI_EXP_LNKCAP);
    uint32_t speeds = speeds_of(lnkcap, peek32(cap + PCI_EXP_LNKCAP2));
    uint32_t width = width_of(lnkcap);
    uint16_t partner_cap = m_partner ? m_partner->express_offset() : 0;
    if (partner_cap) {
        const uint32_t plnkcap = m_partner->peek32(partner_cap + PCI_EXP_LNKCAP);
        speeds &= speeds_of(plnkcap, m_partner->peek32(partner_cap + PCI_EXP_LNKCAP2));
        width = std::min(width, width_of(plnkcap));
    } else {
        speeds &= lnkcap2_upto(1);  // a partner without a PCIe capability: 2.5 GT/s x1
        width = 1;
    }
    uint8_t target = m_committed_lnkctl2 & PCI_EXP_LNKCTL2_TLS;
    if (target == 0)
        target = max_speed_of(lnkcap);
    uint8_t speed = 0;
    for (uint8_t s = 1; s <= target && s < 8; ++s)
        if (speeds & (1u << s))
            speed = s;
    const uint16_t old = peek16(cap + PCI_EXP_LNKSTA);
    if (speed == 0) {  // no common speed: the link stays down
        poke16(cap + PCI_EXP_LNKSTA, old & ~(PCI_EXP_LNKSTA_LT | PCI_EXP_LNKSTA_DLLLA));
        return;
    }
    const uint16_t flags = (old & PCI_EXP_LNKSTA_SLC) | PCI_EXP_LNKSTA_DLLLA | PCI_EXP_LNKSTA_LBMS |
                           (old & PCI_EXP_LNKSTA_LABS);
    poke16(cap + PCI_EXP_LNKSTA, lnksta_value(speed, static_cast<uint8_t>(width), flags));
    if (partner_cap) {
        const uint16_t pold = m_partner->peek16(partner_cap + PCI_EXP_LNKSTA);
        m_partner->poke16(partner_cap + PCI_EXP_LNKSTA, lnksta_value(speed, static_cast<uint8_t>(width), pold));
    }
}

// ---- ConfigBuilder --------------------------------------------------------------------------

ConfigBuilder::ConfigBuilder(uint16_t vendor, uint16_t device, uint32_t class_code, uint8_t header_type)
    : m_bytes(kSpace, 0), m_writable(kSpace, 0), m_rw1c(kSpace, 0) {
    set16(PCI_VENDOR_ID, vendor).set16(PCI_DEVICE_ID, device);
    set8(PCI_CLASS_PROG, static_cast<uint8_t>(class_code));
    set16(PCI_CLASS_DEVICE, static_cast<uint16_t>(class_code >> 8));
    set8(PCI_HEADER_TYPE, header_type);
    writable16(PCI_COMMAND, 0x0547);
    rw1c16(PCI_STATUS, reg::STATUS_RW1C);
}

ConfigBuilder& ConfigBuilder::set8(uint32_t offset, uint8_t value) {
    m_bytes.at(offset) = value;
    return *this;
}
ConfigBuilder& ConfigBuilder::set16(uint32_t offset, uint16_t value) {
    set8(offset, static_cast<uint8_t>(value));
    return set8(offset + 1, static_cast<uint8_t>(value >> 8));
}
ConfigBuilder& ConfigBuilder::set32(uint32_t offset, uint32_t value) {
    set16(offset, static_cast<uint16_t>(value));
    return set16(offset + 2, static_cast<uint16_t>(value >> 16));
}

ConfigBuilder& ConfigBuilder::bridge_buses(uint8_t primary, uint8_t secondary, uint8_t subordinate) {
    return set8(PCI_PRIMARY_BUS, primary).set8(PCI_SECONDARY_BUS, secondary).set8(PCI_SUBORDINATE_BUS, subordinate);
}

void ConfigBuilder::writable16(uint32_t offset, uint16_t mask) {
    m_writable.at(offset) = static_cast<uint8_t>(mask);
    m_writable.at(offset + 1) = static_cast<uint8_t>(mask >> 8);
}
void ConfigBuilder::rw1c16(uint32_t offset, uint16_t mask) {
    m_rw1c.at(offset) = static_cast<uint8_t>(mask);
    m_rw1c.at(offset + 1) = static_cast<uint8_t>(mask >> 8);
}

uint16_t ConfigBuilder::add_capability(uint8_t id, const std::vector<uint8_t>& body) {
    const uint16_t at = m_next_cap;
    set8(at, id).set8(at + 1, 0);
    for (size_t i = 0; i < body.size(); ++i)
        set8(static_cast<uint32_t>(at + 2 + i), body[i]);
    if (m_last_cap)
        set8(m_last_cap + 1u, static_cast<uint8_t>(at));
    else
        set8(PCI_CAPABILITY_LIST, static_cast<uint8_t>(at));
    set16(PCI_STATUS, m_bytes[PCI_STATUS] | PCI_STATUS_CAP_LIST);
    m_last_cap = at;
    m_next_cap = static_cast<uint16_t>((at + 2 + body.size() + 3) & ~3u);
    return at;
}

uint16_t ConfigBuilder::add_pm(uint16_t pmc, uint16_t pmcsr) {
    return add_capability(PCI_CAP_ID_PM, {static_cast<uint8_t>(pmc), static_cast<uint8_t>(pmc >> 8),
                                          static_cast<uint8_t>(pmcsr), static_cast<uint8_t>(pmcsr >> 8), 0, 0});
}

uint16_t ConfigBuilder::add_msi(uint16_t flags) {
    std::vector<uint8_t> body((flags & PCI_MSI_FLAGS_64BIT) ? 12 : 8, 0);
    if (flags & PCI_MSI_FLAGS_MASKBIT)
        body.resize(body.size() + 8, 0);
    body[0] = static_cast<uint8_t>(flags);
    body[1] = static_cast<uint8_t>(flags >> 8);
    return add_capability(PCI_CAP_ID_MSI, body);
}

uint16_t ConfigBuilder::add_msix(uint16_t flags, uint32_t table, uint32_t pba) {
    std::vector<uint8_t> body(10, 0);
    for (int i = 0; i < 2; ++i)
        body[i] = static_cast<uint8_t>(flags >> (8 * i));
    for (int i = 0; i < 4; ++i) {
        body[2 + i] = static_cast<uint8_t>(table >> (8 * i));
        body[6 + i] = static_cast<uint8_t>(pba >> (8 * i));
    }
    return add_capability(PCI_CAP_ID_MSIX, body);
}

uint16_t ConfigBuilder::add_express(const ExpressRegs& r) {
    const uint16_t at = add_capability(PCI_CAP_ID_EXP, std::vector<uint8_t>(reg::EXP_V2_SIZE - 2, 0));
    const uint16_t flags = static_cast<uint16_t>((r.version & 0xf) | static_cast<uint16_t>(r.type) << 4 |
                                                 (r.slot ? PCI_EXP_FLAGS_SLOT : 0));
    set16(at + PCI_EXP_FLAGS, flags);
    set32(at + PCI_EXP_DEVCAP, r.devcap).set16(at + PCI_EXP_DEVCTL, r.devctl).set16(at + PCI_EXP_DEVSTA, r.devsta);
    set32(at + PCI_EXP_LNKCAP, r.lnkcap).set16(at + PCI_EXP_LNKCTL, r.lnkctl).set16(at + PCI_EXP_LNKSTA, r.lnksta);
    set32(at + PCI_EXP_SLTCAP, r.sltcap);
    set32(at + PCI_EXP_DEVCAP2, r.devcap2).set16(at + PCI_EXP_DEVCTL2, r.devctl2);
    set32(at + PCI_EXP_LNKCAP2, r.lnkcap2).set16(at + PCI_EXP_LNKCTL2, r.lnkctl2).set16(at + PCI_EXP_LNKSTA2, r.lnksta2);
    writable16(at + PCI_EXP_DEVCTL, 0x7fff);
    rw1c16(at + PCI_EXP_DEVSTA, 0x000f);
    // Retrain Link is not a storage bit: it always reads 0 (the port model acts on the write).
    writable16(at + PCI_EXP_LNKCTL, 0x0fdb);
    rw1c16(at + PCI_EXP_LNKSTA, PCI_EXP_LNKSTA_LBMS | PCI_EXP_LNKSTA_LABS);
    writable16(at + PCI_EXP_DEVCTL2, 0xffff);
    writable16(at + PCI_EXP_LNKCTL2, 0xffff);
    return at;
}

uint16_t ConfigBuilder::add_extended(uint16_t id, uint8_t version, const std::vector<uint8_t>& body) {
    const uint16_t at = m_next_ext ? m_next_ext : static_cast<uint16_t>(PCI_CFG_SPACE_SIZE);
    set32(at, static_cast<uint32_t>(id) | static_cast<uint32_t>(version & 0xf) << 16);
    for (size_t i = 0; i < body.size(); ++i)
        set8(static_cast<uint32_t>(at + 4 + i), body[i]);
    if (m_last_ext)
        set32(m_last_ext, (m_bytes[m_last_ext] | m_bytes[m_last_ext + 1u] << 8 | (m_bytes[m_last_ext + 2u] & 0xfu) << 16) |
                              static_cast<uint32_t>(at) << 20);
    m_last_ext = at;
    m_next_ext = static_cast<uint16_t>((at + 4 + body.size() + 3) & ~3u);
    return at;
}

uint16_t ConfigBuilder::add_aer(uint32_t uncor_status, uint32_t uncor_mask, uint32_t uncor_sever,
                                uint32_t cor_status, uint32_t cor_mask, uint32_t cap_control) {
    std::vector<uint8_t> body(0x44 - 4, 0);
    const uint32_t values[] = {uncor_status, uncor_mask, uncor_sever, cor_status, cor_mask, cap_control};
    for (size_t r = 0; r < 6; ++r)
        for (int i = 0; i < 4; ++i)
            body[r * 4 + i] = static_cast<uint8_t>(values[r] >> (8 * i));
    return add_extended(PCI_EXT_CAP_ID_ERR, 2, body);
}

uint16_t ConfigBuilder::add_dsn(uint64_t serial) {
    std::vector<uint8_t> body(8);
    for (int i = 0; i < 8; ++i)
        body[i] = static_cast<uint8_t>(serial >> (8 * i));
    return add_extended(PCI_EXT_CAP_ID_DSN, 1, body);
}

std::unique_ptr<SimConfigSpace> ConfigBuilder::build(PciAddress address) const {
    return std::make_unique<SimConfigSpace>(address, m_bytes, m_writable, m_rw1c);
}

std::unique_ptr<SimDownstreamPort> ConfigBuilder::build_port(PciAddress address, PortModel model) const {
    return std::make_unique<SimDownstreamPort>(address, m_bytes, m_writable, m_rw1c, model);
}

// ---- ConfigTopology ---------------------------------------------------------------------------

SimConfigSpace* ConfigTopology::add(std::unique_ptr<SimConfigSpace> space, std::string vendor_name,
                                  std::string device_name) {
    const PciAddress address = space->address();
    SimConfigSpace* raw = space.get();
    m_spaces[address] = std::move(space);
    m_names[address] = {std::move(vendor_name), std::move(device_name)};
    return raw;
}

void ConfigTopology::connect(const PciAddress& port, const PciAddress& device) {
    auto* p = dynamic_cast<SimDownstreamPort*>(find(port));
    if (p)
        p->connect(find(device));
}

SimConfigSpace* ConfigTopology::find(const PciAddress& address) {
    const auto it = m_spaces.find(address);
    return it == m_spaces.end() ? nullptr : it->second.get();
}

Result<std::vector<PciAddress>> ConfigTopology::devices() {
    return pcie::addresses_of(m_spaces);
}

Result<ConfigSpace*> ConfigTopology::open(const PciAddress& address) {
    if (SimConfigSpace* space = find(address))
        return static_cast<ConfigSpace*>(space);
    return pdt::make_error("open config space", address.to_string(), ENODEV, "not in the simulated topology");
}

SystemInfo ConfigTopology::system_info(const PciAddress& address) {
    SystemInfo info;
    const auto it = m_names.find(address);
    if (it != m_names.end()) {
        info.vendor_name = it->second.first;
        info.device_name = it->second.second;
    }
    return info;
}

}  // namespace sim
