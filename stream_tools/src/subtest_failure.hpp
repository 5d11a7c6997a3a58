// What the card-memory and stream subtests of test_dma_bridge share to report a failure.
#pragma once

#include <cstdio>
#include <string>

#include "base/result.hpp"
#include "stream_tools/memory_tests.hpp"

namespace stream_tools {

// The engine a DMA error names ("H2C 0 transfer", "0000:15:00.0 C2H 1").
const char* direction_of(const pdt::Error& error);
// Prints "TEST FAIL:" and "  <direction> failure : <message>" to out, and returns that failure.
MemoryTestResult test_failure(std::FILE* out, const std::string& direction, const std::string& message);

}  // namespace stream_tools
