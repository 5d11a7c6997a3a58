#include "user_design/bar_register.hpp"

#include "base/format.hpp"
#include "vfio_access/bar_access.hpp"

namespace user_design {
namespace {

pdt::Result<vfio::Bar*> checked_register(vfio::Device& device, const RegisterAccess& access,
                                         const std::vector<unsigned>& widths) {
    if (access.bits != 8 && access.bits != 16 && access.bits != 32 && access.bits != 64)
        return pdt::usage_error("access register", "BAR " + std::to_string(access.bar) + " offset " + pdt::hex(access.offset),
                                "a width of " + std::to_string(access.bits) + " bits: expected 8, 16, 32 or 64");
    return vfio::check_bar_access(device, vfio::BarAccess{access.bar, access.offset, access.bits / 8}, widths);
}

}  // namespace

pdt::Result<uint64_t> read_register(vfio::Device& device, const RegisterAccess& access,
                                    const std::vector<unsigned>& widths) {
    vfio::Bar* bar = PDT_TRY(checked_register(device, access, widths));
    return bar->read(access.offset, access.bits / 8);
}

pdt::Result<RegisterWrite> write_register(vfio::Device& device, const RegisterAccess& access, uint64_t value,
                                          const std::vector<unsigned>& widths) {
    if (access.bits < 64 && (value >> access.bits) != 0)
        return pdt::usage_error("write register", "BAR " + std::to_string(access.bar) + " offset " + pdt::hex(access.offset),
                                "the value " + pdt::hex(value) + " does not fit " + std::to_string(access.bits) + " bits");
    vfio::Bar* bar = PDT_TRY(checked_register(device, access, widths));
    RegisterWrite result;
    result.written = value;
    result.before = PDT_TRY(bar->read(access.offset, access.bits / 8));
    PDT_CHECK(bar->write(access.offset, access.bits / 8, value));
    result.after = PDT_TRY(bar->read(access.offset, access.bits / 8));
    return result;
}

}  // namespace user_design
