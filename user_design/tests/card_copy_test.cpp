// The chunked copies and the check on the model copy endpoint (sim::ModelCopyEndpoint): a file
// spanning several chunks lands where asked; an endpoint that moves nothing never verifies, the
// first differing offset named; the card range is refused outside the card memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/model_copy_endpoint.hpp"
#include "user_design/card_copy.hpp"

namespace {

using std::chrono::milliseconds;

std::filesystem::path chunk_pattern_file(const std::string& name, uint64_t bytes) {
    const auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
    std::ofstream out(path, std::ios::binary);
    for (uint64_t i = 0; i < bytes; ++i)
        out.put(static_cast<char>((i * 7 + i / 251) & 0xff));
    return path;
}

std::unique_ptr<sim::ModelCopyEndpoint> model(streams::Lie lie = {}) {
    sim::ModelCopyParameters p;
    p.h2c_gbps = p.c2h_gbps = 1000;
    p.latency_us = 0;
    p.card_memory_bytes = 64ull << 20;
    p.max_copy_bytes = 1 << 20;  // several chunks
    p.lie = lie;
    return std::move(sim::ModelCopyEndpoint::create(p)).value();
}

TEST(CardCopy, AFileOfSeveralChunksLandsWhereAskedAndVerifies) {
    const auto path = chunk_pattern_file("card_copy_chunks", (3 << 20) + 17);
    auto data = std::move(user_design::FileData::open(path, 0, 0)).value();
    auto endpoint = model();
    const user_design::CardRange range{0x1000, data.size()};
    auto decoy = user_design::write_decoy(*endpoint, data, range, milliseconds(5000));
    ASSERT_TRUE(decoy.ok()) << decoy.error().message();
    EXPECT_FALSE(decoy->has_value()) << "the card took the decoy";
    auto times = user_design::copy_to_card(*endpoint, data, range, 2, milliseconds(5000));
    ASSERT_TRUE(times.ok()) << times.error().message();
    EXPECT_EQ(times->repetitions.size(), 2u);
    EXPECT_EQ(times->bytes, data.size());
    std::vector<uint8_t> expected(data.size());
    ASSERT_TRUE(data.read(0, data.size(), expected.data()).ok());
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), endpoint->card_memory() + 0x1000));
    auto differs = user_design::compare_card(*endpoint, data, range, milliseconds(5000));
    ASSERT_TRUE(differs.ok()) << differs.error().message();
    EXPECT_FALSE(differs->has_value());
    std::filesystem::remove(path);
}

TEST(CardCopy, AnEndpointThatMovesNothingNeverVerifies) {
    const auto path = chunk_pattern_file("card_copy_lie", 4096);
    auto data = std::move(user_design::FileData::open(path, 0, 0)).value();
    auto endpoint = model(streams::Lie{streams::Lie::Kind::MovesNothing});
    // The card already holds the file: only the decoy written first shows that nothing moved, and
    // reading it back shows that the decoy itself did not land.
    ASSERT_TRUE(data.read(0, data.size(), endpoint->card_memory()).ok());
    const user_design::CardRange range{0, data.size()};
    auto decoy = user_design::write_decoy(*endpoint, data, range, milliseconds(5000));
    ASSERT_TRUE(decoy.ok()) << decoy.error().message();
    ASSERT_TRUE(decoy->has_value()) << "a decoy that did not land was taken for one that did";
    EXPECT_EQ((*decoy)->offset, 0u);
    EXPECT_EQ((*decoy)->differing_bytes, 4096u);
    ASSERT_TRUE(user_design::copy_to_card(*endpoint, data, range, 1, milliseconds(5000)).ok());
    auto differs = user_design::compare_card(*endpoint, data, range, milliseconds(5000));
    ASSERT_TRUE(differs.ok()) << differs.error().message();
    ASSERT_TRUE(differs->has_value());
    EXPECT_EQ((*differs)->offset, 0u);
    EXPECT_EQ((*differs)->differing_bytes, 4096u);
    std::filesystem::remove(path);
}

TEST(CardCopy, TheFirstDifferenceAndHowManyBytesDiffer) {
    const uint8_t expected[] = {1, 2, 3, 4, 5};
    const uint8_t found[] = {1, 2, 9, 4, 0};
    auto d = user_design::first_difference(expected, found, 5, 0x100);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->offset, 0x102u);
    EXPECT_EQ(d->expected, 3);
    EXPECT_EQ(d->found, 9);
    EXPECT_EQ(d->differing_bytes, 2u);
    EXPECT_FALSE(user_design::first_difference(expected, expected, 5, 0).has_value());
}

TEST(CardCopy, ARangeOutsideTheCardMemoryIsRefused) {
    streams::EndpointInfo info;
    info.name = "card";
    info.card_memory_bytes = 0x1000;
    auto inside = user_design::card_range(info, 0x8000, 0x8800, 0x800);
    ASSERT_TRUE(inside.ok());
    EXPECT_EQ(inside->offset, 0x800u);
    EXPECT_EQ(user_design::card_range(info, 0x8000, 0x8801, 0x800).error().code, ERANGE);
    EXPECT_EQ(user_design::card_range(info, 0x8000, 0x7fff, 1).error().code, ERANGE);
    EXPECT_EQ(user_design::card_range(info, 0x8000, 0x20000, 1).error().code, ERANGE);
    EXPECT_EQ(user_design::card_range(info, 0x8000, 0x8000, 0).error().code, EINVAL);
}

}  // namespace
