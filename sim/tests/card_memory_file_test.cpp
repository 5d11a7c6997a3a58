// The DMA models' card memory kept in a file (PDT_SIM_CARD_MEMORY_DIR, sim/dma_model.hpp): two
// instances of a simulated XDMA and QDMA memory design over one directory see each other's
// bytes, in <dir>/<design>-<address>-card.mem, a sparse file never written whole; without the
// variable each instance starts from zeros; a range past the card memory is still refused,
// nothing written; a QDMA reset still clears it; a directory that cannot hold the file fails
// the instance naming the file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "builtin_instance.hpp"
#include "sim/design_sim.hpp"
#include "sim/qdma_model.hpp"
#include "sim/xdma_model.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace card_memory_file_test {

namespace {

std::string fresh_card_dir(const std::string& name) {
    const std::string dir = testing::TempDir() + "/" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// PDT_SIM_CARD_MEMORY_DIR set for the scope of one test, unset after it whatever happens.
struct CardDirVariable {
    explicit CardDirVariable(const std::string& dir) { ::setenv(sim::kCardMemoryDirVariable, dir.c_str(), 1); }
    ~CardDirVariable() { ::unsetenv(sim::kCardMemoryDirVariable); }
};

// The card memory of an instance, XDMA or QDMA alike; offsets from its base.
struct CardOf {
    sim::DesignInstance instance;

    template <class Call>
    auto on_model(Call call) const {
        return instance.qdma ? call(*instance.qdma) : call(*instance.xdma);
    }
    uint64_t base() const { return on_model([](auto& m) { return m.config().card_memory_base; }); }
    uint64_t size() const { return on_model([](auto& m) { return m.config().card_memory_size; }); }
    std::string backing() const { return on_model([](auto& m) { return m.card_memory_backing(); }); }
    uint64_t resident() const { return on_model([](auto& m) { return m.card_memory_resident_bytes(); }); }
    bool write_bytes(uint64_t offset, const void* src, uint64_t n) {
        return on_model([&](auto& m) { return m.card_write(base() + offset, src, n); });
    }
    bool write(uint64_t offset, uint64_t value) { return write_bytes(offset, &value, 8); }
    uint64_t read(uint64_t offset) const {
        uint64_t value = 0xdeadbeefdeadbeefull;
        EXPECT_TRUE(on_model([&](auto& m) { return m.card_read(base() + offset, &value, 8); })) << "offset " << offset;
        return value;
    }
};

CardOf card_of(const std::string& design) {
    CardOf card{sim_test::instance(design)};
    EXPECT_TRUE(card.instance.xdma || card.instance.qdma) << design;
    return card;
}

const char* const kCardDesigns[] = {"TEF1001_dma_ddr3", "VD100_qdma_ddr4"};

}  // namespace

TEST(CardMemoryFile, TwoInstancesOverOneDirectorySeeEachOthersBytes) {
    for (const std::string design : kCardDesigns) {
        const std::string dir = fresh_card_dir("card_memory_shared_" + design);
        CardDirVariable variable(dir);
        CardOf first = card_of(design);
        const std::string file = dir + "/" + design + "-" + sim::simulated_address(0).to_string() + "-card.mem";
        EXPECT_EQ(first.backing(), file) << design;
        const uint64_t top = first.size() - 8;
        ASSERT_TRUE(first.write(0, 0x1122334455667788ull)) << design;
        ASSERT_TRUE(first.write(top, 0x0123456789abcdefull)) << design;
        {
            CardOf second = card_of(design);
            EXPECT_EQ(second.read(0), 0x1122334455667788ull) << design << ": the first instance's bytes";
            EXPECT_EQ(second.read(top), 0x0123456789abcdefull) << design;
            EXPECT_EQ(second.read(0x100000), 0u) << design << ": never written, zero";
            ASSERT_TRUE(second.write(8, 0xa5a5a5a55a5a5a5aull));
            EXPECT_EQ(first.read(8), 0xa5a5a5a55a5a5a5aull) << design << ": the second's, through the shared mapping";
        }
        first = CardOf{};
        CardOf after = card_of(design);
        // Sparse, never written whole: the file has the card memory's size, its blocks the few
        // written (and the one read above, where the file system fills a hole read through a
        // mapping, as tmpfs does).
        EXPECT_EQ(std::filesystem::file_size(file), after.size()) << design;
        EXPECT_GT(after.resident(), 0u) << design;
        EXPECT_LT(after.resident(), 1u << 20) << design << ": blocks of the written bytes only";
        EXPECT_EQ(after.read(top), 0x0123456789abcdefull) << design << ": kept once every instance is gone";
    }
}

TEST(CardMemoryFile, WithoutTheVariableEachInstanceStartsFromZeros) {
    const std::string dir = fresh_card_dir("card_memory_unset");
    for (const std::string design : kCardDesigns) {
        {
            CardDirVariable variable(dir);
            ASSERT_TRUE(card_of(design).write(0, 0x1122334455667788ull)) << design;
        }
        CardOf first = card_of(design);
        EXPECT_EQ(first.backing(), "") << design << ": host memory only";
        EXPECT_EQ(first.read(0), 0u) << design << ": fresh zero memory, not the file's";
        ASSERT_TRUE(first.write(0, 42));
        EXPECT_EQ(first.resident(), 0x10000u) << design << ": one 64 KiB page";
        EXPECT_EQ(card_of(design).read(0), 0u) << design << ": nor the other instance's";
    }
}

TEST(CardMemoryFile, ARangePastTheEndIsRefusedNothingWritten) {
    for (const std::string design : kCardDesigns) {
        CardDirVariable variable(fresh_card_dir("card_memory_past_" + design));
        CardOf card = card_of(design);
        const uint8_t bytes[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        EXPECT_FALSE(card.write_bytes(card.size() - 8, bytes, 16)) << design << ": 8 bytes inside, 8 past the end";
        EXPECT_FALSE(card.write_bytes(card.size(), bytes, 1)) << design;
        EXPECT_EQ(card.resident(), 0u) << design << ": no block written";
        EXPECT_EQ(card.read(card.size() - 8), 0u) << design << ": nothing written";
        EXPECT_EQ(std::filesystem::file_size(card.backing()), card.size()) << design << ": the file not grown";
    }
}

TEST(CardMemoryFile, AQdmaResetStillClearsItKeepingTheFileSize) {
    CardDirVariable variable(fresh_card_dir("card_memory_reset"));
    CardOf card = card_of("VD100_qdma_ddr4");
    ASSERT_TRUE(card.write(0x1000, 0x77));
    ASSERT_TRUE(card.instance.device->reset().ok());
    EXPECT_EQ(card.resident(), 0u) << "the file's blocks given back";
    EXPECT_EQ(card.read(0x1000), 0u) << "the model's reset clears its card memory, file or not";
    EXPECT_EQ(std::filesystem::file_size(card.backing()), card.size());
    EXPECT_EQ(card_of("VD100_qdma_ddr4").read(0x1000), 0u) << "nor does the next instance see it";
}

TEST(CardMemoryFile, ADirectoryThatCannotHoldTheFileFailsTheInstanceNamingIt) {
    CardDirVariable variable("/nonexistent/card_dir");
    const designs::Design* design = sim_test::builtin_registry().find("TEF1001_dma_ddr3");
    ASSERT_NE(design, nullptr);
    auto made = sim::instantiate_design(*design, sim::simulated_identity(*design, sim::simulated_address(0), 41), true);
    ASSERT_FALSE(made.ok());
    const std::string message = made.error().message();
    EXPECT_NE(message.find("open simulated card memory /nonexistent/card_dir/TEF1001_dma_ddr3-"), std::string::npos)
        << message;
    EXPECT_NE(message.find("-card.mem: No such file or directory (set by PDT_SIM_CARD_MEMORY_DIR)"), std::string::npos)
        << message;
}

}  // namespace card_memory_file_test
