#include <gtest/gtest.h>

#include <vector>

#include "vfio_access/mmio.hpp"

namespace {

// Records each access so split 64-bit accesses can be checked for order.
class RecordingBackend : public vfio::MmioBackend {
public:
    struct Access {
        bool write;
        uint64_t offset;
        unsigned width;
        uint64_t value;
    };
    explicit RecordingBackend(uint64_t size) : m_memory(size, 0) {}
    uint64_t size() const override { return m_memory.size(); }
    uint64_t read(uint64_t offset, unsigned width) override {
        uint64_t value = 0;
        for (unsigned i = 0; i < width; ++i)
            value |= static_cast<uint64_t>(m_memory[offset + i]) << (8 * i);
        accesses.push_back({false, offset, width, value});
        return value;
    }
    void write(uint64_t offset, unsigned width, uint64_t value) override {
        for (unsigned i = 0; i < width; ++i)
            m_memory[offset + i] = static_cast<uint8_t>(value >> (8 * i));
        accesses.push_back({true, offset, width, value});
    }
    std::vector<Access> accesses;

private:
    std::vector<uint8_t> m_memory;
};

}  // namespace

TEST(Bar, WindowMustFitInsideTheBar) {
    auto backend = std::make_shared<RecordingBackend>(0x10000);
    vfio::Bar bar(2, backend);
    EXPECT_TRUE(bar.window(0, 0x10000).ok());
    auto too_big = bar.window(0x8000, 0x8001);
    ASSERT_FALSE(too_big.ok());
    EXPECT_EQ(too_big.error().code, ERANGE);
    EXPECT_NE(too_big.error().message().find("BAR 2 window 0x8000+0x8001"), std::string::npos);
    EXPECT_NE(too_big.error().message().find("BAR size is 0x10000"), std::string::npos);
}

TEST(Bar, CheckedAccessRejectsOutOfBoundsAndMisaligned) {
    auto backend = std::make_shared<RecordingBackend>(0x100);
    vfio::Bar bar(0, backend);
    EXPECT_FALSE(bar.read(0xfe, 4).ok());
    EXPECT_FALSE(bar.read(0x2, 4).ok());
    EXPECT_FALSE(bar.write(0x100, 1, 0).ok());
    EXPECT_FALSE(bar.read(0x0, 3).ok());
    ASSERT_TRUE(bar.write(0xfc, 4, 0x12345678).ok());
    EXPECT_EQ(*bar.read(0xfc, 4), 0x12345678u);
    EXPECT_EQ(*bar.read(0xff, 1), 0x12u);
}

TEST(RegisterWindow, AccessesAreRelativeToTheWindowBase) {
    auto backend = std::make_shared<RecordingBackend>(0x10000);
    vfio::Bar bar(0, backend);
    auto window = *bar.window(0x1000, 0x100);
    window.write16(0x10, 0xbeef);
    window.write8(0x12, 0x7f);
    EXPECT_EQ(window.read32(0x10), 0x007fbeefu);
    EXPECT_EQ(backend->accesses.back().offset, 0x1010u);
}

TEST(RegisterWindow, Split64IsLowThenHigh) {
    auto backend = std::make_shared<RecordingBackend>(0x100);
    vfio::Bar bar(0, backend);
    auto window = *bar.window(0, 0x100, vfio::Access64::SplitLowHigh);
    window.write64(0x88, 0x1122334455667788ull);
    ASSERT_EQ(backend->accesses.size(), 2u);
    EXPECT_EQ(backend->accesses[0].offset, 0x88u);
    EXPECT_EQ(backend->accesses[0].width, 4u);
    EXPECT_EQ(backend->accesses[0].value, 0x55667788u);
    EXPECT_EQ(backend->accesses[1].offset, 0x8cu);
    EXPECT_EQ(backend->accesses[1].value, 0x11223344u);
    EXPECT_EQ(window.read64(0x88), 0x1122334455667788ull);
    EXPECT_EQ(backend->accesses[2].width, 4u);
}

TEST(RegisterWindowDeathTest, OutOfWindowAccessAborts) {
    auto backend = std::make_shared<RecordingBackend>(0x100);
    vfio::Bar bar(1, backend);
    auto window = *bar.window(0x80, 0x10);
    EXPECT_DEATH(window.read32(0x10), "outside window 0x80\\+0x10");
    EXPECT_DEATH(window.write32(0x2, 0), "misaligned");
}
