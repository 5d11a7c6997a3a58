#include "design_fields.hpp"

namespace designs::detail {

// A CMAC port (PG203): its port number, the operation and RS-FEC it was built with, whether the
// design connects its GT loopback control, and the DRP window the design maps for it.
pdt::Result<void> parse_cmac(const Fields& f, Peripheral& p) {
    p.cmac_port = static_cast<unsigned>(PDT_TRY(f.number("port", 15)));
    const std::string operation = PDT_TRY(f.text("operation", false));
    bool known = operation.empty();
    for (CmacOperation candidate : {CmacOperation::Duplex, CmacOperation::SimplexTx, CmacOperation::SimplexRx})
        if (operation == to_string(candidate)) {
            p.cmac_operation = candidate;
            known = true;
        }
    if (!known)
        return f.error("operation", "expected \"duplex\", \"simplex_tx\" or \"simplex_rx\" (got \"" + operation + "\")");
    if (f.has("rs_fec"))
        p.cmac_rs_fec = PDT_TRY(f.boolean("rs_fec"));
    if (f.has("gt_loopback"))
        p.cmac_gt_loopback = PDT_TRY(f.boolean("gt_loopback"));
    if (f.has("drp_offset")) {
        p.cmac_drp_offset = PDT_TRY(f.number("drp_offset", UINT64_MAX - kCmacDrpFrameSize));
        if (*p.cmac_drp_offset % 4 != 0)
            return f.error("drp_offset", "must be a multiple of 4 (32-bit registers)");
    }
    if (f.has("drp_min_revision")) {
        if (!p.cmac_drp_offset)
            return f.error("drp_min_revision", "a DRP revision needs a drp_offset");
        p.cmac_drp_min_revision = static_cast<uint8_t>(PDT_TRY(f.number("drp_min_revision", 0xff)));
    }
    return {};
}

}  // namespace designs::detail
