#include "design_fields.hpp"

namespace designs::detail {

// How the simulated MIG behind a DDR reset GPIO follows the reset: "simulated_mig":
// {"locked_after_us": n, "calibrated_after_ms": n, "calibrates": false, "follows_reset": false},
// each optional (the last two: test-only lies).
pdt::Result<void> parse_simulated_mig(const Fields& peripheral, Peripheral& p) {
    const Fields f = PDT_TRY(peripheral.object("simulated_mig"));
    PDT_CHECK(f.only({"locked_after_us", "calibrated_after_ms", "calibrates", "follows_reset"}));
    MigSimulation& mig = p.simulated_mig;
    mig.locked_after_us = PDT_TRY(f.number_or("locked_after_us", 10'000'000, mig.locked_after_us));
    mig.calibrated_after_ms = PDT_TRY(f.number_or("calibrated_after_ms", 60'000, mig.calibrated_after_ms));
    if (f.has("calibrates"))
        mig.calibrates = PDT_TRY(f.boolean("calibrates"));
    if (f.has("follows_reset"))
        mig.follows_reset = PDT_TRY(f.boolean("follows_reset"));
    return {};
}

}  // namespace designs::detail
