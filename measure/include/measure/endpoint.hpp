// The copy-endpoint seam (streams/copy_endpoint.hpp) under the names the measurement library
// has always used for it: measure is written against the seam, not against any adapter.
#pragma once

#include "streams/copy_endpoint.hpp"

namespace measure {

using streams::CopyEndpoint;
using streams::Direction;  // H2C: host to card; C2H: card to host
using streams::EndpointInfo;
using streams::HostBuffer;
using streams::HostMemory;
using streams::Ticket;

}  // namespace measure
