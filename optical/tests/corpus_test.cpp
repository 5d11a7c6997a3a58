// The fuzz targets' seeds (fuzz/corpus/fuzz_sff8472, fuzz_sff8636) are the module images of
// optical_images, byte for byte, so they cannot drift from them. A seed is a selector byte (0:
// the bytes as they are) then the pages: A0h and A2h; page 00h and page 03h. Run with
// OPTICAL_WRITE_CORPUS=1 to write them again after the images change.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "optical_images/module_images.hpp"

namespace corpus_test {

using optical::images::Conditions;
using Bytes = std::vector<uint8_t>;

template <typename... Pages>
Bytes seed(const Pages&... pages) {
    Bytes bytes{0};
    (bytes.insert(bytes.end(), pages.begin(), pages.end()), ...);
    return bytes;
}

struct Seed {
    std::string target, name;
    Bytes bytes;
};

std::vector<Seed> optical_seeds() {
    using namespace optical::images;
    const SfpImage sr = sfp_10gbase_sr(), external = sfp_10gbase_sr_external_calibration(Conditions{.temperature_c = 80});
    const QsfpImage sr4 = qsfp28_100gbase_sr4(), dark = qsfp28_100gbase_sr4(Conditions{.rx_power_mw = 0.05});
    return {
        {"fuzz_sff8472", "sfp_10gbase_sr", seed(sr.a0, sr.a2)},
        {"fuzz_sff8472", "sfp_10gbase_sr_external_calibration_80c", seed(external.a0, external.a2)},
        {"fuzz_sff8472", "sfp_a0_only", seed(sr.a0)},
        {"fuzz_sff8636", "qsfp28_100gbase_sr4", seed(sr4.page00, sr4.page03)},
        {"fuzz_sff8636", "qsfp28_100gbase_sr4_low_rx", seed(dark.page00, dark.page03)},
        {"fuzz_sff8636", "qsfp28_page00_only", seed(sr4.page00)},
    };
}

TEST(FuzzCorpus, SeedsAreTheModuleImages) {
    const std::filesystem::path corpus = PDT_FUZZ_CORPUS_DIR;
    const bool write = std::getenv("OPTICAL_WRITE_CORPUS") != nullptr;
    for (const Seed& s : optical_seeds()) {
        const std::filesystem::path path = corpus / s.target / s.name;
        if (write) {
            std::filesystem::create_directories(path.parent_path());
            std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(s.bytes.data()),
                                                        static_cast<std::streamsize>(s.bytes.size()));
            continue;
        }
        std::ifstream in(path, std::ios::binary);
        ASSERT_TRUE(in) << path << " missing (OPTICAL_WRITE_CORPUS=1 writes it)";
        const Bytes held{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        EXPECT_EQ(held, s.bytes) << path << " differs from its image (OPTICAL_WRITE_CORPUS=1 writes it again)";
    }
}

}  // namespace corpus_test
