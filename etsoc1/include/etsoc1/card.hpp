// The ET-SoC-1 adapter's own narrow view of a card (namespace etsoc1): what the stream tests and
// the link measurement need of Esperanto's runtime, in our words and with no vendor type. The
// runtime binding (runtime/, built only with libetrt under /opt/et) and the fake card (fake/)
// implement it; the adapter logic (transfers.hpp, channels.hpp, endpoint.hpp) is written once
// against it.
//
// The runtime's rules the interface keeps (shared/reference/et_soc1.md): a copy is one DMA-list
// command of at most max_nodes nodes of at most max_node_bytes each; its barrier flag says
// whether it waits for every earlier command of its hardware submission queue; waits take whole
// seconds; errors the card reports do not fail the copy's wait but are drained per stream.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace etsoc1 {

using StreamId = int;
using EventId = uint64_t;
using CardAddress = uint64_t;  // a device physical address: the host cannot dereference it

struct DmaLimits {
    uint64_t max_node_bytes = 128ull << 20;  // one node (DMA element) of a command
    unsigned max_nodes = 8;                  // nodes in one DMA-list command
    unsigned read_channels = 4;              // card reads host memory: host-to-card copies
    unsigned write_channels = 4;             // card writes host memory: card-to-host copies
    uint64_t max_copy_bytes() const { return max_node_bytes * max_nodes; }
};

struct DeviceInfo {
    std::string name;         // "ET-SoC-1 0", "ET-SoC-1 fake 0"
    std::string pci_address;  // "0000:41:00.0"; empty when unknown (the daemon mode, the fake)
    std::string link_speed;   // sysfs current_link_speed: "16.0 GT/s PCIe"; empty when unknown
    std::string link_width;   // sysfs current_link_width: "8"; empty when unknown
    uint64_t memory_bytes = 0;
    unsigned frequency_mhz = 0;
};

// One node of a command: `bytes` between host memory and a card address.
struct Node {
    uint8_t* host = nullptr;  // host-to-card: read; card-to-host: written
    CardAddress card = 0;
    uint64_t bytes = 0;
};

// An error the card reported on a stream (the runtime's StreamError, in words).
struct CardError {
    std::string code;  // "DmaInvalidAddress", "DmaErrorAborted", ...
    std::string text;  // the runtime's description
};

class Card {
public:
    virtual ~Card() = default;

    virtual int device_count() const = 0;
    virtual pdt::Result<DeviceInfo> info(int device) const = 0;
    virtual pdt::Result<DmaLimits> limits(int device) const = 0;

    virtual pdt::Result<CardAddress> allocate(int device, uint64_t bytes, uint32_t alignment) = 0;
    virtual pdt::Result<void> free(int device, CardAddress address) = 0;

    virtual pdt::Result<StreamId> create_stream(int device) = 0;
    virtual pdt::Result<void> destroy_stream(StreamId stream) = 0;

    // One DMA-list command (1..max_nodes nodes); returns at once. The barrier flag is always
    // given: the runtime's defaults differ by direction (host-to-card false, card-to-host true).
    virtual pdt::Result<EventId> copy_to_card(StreamId stream, std::span<const Node> nodes, bool barrier) = 0;
    virtual pdt::Result<EventId> copy_from_card(StreamId stream, std::span<const Node> nodes, bool barrier) = 0;

    // True when done, false when the timeout (whole seconds; 0 polls) passed first.
    virtual pdt::Result<bool> wait_event(EventId event, std::chrono::seconds timeout) = 0;
    virtual pdt::Result<bool> wait_stream(StreamId stream, std::chrono::seconds timeout) = 0;
    // Errors the card reported on the stream since the last drain (call after every wait).
    virtual pdt::Result<std::vector<CardError>> drain_errors(StreamId stream) = 0;
    // Abandons the stream's commands (the runtime's abortStream) and waits up to `timeout` (whole
    // seconds; 0 looks once) for the abort to complete: ETIMEDOUT when it did not, and then the
    // commands may still move data. The stream stays usable.
    virtual pdt::Result<void> abort_stream(StreamId stream, std::chrono::seconds timeout) = 0;

    // Optional: an empty kernel (enters, returns 0) launched on the stream.
    virtual bool can_launch() const { return false; }
    virtual pdt::Result<EventId> launch_empty(StreamId stream, bool barrier) {
        (void)stream, (void)barrier;
        return pdt::make_error("launch an empty kernel", "ET-SoC-1", ENOTSUP, "this card binding runs no kernels");
    }
};

// Whole seconds for a card wait: rounded up, at least one unless the timeout is zero.
inline std::chrono::seconds whole_seconds(std::chrono::milliseconds timeout) {
    if (timeout.count() <= 0)
        return std::chrono::seconds(0);
    return std::chrono::seconds((timeout.count() + 999) / 1000);
}

}  // namespace etsoc1
