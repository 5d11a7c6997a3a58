// A copy endpoint together with what it copies through (bus and device, opened designs, a
// model): `inner` is released first (the destructor), so `owned` outlives the endpoint that uses it.
#pragma once

#include "streams/forwarding_endpoint.hpp"

namespace adapters {

template <typename Owned>
class OwningEndpoint final : public streams::ForwardingEndpoint {
public:
    OwningEndpoint() = default;
    explicit OwningEndpoint(Owned from) : owned(std::move(from)) {}
    ~OwningEndpoint() override { inner.reset(); }

    Owned owned;
};

}  // namespace adapters
