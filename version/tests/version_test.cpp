#include "pdt_version/version.hpp"

#include <gtest/gtest.h>

namespace {

TEST(VersionLine, NamesTheToolWithoutItsDirectory) {
    EXPECT_EQ(pdt_version::version_line("/usr/bin/test_dma_bridge"),
              "test_dma_bridge (pcie-dma-toolkit) " + std::string(pdt_version::kVersion));
    EXPECT_EQ(pdt_version::version_line("dump_pci_info"), "dump_pci_info (pcie-dma-toolkit) " + std::string(pdt_version::kVersion));
}

TEST(VersionLine, VersionIsTheProjectVersion) {
    EXPECT_EQ(pdt_version::kVersion, PDT_EXPECTED_VERSION);
}

}  // namespace
