// The host side of a user's copy: the region of a file read, a file shorter than asked, a missing
// file, and the sink's bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "user_design/file_data.hpp"

namespace {

std::filesystem::path scratch_file(const std::string& name, const std::string& bytes) {
    const auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

TEST(FileData, ReadsTheRegionAfterTheOffset) {
    const auto path = scratch_file("file_data_region", "0123456789");
    auto data = user_design::FileData::open(path, 2, 5);
    ASSERT_TRUE(data.ok()) << data.error().message();
    EXPECT_EQ(data->size(), 5u);
    uint8_t got[3] = {};
    ASSERT_TRUE(data->read(1, 3, got).ok());
    EXPECT_EQ(std::string(got, got + 3), "345");
    EXPECT_EQ(data->read(3, 3, got).error().code, ERANGE);
    auto rest = user_design::FileData::open(path, 4, 0);
    ASSERT_TRUE(rest.ok());
    EXPECT_EQ(rest->size(), 6u);
    std::filesystem::remove(path);
}

TEST(FileData, AFileShorterThanAskedIsRefusedNamingWhatItHolds) {
    const auto path = scratch_file("file_data_short", "0123456789");
    auto data = user_design::FileData::open(path, 4, 7);
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.error().code, ERANGE);
    EXPECT_NE(data.error().message().find("shorter than the 7 bytes asked from offset 0x4: it holds 6 bytes there"),
              std::string::npos)
        << data.error().message();
    EXPECT_EQ(user_design::FileData::open(path, 10, 0).error().code, EINVAL);  // no byte left
    EXPECT_EQ(user_design::FileData::open(path, 11, 0).error().code, ERANGE);
    std::filesystem::remove(path);
}

TEST(FileData, AMissingFileOrADirectoryIsRefused) {
    EXPECT_EQ(user_design::FileData::open("/nonexistent/pdt_none.bin", 0, 0).error().code, ENOENT);
    EXPECT_EQ(user_design::FileData::open(std::filesystem::temp_directory_path(), 0, 0).error().code, EINVAL);
}

TEST(FileSink, AppendsWhatItIsGiven) {
    const auto path = std::filesystem::temp_directory_path() / ("file_sink_" + std::to_string(::getpid()));
    {
        auto sink = user_design::FileSink::open(path);
        ASSERT_TRUE(sink.ok()) << sink.error().message();
        const uint8_t bytes[] = {'a', 'b', 'c'};
        ASSERT_TRUE(sink->write(bytes, 3).ok());
        ASSERT_TRUE(sink->write(bytes, 2).ok());
    }
    std::ifstream in(path, std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "abcab");
    std::filesystem::remove(path);
    EXPECT_EQ(user_design::FileSink::open("/nonexistent/dir/out.bin").error().code, ENOENT);
}

}  // namespace
