#include "vfio_manager/protocol.hpp"

#include <cerrno>
#include <span>
#include <type_traits>

#include "base/little_endian.hpp"

namespace vfio_manager {
namespace {

class Writer {
public:
    void u8(uint8_t v) { m_bytes.push_back(v); }
    void u16(uint16_t v) { put(v, 2); }
    void u32(uint32_t v) { put(v, 4); }
    void u64(uint64_t v) { put(v, 8); }
    void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
    void boolean(bool v) { u8(v ? 1 : 0); }
    void string(const std::string& s) {
        const size_t n = s.size() < k_max_string ? s.size() : k_max_string;  // longer texts are cut
        u16(static_cast<uint16_t>(n));
        m_bytes.insert(m_bytes.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
    }
    std::vector<uint8_t>& bytes() { return m_bytes; }

private:
    void put(uint64_t v, int n) {
        m_bytes.resize(m_bytes.size() + static_cast<size_t>(n));
        pdt::store_le(std::span(m_bytes).last(static_cast<size_t>(n)), v);
    }
    std::vector<uint8_t> m_bytes;
};

// Reads fields in order; the first failure is kept and every later read yields zero.
class Reader {
public:
    Reader(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}
    uint8_t u8(const char* field) { return static_cast<uint8_t>(get(1, field)); }
    uint16_t u16(const char* field) { return static_cast<uint16_t>(get(2, field)); }
    uint32_t u32(const char* field) { return static_cast<uint32_t>(get(4, field)); }
    uint64_t u64(const char* field) { return get(8, field); }
    int32_t i32(const char* field) { return static_cast<int32_t>(u32(field)); }
    bool boolean(const char* field) {
        const uint8_t v = u8(field);
        if (v > 1)
            fail(field, "is " + std::to_string(v) + ", not 0 or 1");
        return v == 1;
    }
    std::string string(const char* field) {
        const uint16_t n = u16(field);
        if (n > k_max_string)
            fail(field, "length " + std::to_string(n) + " exceeds " + std::to_string(k_max_string));
        if (!m_error.empty() || n > m_size - m_offset) {
            fail(field, "string of " + std::to_string(n) + " bytes runs past the end of the message");
            return {};
        }
        std::string s(reinterpret_cast<const char*>(m_data + m_offset), n);
        m_offset += n;
        return s;
    }
    void fail(const std::string& field, const std::string& why) {
        if (m_error.empty())
            m_error = field + " " + why;
    }
    void expect_end() {
        if (m_error.empty() && m_offset != m_size)
            m_error = std::to_string(m_size - m_offset) + " unexpected bytes after the last field";
    }
    const std::string& error() const { return m_error; }

private:
    uint64_t get(size_t n, const char* field) {
        if (!m_error.empty())
            return 0;
        if (n > m_size - m_offset) {
            fail(field, "truncated: message ends after " + std::to_string(m_offset) + " bytes");
            return 0;
        }
        const uint64_t v = pdt::load_le({m_data + m_offset, n});
        m_offset += n;
        return v;
    }
    const uint8_t* m_data;
    size_t m_size;
    size_t m_offset = 0;
    std::string m_error;
};

void put_field(Writer& w, uint32_t v) { w.u32(v); }
void put_field(Writer& w, int32_t v) { w.i32(v); }
void put_field(Writer& w, uint64_t v) { w.u64(v); }
void put_field(Writer& w, bool v) { w.boolean(v); }
void put_field(Writer& w, const ReplyError& e) {
    w.i32(e.code);
    w.string(e.operation);
    w.string(e.object);
    w.string(e.hint);
}
void put_field(Writer& w, const vfio::PciAddress& a) {
    w.u16(a.domain);
    w.u8(a.bus);
    w.u8(a.device);
    w.u8(a.function);
}

ReplyError get_error(Reader& r) {
    ReplyError e;
    e.code = r.i32("error code");
    if (e.code < 0 || e.code > 4095)
        r.fail("error code", std::to_string(e.code) + " is not an errno value");
    e.operation = r.string("error operation");
    e.object = r.string("error object");
    e.hint = r.string("error hint");
    return e;
}
vfio::PciAddress get_address(Reader& r) {
    vfio::PciAddress a;
    a.domain = r.u16("PCI domain");
    a.bus = r.u8("PCI bus");
    a.device = r.u8("PCI device");
    a.function = r.u8("PCI function");
    if (a.device > 0x1f)
        r.fail("PCI device", std::to_string(a.device) + " exceeds 31");
    if (a.function > 7)
        r.fail("PCI function", std::to_string(a.function) + " exceeds 7");
    return a;
}

void get_field(Reader& r, uint32_t& v, const char* name) { v = r.u32(name); }
void get_field(Reader& r, int32_t& v, const char* name) { v = r.i32(name); }
void get_field(Reader& r, uint64_t& v, const char* name) { v = r.u64(name); }
void get_field(Reader& r, bool& v, const char* name) { v = r.boolean(name); }
void get_field(Reader& r, ReplyError& e, const char*) { e = get_error(r); }
void get_field(Reader& r, vfio::PciAddress& a, const char*) { a = get_address(r); }

// A message's fields in wire order, with the names decode errors give them: the one list that
// put (encode) and get_message (decode) both walk. The checks on decoded values are get_body's.
template <class M, class Field>
void each_field(M& m, Field&& f) {
    using T = std::remove_const_t<M>;
    if constexpr (std::is_same_v<T, OpenDevice>) {
        f(m.address, "PCI address");
    } else if constexpr (std::is_same_v<T, OpenDeviceReply>) {
        f(m.error, "error");
        f(m.container_id, "container id");
        f(m.iommu_type, "IOMMU type");
        f(m.iommu_group, "IOMMU group");
        f(m.noiommu, "noiommu");
        f(m.page_size, "page size");
    } else if constexpr (std::is_same_v<T, AllocateIova>) {
        f(m.container_id, "container id");
        f(m.dma_mask_bits, "DMA mask bits");
        f(m.size, "size");
    } else if constexpr (std::is_same_v<T, AllocateIovaReply>) {
        f(m.error, "error");
        f(m.iova, "IOVA");
    } else if constexpr (std::is_same_v<T, FreeIova>) {
        f(m.container_id, "container id");
        f(m.iova, "IOVA");
        f(m.size, "size");
    } else if constexpr (std::is_same_v<T, FreeIovaReply>) {
        f(m.error, "error");
    } else if constexpr (std::is_same_v<T, StatusReply>) {
        f(m.clients, "clients");
        f(m.devices_open, "devices open");
        f(m.iova_regions, "IOVA regions");
        f(m.quarantined_regions, "quarantined regions");
        f(m.containers_recycled, "containers recycled");
    } else {
        static_assert(std::is_same_v<T, Status>, "a message without its field list");
    }
}

template <class M>
void put(Writer& w, const M& m) {
    each_field(m, [&](const auto& v, const char*) { put_field(w, v); });
}
template <class M>
M get_message(Reader& r) {
    M m;
    each_field(m, [&](auto& v, const char* name) { get_field(r, v, name); });
    return m;
}

void check_size(Reader& r, uint64_t size) {
    if (size == 0)
        r.fail("size", "is 0");
}

Body get_body(MessageType type, Reader& r) {
    switch (type) {
    case MessageType::OpenDevice: return get_message<OpenDevice>(r);
    case MessageType::OpenDeviceReply: {
        const auto m = get_message<OpenDeviceReply>(r);
        if (m.error.code == 0 && (m.page_size < 4096 || (m.page_size & (m.page_size - 1)) != 0))
            r.fail("page size", std::to_string(m.page_size) + " is not a power of two >= 4096");
        return m;
    }
    case MessageType::AllocateIova: {
        const auto m = get_message<AllocateIova>(r);
        if (m.dma_mask_bits < 12 || m.dma_mask_bits > 64)
            r.fail("DMA mask bits", std::to_string(m.dma_mask_bits) + " is outside 12..64");
        check_size(r, m.size);
        return m;
    }
    case MessageType::AllocateIovaReply: return get_message<AllocateIovaReply>(r);
    case MessageType::FreeIova: {
        const auto m = get_message<FreeIova>(r);
        check_size(r, m.size);
        return m;
    }
    case MessageType::FreeIovaReply: return get_message<FreeIovaReply>(r);
    case MessageType::Status: return Status{};
    case MessageType::StatusReply: return get_message<StatusReply>(r);
    }
    return Status{};  // not reached: the type was checked by the caller
}

pdt::Error protocol_error(const std::string& why) {
    return pdt::make_error("decode", "VFIO manager message", EPROTO, why);
}

}  // namespace

const char* to_string(MessageType type) {
    switch (type) {
    case MessageType::OpenDevice: return "OpenDevice";
    case MessageType::OpenDeviceReply: return "OpenDeviceReply";
    case MessageType::AllocateIova: return "AllocateIova";
    case MessageType::AllocateIovaReply: return "AllocateIovaReply";
    case MessageType::FreeIova: return "FreeIova";
    case MessageType::FreeIovaReply: return "FreeIovaReply";
    case MessageType::Status: return "Status";
    case MessageType::StatusReply: return "StatusReply";
    }
    return "unknown";
}

ReplyError ReplyError::from(const pdt::Error& error) {
    return ReplyError{error.code == 0 ? EIO : error.code, error.operation, error.object, error.hint};
}

pdt::Error ReplyError::to_error() const { return pdt::make_error(operation, object, code, hint); }

MessageType Message::type() const { return static_cast<MessageType>(body.index() + 1); }

std::vector<uint8_t> encode(const Message& message) {
    Writer payload;
    std::visit([&](const auto& body) { put(payload, body); }, message.body);
    Writer w;
    w.u32(k_magic);
    w.u16(k_version);
    w.u16(static_cast<uint16_t>(message.type()));
    w.u32(static_cast<uint32_t>(payload.bytes().size()));
    w.u32(message.sequence);
    w.bytes().insert(w.bytes().end(), payload.bytes().begin(), payload.bytes().end());
    return std::move(w.bytes());
}

pdt::Result<Message> decode(const uint8_t* data, size_t size) {
    if (data == nullptr || size < k_header_size)
        return protocol_error(std::to_string(size) + " bytes, shorter than the " + std::to_string(k_header_size) +
                              "-byte header");
    if (size > k_max_message)
        return protocol_error(std::to_string(size) + " bytes, longer than " + std::to_string(k_max_message));
    Reader header(data, k_header_size);
    const uint32_t magic = header.u32("magic");
    const uint16_t version = header.u16("version");
    const uint16_t type = header.u16("type");
    const uint32_t length = header.u32("length");
    Message message;
    message.sequence = header.u32("sequence");
    if (magic != k_magic)
        return protocol_error("bad magic " + std::to_string(magic) + " (not a pcie-dma-toolkit VFIO manager message)");
    if (version != k_version)
        return protocol_error("protocol version " + std::to_string(version) + ", this build speaks version " +
                              std::to_string(k_version));
    if (type < 1 || type > std::variant_size_v<Body>)
        return protocol_error("unknown message type " + std::to_string(type));
    if (length != size - k_header_size)
        return protocol_error("payload length field " + std::to_string(length) + " but " +
                              std::to_string(size - k_header_size) + " payload bytes received");
    Reader payload(data + k_header_size, length);
    message.body = get_body(static_cast<MessageType>(type), payload);
    payload.expect_end();
    if (!payload.error().empty())
        return protocol_error(std::string(to_string(static_cast<MessageType>(type))) + ": " + payload.error());
    return message;
}

}  // namespace vfio_manager
