#include "bar_memory_region.hpp"

#include "base/format.hpp"

namespace bar_memory_region {

pdt::Result<vfio::Bar*> check(const tool_support::DeviceTarget& t, const vfio::BarRegion& r,
                              const std::vector<unsigned>& widths) {
    vfio::Bar* bar = PDT_TRY(vfio::check_bar_region(*t.device, r, tool_support::bar_widths(t, r.bar, widths)));
    const std::string object = "BAR " + std::to_string(r.bar) + " offset " + pdt::hex(r.offset) + " size " + pdt::hex(r.size);
    if (tool_support::is_dma_bar(t, r.bar))
        return pdt::make_error("check BAR region", object, EPERM,
                               "BAR " + std::to_string(r.bar) + " holds the XDMA registers, not memory: this tool writes");
    for (const designs::Design* d : t.designs)
        for (const designs::Peripheral& p : d->peripherals)
            if (p.bar == r.bar && p.offset < r.offset + r.size && r.offset < p.offset + p.frame_size())
                return pdt::make_error("check BAR region", object, EPERM,
                                       std::string("overlaps the ") + designs::display_name(p.type) + " registers at " +
                                           pdt::hex(p.offset) + " of design " + d->name + ": this tool writes");
    return bar;
}

}  // namespace bar_memory_region
