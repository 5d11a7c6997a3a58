// NUMA placement of a stream run (stream_tools/numa_placement.hpp) on a synthetic sysfs tree.
#include <gtest/gtest.h>

#include <sched.h>

#include "stream_tools/numa_placement.hpp"
#include "temp_tree.hpp"

namespace {

class NumaPlacement : public ::testing::Test {
protected:
    void SetUp() override {
        sysfs.write("devices/system/node/node0/cpulist", "0-7\n");
        sysfs.write("devices/system/node/node1/cpulist", "8-15\n");
    }
    vfio::PciAddress device(const std::string& bdf, const std::string& node) {
        sysfs.write("bus/pci/devices/" + bdf + "/numa_node", node + "\n");
        return *vfio::PciAddress::parse(bdf);
    }
    stream_tools::NumaPlan plan(const std::vector<vfio::PciAddress>& devices) {
        return stream_tools::plan_numa_placement(devices, sysfs.root());
    }
    TempTree sysfs;
};

TEST_F(NumaPlacement, OneNodeGivesItsCpusAndSaysSo) {
    const auto p = plan({device("0000:19:00.0", "1"), device("0000:1a:00.0", "1")});
    EXPECT_EQ(p.node, 1);
    EXPECT_EQ(p.cpus, (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
    EXPECT_EQ(p.line,
              "NUMA: 0000:19:00.0, 0000:1a:00.0 on node 1: host buffers and pattern threads placed on its CPUs 8-15");
}

TEST_F(NumaPlacement, NoNodeDifferentNodesAndBadEntriesPlaceNothingAndSayWhy) {
    auto none = plan({device("0000:19:00.0", "-1")});
    EXPECT_TRUE(none.cpus.empty());
    EXPECT_NE(none.line.find("reports no node (numa_node -1"), std::string::npos) << none.line;
    auto split = plan({device("0000:19:00.0", "0"), device("0000:1a:00.0", "1")});
    EXPECT_TRUE(split.cpus.empty());
    EXPECT_NE(split.line.find("are on different nodes: nothing placed"), std::string::npos) << split.line;
    auto bad = plan({device("0000:19:00.0", "zz")});
    EXPECT_TRUE(bad.cpus.empty());
    EXPECT_NE(bad.line.find("is not a node number"), std::string::npos) << bad.line;
    EXPECT_NE(bad.line.find("nothing placed"), std::string::npos) << bad.line;
}

TEST_F(NumaPlacement, DevicesWithoutASysfsEntryAreLeftOutSilently) {
    const auto p = plan({*vfio::PciAddress::parse("0000:15:00.0")});
    EXPECT_TRUE(p.cpus.empty());
    EXPECT_TRUE(p.line.empty());
    EXPECT_TRUE(stream_tools::apply_numa_placement(p).empty());
}

TEST_F(NumaPlacement, ApplyingANodeWhoseCpusAreNotOursSaysNothingWasPlaced) {
    stream_tools::NumaPlan p;
    p.node = 3;
    p.cpus = {CPU_SETSIZE - 1};  // no machine here has it
    p.line = "NUMA: placed";
    const std::string said = stream_tools::apply_numa_placement(p);
    EXPECT_NE(said.find("NUMA: node 3: sched_setaffinity"), std::string::npos) << said;
    EXPECT_NE(said.find("nothing placed"), std::string::npos) << said;
}

}  // namespace
