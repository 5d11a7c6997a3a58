// The test-only lie (streams::Lie, docs/verification.md) as the channels and the copy
// endpoint apply it to one copy (private to cuda_stream).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "cuda_stream/cuda_stream.hpp"

namespace cuda_stream::detail {

// The bytes of a copy made before its completion is recorded, and the tail held back.
struct LieSplit {
    uint64_t now = 0;
    uint64_t held_back = 0;
};

// `transfer`: the copy's number among those the lie counts, from 1. completes_early holds back
// the last streams::kLateTailBytes (all of a shorter copy).
inline LieSplit split_copy(const streams::Lie& lie, uint64_t transfer, uint64_t length) {
    switch (lie.kind) {
    case streams::Lie::Kind::None: return {length, 0};
    case streams::Lie::Kind::MovesNothing: return {0, 0};
    case streams::Lie::Kind::StaleAfter: return {lie.moves(transfer - 1) ? length : 0, 0};
    case streams::Lie::Kind::CompletesEarly: {
        const uint64_t tail = std::min(streams::kLateTailBytes, length);
        return {length - tail, tail};
    }
    }
    return {length, 0};
}

// A held-back tail: the copy of its last bytes, made when a later transfer starts.
struct HeldBackTail {
    void* dst = nullptr;
    const void* src = nullptr;
    uint64_t bytes = 0;
    cudaMemcpyKind kind = cudaMemcpyDefault;
};

}  // namespace cuda_stream::detail
