// REQUIRE_GPU(): a GPU test without a usable NVIDIA GPU skips, saying why.
#pragma once

#include <gtest/gtest.h>

#include "cuda_stream/cuda_stream.hpp"

#define REQUIRE_GPU()                                                            \
    do {                                                                         \
        auto count = cuda_stream::gpu_count();                                   \
        if (!count.ok())                                                         \
            GTEST_SKIP() << "no NVIDIA GPU usable: " << count.error().message(); \
    } while (0)
