// libpci (pciutils), wrapped once for the tree (pci_library.hpp).
extern "C" {
#include <pci/pci.h>
}

#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "vfio_access/pci_library.hpp"

namespace vfio {
namespace {

// libpci reports fatal errors through a callback that must not return: jump back to the
// guarded call that reached libpci. Outside one, there is nowhere to return to: abort.
thread_local std::jmp_buf* t_jump = nullptr;
thread_local char t_message[256];

// noreturn as libpci declares the callback (clang makes it part of the function type).
__attribute__((noreturn)) void on_fatal(char* format, ...) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(t_message, sizeof t_message, format, args);
    va_end(args);
    if (t_jump != nullptr)
        std::longjmp(*t_jump, 1);
    std::fprintf(stderr, "libpci: %s\n", t_message);
    std::abort();
}

void quiet(char*, ...) {}

// Runs `call` (libpci calls only: no local with a destructor may be skipped by the jump) and
// returns its result, or false when libpci reported a fatal error (message in t_message).
template <typename Call>
bool guarded(Call&& call) {
    std::jmp_buf jump;
    std::jmp_buf* const outer = t_jump;
    t_jump = &jump;
    if (setjmp(jump) != 0) {
        t_jump = outer;
        return false;
    }
    const bool ok = call();
    t_jump = outer;
    return ok;
}

PciAddress address_of(const pci_dev* dev) {
    return PciAddress{static_cast<uint16_t>(dev->domain), dev->bus, dev->dev, dev->func};
}

}  // namespace

struct PciLibrary::State {
    pci_access* access = nullptr;
    std::map<PciAddress, pci_dev*> devices;
    ~State() {
        if (access != nullptr)
            guarded([this] {
                pci_cleanup(access);
                return true;
            });
    }
    pci_dev* find(const PciAddress& address) const {
        const auto it = devices.find(address);
        return it == devices.end() ? nullptr : it->second;
    }
};

PciLibrary::PciLibrary(std::unique_ptr<State> state) : m_state(std::move(state)) {}
PciLibrary::~PciLibrary() = default;

pdt::Result<std::unique_ptr<PciLibrary>> PciLibrary::open(const PciLibraryOptions& options) {
    auto state = std::make_unique<State>();
    state->access = pci_alloc();
    if (state->access == nullptr)
        return pdt::make_error("pci_alloc", "libpci", ENOMEM);
    pci_access* const access = state->access;
    access->error = on_fatal;
    access->warning = quiet;
    access->debug = quiet;
    access->writeable = options.writable ? 1 : 0;
    char dump_name[] = "dump.name";
    if (!options.dump_file.empty()) {
        access->method = PCI_ACCESS_DUMP;
        pci_set_param(access, dump_name, const_cast<char*>(options.dump_file.c_str()));
    } else if (options.sysfs_only) {
        access->method = PCI_ACCESS_SYS_BUS_PCI;
    }
    const bool scanned = guarded([access] {
        pci_init(access);
        pci_scan_bus(access);
        return true;
    });
    if (!scanned)
        return pdt::make_error("scan PCI bus", options.dump_file.empty() ? "libpci" : options.dump_file, EIO,
                          std::string("libpci: ") + t_message);
    for (pci_dev* dev = access->devices; dev != nullptr; dev = dev->next)
        state->devices[address_of(dev)] = dev;
    return std::unique_ptr<PciLibrary>(new PciLibrary(std::move(state)));
}

std::vector<PciAddress> PciLibrary::functions() const {
    std::vector<PciAddress> list;
    for (const auto& [address, dev] : m_state->devices)
        list.push_back(address);
    return list;
}

bool PciLibrary::has(const PciAddress& address) const { return m_state->find(address) != nullptr; }

