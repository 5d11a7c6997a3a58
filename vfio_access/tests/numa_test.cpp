// NUMA placement helpers (vfio_access/numa.hpp) on a synthetic sysfs tree.
#include <gtest/gtest.h>

#include <sched.h>

#include "temp_tree.hpp"
#include "vfio_access/numa.hpp"

namespace {

TEST(CpuList, RangesAndSinglesAndWhitespace) {
    auto cpus = vfio::parse_cpu_list("0-3,8,10-11\n");
    ASSERT_TRUE(cpus.ok()) << cpus.error().message();
    EXPECT_EQ(*cpus, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
    auto empty = vfio::parse_cpu_list(" \n");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->empty());
}

TEST(CpuList, MalformedListsAreErrorsNamingTheText) {
    for (const char* bad : {"3-1", "a", "1,", "1--2", "-1", "99999", "1,,2", "0-"}) {
        auto cpus = vfio::parse_cpu_list(bad);
        ASSERT_FALSE(cpus.ok()) << bad;
        EXPECT_EQ(cpus.error().code, EINVAL) << bad;
        EXPECT_NE(cpus.error().message().find(std::string("\"") + bad + "\""), std::string::npos)
            << cpus.error().message();
    }
}

class NumaSysfs : public ::testing::Test {
protected:
    void SetUp() override {
        sysfs.mkdir("bus/pci/devices/0000:19:00.0");
        write("devices/system/node/node1/cpulist", "16-19,24\n");
    }
    void write(const std::string& rel, const std::string& text) { sysfs.write(rel, text); }
    vfio::PciAddress address() { return *vfio::PciAddress::parse("0000:19:00.0"); }
    TempTree sysfs;
};

TEST_F(NumaSysfs, TheDevicesNodeAndItsCpus) {
    write("bus/pci/devices/0000:19:00.0/numa_node", "1\n");
    auto node = vfio::device_numa_node(sysfs.root(), address());
    ASSERT_TRUE(node.ok()) << node.error().message();
    EXPECT_EQ(node->node, 1);
    EXPECT_EQ(node->cpu_list, "16-19,24");
    EXPECT_EQ(node->cpus, (std::vector<int>{16, 17, 18, 19, 24}));
}

TEST_F(NumaSysfs, MinusOneIsNoNode) {
    write("bus/pci/devices/0000:19:00.0/numa_node", "-1\n");
    auto node = vfio::device_numa_node(sysfs.root(), address());
    ASSERT_TRUE(node.ok()) << node.error().message();
    EXPECT_EQ(node->node, -1);
    EXPECT_TRUE(node->cpus.empty());
}

TEST_F(NumaSysfs, MissingEntriesAndGarbageAreErrorsNamingThePath) {
    auto missing = vfio::device_numa_node(sysfs.root(), *vfio::PciAddress::parse("0000:01:00.0"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENOENT);
    EXPECT_NE(missing.error().message().find("0000:01:00.0/numa_node"), std::string::npos) << missing.error().message();
    write("bus/pci/devices/0000:19:00.0/numa_node", "x\n");
    auto garbage = vfio::device_numa_node(sysfs.root(), address());
    ASSERT_FALSE(garbage.ok());
    EXPECT_NE(garbage.error().message().find("is not a node number"), std::string::npos) << garbage.error().message();
    write("bus/pci/devices/0000:19:00.0/numa_node", "2\n");  // node2 has no cpulist
    auto no_list = vfio::device_numa_node(sysfs.root(), address());
    ASSERT_FALSE(no_list.ok());
    EXPECT_NE(no_list.error().message().find("node2/cpulist"), std::string::npos) << no_list.error().message();
}

TEST(BindCallingThread, NoCpuIsAnErrorAndTheCurrentCpusBindFine) {
    auto none = vfio::bind_calling_thread({}, "GPU 0");
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message().find("no CPU to bind to"), std::string::npos);
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    std::vector<int> mine;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            mine.push_back(cpu);
    EXPECT_TRUE(vfio::bind_calling_thread(mine, "this test").ok());
}

}  // namespace
