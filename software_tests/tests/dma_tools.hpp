// The five DMA tool mains the matrix tests run on simulated designs (dma_tool_matrix_test,
// fault_matrix_test): each by its executable's name, the shorter name the DMA tool matrix gives
// it, and its path (the target's compile definitions: pdt_test_tools in CMakeLists.txt).
#pragma once

namespace dma_tools {

struct Tool {
    const char* name;        // the executable
    const char* short_name;  // in dma_tool_matrix's table and log files
    const char* path;
};

inline const Tool kTools[] = {{"test_dma_bridge", "test_dma_bridge", TEST_DMA_BRIDGE_TOOL},
                              {"test_dma_bridge_parallel_streams", "parallel_streams", PARALLEL_STREAMS_TOOL},
                              {"test_dma_bridge_independent_streams", "independent_streams", INDEPENDENT_STREAMS_TOOL},
                              {"test_dma_descriptor_credits", "descriptor_credits", DESCRIPTOR_CREDITS_TOOL},
                              {"crc64_stream_latency", "crc64_stream_latency", CRC64_LATENCY_TOOL}};

}  // namespace dma_tools