pdt::Result<PciFunctionInfo> PciLibrary::info(const PciAddress& address) {
    pci_dev* const dev = m_state->find(address);
    if (dev == nullptr)
        return pdt::make_error("read identity of", address.to_string(), ENODEV, "no such PCI function (lspci -D)");
    PciFunctionInfo out;
    out.address = address;
    unsigned known = 0;
    uint8_t revision = 0, prog_if = 0;
    const char* group = nullptr;
    const bool filled = guarded([&] {
        known = static_cast<unsigned>(pci_fill_info(
            dev, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS | PCI_FILL_IOMMU_GROUP));
        revision = (known & PCI_FILL_CLASS_EXT) ? dev->rev_id : pci_read_byte(dev, PCI_REVISION_ID);
        prog_if = (known & PCI_FILL_CLASS_EXT) ? dev->prog_if : pci_read_byte(dev, PCI_CLASS_PROG);
        group = (known & PCI_FILL_IOMMU_GROUP) ? pci_get_string_property(dev, PCI_FILL_IOMMU_GROUP) : nullptr;
        return true;
    });
    if (!filled)
        return pdt::make_error("read identity of", address.to_string(), EIO, std::string("libpci: ") + t_message);
    out.vendor_id = dev->vendor_id;
    out.device_id = dev->device_id;
    out.subsystem_vendor_id = (known & PCI_FILL_SUBSYS) ? dev->subsys_vendor_id : 0xffff;
    out.subsystem_device_id = (known & PCI_FILL_SUBSYS) ? dev->subsys_id : 0xffff;
    out.revision = revision;
    out.class_code = (static_cast<uint32_t>(dev->device_class) << 8) | prog_if;
    if (group != nullptr && *group != '\0')
        out.iommu_group = std::atoi(group);
    return out;
}

bool PciLibrary::read(const PciAddress& address, uint32_t offset, void* data, uint32_t length) {
    pci_dev* const dev = m_state->find(address);
    return dev != nullptr && guarded([&] {
               return pci_read_block(dev, static_cast<int>(offset), static_cast<u8*>(data),
                                     static_cast<int>(length)) != 0;
           });
}

bool PciLibrary::write(const PciAddress& address, uint32_t offset, const void* data, uint32_t length) {
    pci_dev* const dev = m_state->find(address);
    // pci_write_block takes a non-const buffer; it does not write to it.
    u8* const bytes = static_cast<u8*>(const_cast<void*>(data));
    return dev != nullptr && guarded([&] {
               return pci_write_block(dev, static_cast<int>(offset), bytes, static_cast<int>(length)) != 0;
           });
}

namespace {

// The handle behind pci_id_names: pci_alloc() only (pci_init() would open a bus); the name list
// loads on the first lookup.
struct NameDatabase {
    std::mutex mutex;
    pci_access* access = nullptr;
    NameDatabase() {
        access = pci_alloc();
        if (access != nullptr) {
            access->error = on_fatal;
            access->warning = quiet;
            access->debug = quiet;
        }
    }
    ~NameDatabase() {
        if (access != nullptr)
            guarded([this] {
                pci_cleanup(access);
                return true;
            });
    }
    // pci_lookup_name's text for `flags` and its numeric arguments; empty when unknown or on a
    // fatal libpci error.
    template <typename... Ids>
    std::string name(int flags, Ids... ids) {
        if (access == nullptr)
            return {};
        std::lock_guard lock(mutex);
        char buffer[256];
        const char* found = nullptr;
        guarded([&] {
            found = pci_lookup_name(access, buffer, sizeof buffer, flags, static_cast<int>(ids)...);
            return true;
        });
        return found != nullptr ? found : "";
    }
};

NameDatabase& name_database() {
    static NameDatabase database;
    return database;
}

}  // namespace

PciIdNames pci_id_names(uint16_t vendor_id, uint16_t device_id, uint32_t class_code, uint16_t subsystem_vendor_id,
                        uint16_t subsystem_device_id) {
    NameDatabase& db = name_database();
    const unsigned base_sub = class_code >> 8, prog_if = class_code & 0xffu;
    PciIdNames n;
    n.class_name = db.name(PCI_LOOKUP_CLASS, base_sub);
    n.vendor_device = db.name(PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE, vendor_id, device_id);
    n.prog_if = db.name(PCI_LOOKUP_PROGIF | PCI_LOOKUP_NO_NUMBERS, base_sub, prog_if);
    n.vendor = db.name(PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS, vendor_id);
    n.device = db.name(PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS, vendor_id, device_id);
    n.subsystem = db.name(PCI_LOOKUP_SUBSYSTEM | PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE, vendor_id, device_id,
                          subsystem_vendor_id, subsystem_device_id);
    return n;
}

}  // namespace vfio
