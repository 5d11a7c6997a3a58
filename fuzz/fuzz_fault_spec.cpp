// The test-only fault seam's parser (PDT_SIM_FAULT: one-shot XDMA faults and the model's lies,
// sim/xdma_model.hpp and streams/lie.hpp). Properties: an error is EINVAL naming the
// variable; a lie that parses prints as a spelling that parses back to the same lie.
#include <cerrno>

#include "fuzz_support.hpp"
#include "sim/xdma_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text = pdt_fuzz::text(data, size);
    const auto plan = sim::parse_fault_plan(text);
    if (!plan) {
        PDT_FUZZ_CHECK(plan.error().code == EINVAL);
        PDT_FUZZ_CHECK(plan.error().message().find(sim::kFaultEnvironmentVariable) != std::string::npos);
        return 0;
    }
    for (const sim::FaultInjection& f : plan->injections)
        PDT_FUZZ_CHECK(f.channel <= 3);
    if (plan->lie) {
        const auto again = streams::parse_lie("again", streams::to_string(plan->lie));
        PDT_FUZZ_CHECK(again.ok());
        PDT_FUZZ_CHECK(again->kind == plan->lie.kind && again->stale_after == plan->lie.stale_after);
    }
    return 0;
}
