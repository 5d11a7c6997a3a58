// A 64 MiB file to the card memory of a simulated XDMA memory design and of a simulated QDMA
// memory design, through the adapter registry's design memory (adapters/design_memory.hpp) as
// dma_to_device opens it, read back to a file as dma_from_device does: byte for byte the same.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "adapters/design_memory.hpp"
#include "pattern_file.hpp"
#include "user_design/card_copy.hpp"

namespace {

using std::chrono::milliseconds;

std::filesystem::path design_scratch(const std::string& name) {
    return std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
}

// `bytes` (a multiple of 1 MiB) of a pattern that repeats no 8-byte word.
std::filesystem::path design_pattern_file(const std::string& name, uint64_t bytes) {
    const auto path = design_scratch(name);
    user_design_test::write_pattern_file(path, bytes);
    return path;
}

void round_trip(const std::string& design, const std::string& adapter) {
    const auto file = design_pattern_file("design_memory_in_" + design, 64ull << 20);
    const auto back = design_scratch("design_memory_back_" + design);
    tool_support::DesignSelection selection{{design}, {}};
    auto memory = adapters::open_design_memory(std::make_unique<designs::Registry>(designs::Registry::builtin().value()), selection);
    ASSERT_TRUE(memory.ok()) << memory.error().message();
    EXPECT_EQ(memory->adapter, adapter);
    auto data = std::move(user_design::FileData::open(file, 0, 0)).value();
    auto range = user_design::card_range(memory->endpoint->info(), memory->memory_base, memory->memory_base + 0x10000,
                                         data.size());
    ASSERT_TRUE(range.ok()) << range.error().message();
    auto sent = user_design::copy_to_card(*memory->endpoint, data, *range, 1, milliseconds(20000));
    ASSERT_TRUE(sent.ok()) << sent.error().message();
    {
        auto sink = std::move(user_design::FileSink::open(back)).value();
        auto received = user_design::copy_from_card(*memory->endpoint, sink, *range, 1, milliseconds(20000));
        ASSERT_TRUE(received.ok()) << received.error().message();
        EXPECT_GT(received->bytes_per_second(), 0);
    }
    EXPECT_TRUE(user_design_test::file_bytes(file) == user_design_test::file_bytes(back)) << design << ": the file read back differs";
    std::filesystem::remove(file);
    std::filesystem::remove(back);
}

TEST(DesignMemory, A64MiBFileToXdmaCardMemoryAndBackIsByteIdentical) { round_trip("TEF1001_dma_ddr3", "xdma"); }

TEST(DesignMemory, A64MiBFileToQdmaCardMemoryAndBackIsByteIdentical) { round_trip("VD100_qdma_ddr4", "qdma"); }

TEST(DesignMemory, ADesignWithoutCardMemoryIsNone) {
    tool_support::DesignSelection selection{{"TEF1001_dma_stream_loopback"}, {}};
    auto memory = adapters::open_design_memory(std::make_unique<designs::Registry>(designs::Registry::builtin().value()), selection);
    ASSERT_FALSE(memory.ok());
    EXPECT_EQ(memory.error().code, ENODEV);
}

}  // namespace
