// Where the fake card's bytes go (fake_card.hpp): every copy command is staged through one host
// bounce buffer per card, as the runtime's CmaManager does (et_soc1.md section 6), and the DMA
// moves data between that buffer and card memory, honestly or as one of the lying devices of
// docs/verification.md. Internal to the fake; the model (fake_card.cpp) calls it, with its
// mutex held, at the phase changes of a command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "etsoc1/fake_card.hpp"

namespace etsoc1 {

// One host buffer, reused: a command takes the lowest free range that holds all its nodes, one
// after the other, from issue until it is finished (or aborted). So commands issued one at a
// time are all staged from offset 0, and commands in flight together never share bytes. The
// buffer grows when no free range is large enough; its bytes stay.
class BounceBuffer {
public:
    uint64_t reserve(uint64_t bytes);
    void release(uint64_t offset);
    uint8_t* at(uint64_t offset) { return m_bytes.data() + offset; }
    uint64_t size() const { return m_bytes.size(); }

private:
    std::vector<uint8_t> m_bytes;
    std::map<uint64_t, uint64_t> m_used;  // offset -> bytes
};

// Card memory of [address, address + bytes), or null when no live allocation holds it (freed
// while a command was in flight: nothing to move).
using CardMemory = std::function<uint8_t*(CardAddress address, uint64_t bytes)>;

class DataPath {
public:
    explicit DataPath(const FakeParameters& parameters) : m_p(parameters) {}

    BounceBuffer& bounce() { return m_bounce; }
    // The copy thread's memcpys: host -> bounce (host-to-card staging), bounce -> host
    // (card-to-host unstaging), the nodes one after the other from `offset`.
    void stage(const std::vector<Node>& nodes, uint64_t offset);
    void unstage(const std::vector<Node>& nodes, uint64_t offset);
    // A copy command's DMA starts: bounce -> card (h2c) or card -> bounce, unless the command
    // failed or the device lies about it (`copy` is its number among copy commands, from 1);
    // then the bytes an earlier command held back (completes_early) land.
    void dma(bool h2c, const std::vector<Node>& nodes, uint64_t offset, uint64_t copy, bool failed,
             const CardMemory& card);

private:
    struct Late {  // completes_early: a command's last bytes, not yet at their destination
        bool to_card = true;
        CardAddress card = 0;      // to_card: where they go
        uint64_t bounce = 0;       // else: the bounce offset they go to
        std::vector<uint8_t> bytes;
    };
    bool moves(uint64_t copy, bool failed) const;
    void to_card(uint8_t* card, const uint8_t* from, uint64_t bytes);  // counts H2C bytes, flips corrupt_h2c_byte
    void land(const Late& late, const CardMemory& card);

    const FakeParameters& m_p;
    BounceBuffer m_bounce;
    uint64_t m_h2c_bytes = 0;  // H2C bytes the card received, for corrupt_h2c_byte
    std::optional<Late> m_late;
};

}  // namespace etsoc1
