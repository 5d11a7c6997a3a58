// A device that lies (docs/verification.md): the test-only behaviour every model, fake and
// adapter test option can be given, so that the tests show no tool passes data that was not
// moved. One type and one spelling for all of them (the XDMA model's PDT_SIM_FAULT and
// --model_lie, the edu model, --cuda_lie):
//   moves_nothing     every transfer completes on time, with its length and status, and moves
//                     no byte to its destination;
//   stale_after=N     the first N transfers move data; every later one completes without moving;
//   completes_early   each transfer is reported complete before its last kLateTailBytes (all
//                     of a shorter one) land: they land with a later transfer of the same
//                     engine (the XDMA model: one started at least late_by after the
//                     completion), or never.
// Transfers are counted over both directions of whatever shares the lie (a device, an endpoint).
//
//   const streams::Lie lie = PDT_TRY(streams::parse_lie("option --cuda_lie", text));
//   if (!lie.moves(transfers_done)) ...
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace streams {

struct Lie {
    enum class Kind { None, MovesNothing, StaleAfter, CompletesEarly };
    Kind kind = Kind::None;
    uint64_t stale_after = 0;                 // StaleAfter: transfers that still move data
    std::chrono::milliseconds late_by{200};   // CompletesEarly, XDMA model: the least time before a tail lands

    // Whether the transfer after `done` others (counted from 0) moves its data at all;
    // CompletesEarly moves it, its tail late.
    bool moves(uint64_t done) const {
        return kind == Kind::None || kind == Kind::CompletesEarly || (kind == Kind::StaleAfter && done < stale_after);
    }
    bool late_tail() const { return kind == Kind::CompletesEarly; }
    explicit operator bool() const { return kind != Kind::None; }
};

// Bytes at the end of a transfer that a completes_early device lands late.
inline constexpr uint64_t kLateTailBytes = 64;

// True when `text` (before any '=') names one of the three lies.
inline bool is_lie(const std::string& text) {
    const std::string name = text.substr(0, text.find('='));
    return name == "moves_nothing" || name == "stale_after" || name == "completes_early";
}

// "" or "none" (no lie), "moves_nothing", "stale_after=N" (N decimal, 0 or more) or
// "completes_early"; else a usage error `parse <source> "<text>"` naming the spellings. `source`
// says where the text came from: "option --cuda_lie", "PDT_SIM_FAULT".
inline pdt::Result<Lie> parse_lie(const std::string& source, const std::string& text) {
    const auto bad = [&](const std::string& why) {
        return pdt::usage_error("parse " + source, "\"" + text + "\"",
                                why + " (one of moves_nothing, stale_after=N, completes_early)");
    };
    if (text.empty() || text == "none")
        return Lie{};
    if (text == "moves_nothing")
        return Lie{Lie::Kind::MovesNothing};
    if (text == "completes_early")
        return Lie{Lie::Kind::CompletesEarly};
    const std::string prefix = "stale_after=";
    if (text.compare(0, prefix.size(), prefix) != 0)
        return bad("unknown lie");
    const std::string digits = text.substr(prefix.size());
    if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
        return bad("stale_after needs a whole number of transfers");
    return Lie{Lie::Kind::StaleAfter, std::stoull(digits)};
}

// The spelling parse_lie takes: "stale_after=3"; "none" for Kind::None.
inline std::string to_string(const Lie& lie) {
    switch (lie.kind) {
    case Lie::Kind::None: return "none";
    case Lie::Kind::MovesNothing: return "moves_nothing";
    case Lie::Kind::StaleAfter: return "stale_after=" + std::to_string(lie.stale_after);
    case Lie::Kind::CompletesEarly: return "completes_early";
    }
    return "none";
}

}  // namespace streams
