// The VFIO manager's wire protocol: one message per SOCK_SEQPACKET packet, every field
// encoded explicitly little-endian (no native structs), so that a client and a manager from
// different builds either agree or say why not.
//
//   header (16 bytes): magic u32 "PDTM" | version u16 | type u16 | payload length u32 | sequence u32
//   payload: the fields of the type, in the order of the structs below; a string is
//            u16 length + bytes (at most k_max_string); a bool is one byte 0 or 1.
// decode() checks the magic, the version, the type, that the payload length matches the
// packet and the type's fields exactly, and every field's range; any failure is an EPROTO
// Error naming the field. A reply to OpenDevice carries the device and container fds as
// SCM_RIGHTS ancillary data (device first), only when error.code == 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/pci_address.hpp"

namespace vfio_manager {

inline constexpr uint32_t k_magic = 0x4D544450;  // "PDTM" as little-endian bytes
inline constexpr uint16_t k_version = 1;
inline constexpr size_t k_header_size = 16;
inline constexpr size_t k_max_message = 4096;
inline constexpr size_t k_max_string = 1024;

enum class MessageType : uint16_t {
    OpenDevice = 1,
    OpenDeviceReply = 2,
    AllocateIova = 3,
    AllocateIovaReply = 4,
    FreeIova = 5,
    FreeIovaReply = 6,
    Status = 7,
    StatusReply = 8,
};
const char* to_string(MessageType type);

// A failure carried in a reply (code 0: success), turned back into a pdt::Error by the client.
struct ReplyError {
    int32_t code = 0;
    std::string operation, object, hint;
    static ReplyError from(const pdt::Error& error);
    pdt::Error to_error() const;
    bool operator==(const ReplyError&) const = default;
};

struct OpenDevice {
    vfio::PciAddress address;
    bool operator==(const OpenDevice&) const = default;
};
struct OpenDeviceReply {
    ReplyError error;
    uint32_t container_id = 0;
    int32_t iommu_type = 0;
    int32_t iommu_group = -1;
    bool noiommu = false;
    uint64_t page_size = 0;  // a power of two
    bool operator==(const OpenDeviceReply&) const = default;
};
struct AllocateIova {
    uint32_t container_id = 0;
    uint32_t dma_mask_bits = 64;  // 12..64
    uint64_t size = 0;            // non-zero
    bool operator==(const AllocateIova&) const = default;
};
struct AllocateIovaReply {
    ReplyError error;
    uint64_t iova = 0;
    bool operator==(const AllocateIovaReply&) const = default;
};
struct FreeIova {
    uint32_t container_id = 0;
    uint64_t iova = 0;
    uint64_t size = 0;  // non-zero
    bool operator==(const FreeIova&) const = default;
};
struct FreeIovaReply {
    ReplyError error;
    bool operator==(const FreeIovaReply&) const = default;
};
struct Status {
    bool operator==(const Status&) const = default;
};
// The manager's state, for tools and tests.
struct StatusReply {
    uint32_t clients = 0;
    uint32_t devices_open = 0;
    uint32_t iova_regions = 0;       // allocated to connected clients
    uint32_t quarantined_regions = 0;  // left by clients that died, until their container is recycled
    uint32_t containers_recycled = 0;
    bool operator==(const StatusReply&) const = default;
};

using Body = std::variant<OpenDevice, OpenDeviceReply, AllocateIova, AllocateIovaReply, FreeIova, FreeIovaReply,
                          Status, StatusReply>;

struct Message {
    uint32_t sequence = 0;
    Body body;
    MessageType type() const;
    bool operator==(const Message&) const = default;
};

std::vector<uint8_t> encode(const Message& message);
// Never reads outside [data, data + size); every malformed input is an EPROTO Error.
pdt::Result<Message> decode(const uint8_t* data, size_t size);

}  // namespace vfio_manager
