// The qdma, card, match.device_ids and simulation.qdma fields of a design file, and the 8 QDMA
// designs of fpga_sio's table (behaviour doc section 7.2) among the built-ins.
#include <gtest/gtest.h>

#include "design_text.hpp"
#include "designs/registry.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace qdma_fields_test {

namespace {

using design_text::builtins;
using design_text::design;
using design_text::error_of;
using design_text::parse;

}  // namespace

TEST(QdmaFields, QdmaSectionParses) {
    auto d = parse(design(R"(, "qdma": {"bar": 0, "memory_base": "0x800000000", "memory_size": "0x100000000"},
                            "card": {"name": "c", "physical_function": 3},
                            "simulation": {"qdma": {"physical_functions": 4, "queues": 2048, "stream": true,
                                                    "memory_mapped": false}})"));
    ASSERT_TRUE(d.ok()) << d.error().message();
    ASSERT_TRUE(d->qdma);
    EXPECT_FALSE(d->dma_bridge);
    EXPECT_EQ(d->qdma->memory_base, 0x800000000ull);
    EXPECT_EQ(d->qdma->memory_size, 0x100000000ull);
    ASSERT_TRUE(d->card);
    EXPECT_EQ(d->card->name, "c");
    EXPECT_EQ(d->card->physical_function, 3u);
    EXPECT_EQ(d->simulation.qdma, (designs::QdmaSimulation{4, 2048, true, false}));
}

TEST(QdmaFields, BadFieldsNameTheFieldAndProblem) {
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 6})")),
              "parse design file my.json field qdma.bar: Invalid argument (value 6 is above the maximum 0x5)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "memry_size": 1})")),
              "parse design file my.json field qdma.memry_size: Invalid argument (unknown field; expected one of: "
              "bar, memory_base, memory_size, stream_routes, stream_function)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "memory_base": "0x1000"})")),
              "parse design file my.json field qdma.memory_base: Invalid argument (a memory base needs a memory_size "
              "above 0)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {})")),
              "parse design file my.json field qdma.bar: Invalid argument (missing required field)");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 0, "mode": "stream"}, "qdma": {"bar": 0})")),
              "parse design file my.json field qdma: Invalid argument (a design has a dma_bridge (XDMA) or a qdma, "
              "not both)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0}, "peripherals": [{"type": "quad_spi", "bar": 0, "offset": "0x1000"}])")),
              "parse design file my.json field peripherals[0]: Invalid argument (overlaps qdma in BAR 0)");
}

TEST(QdmaFields, BadCardAndSimulationFields) {
    EXPECT_EQ(error_of(design(R"(, "card": {"name": "c", "physical_function": 4})")),
              "parse design file my.json field card.physical_function: Invalid argument (value 4 is above the "
              "maximum 0x3)");
    EXPECT_EQ(error_of(design(R"(, "card": {"name": "", "physical_function": 0})")),
              "parse design file my.json field card.name: Invalid argument (a card name must not be empty)");
    EXPECT_EQ(error_of(design(R"(, "card": {"physical_function": 0})")),
              "parse design file my.json field card.name: Invalid argument (missing required field)");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"qdma": {"physical_functions": 0}})")),
              "parse design file my.json field simulation.qdma.physical_functions: Invalid argument (must be 1..4)");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"qdma": {"queues": 4096}})")),
              "parse design file my.json field simulation.qdma.queues: Invalid argument (value 4096 is above the "
              "maximum 0x800)");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"qdma": {"queues": 0}})")),
              "parse design file my.json field simulation.qdma.queues: Invalid argument (must be 1..2048)");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"qdma": {"stream": 1}})")),
              "parse design file my.json field simulation.qdma.stream: Invalid argument (expected true or false (got 1))");
}

TEST(QdmaFields, DeviceIdsMatchEachId) {
    const std::string text = R"({"name": "d", "match": {"device_ids": ["0x903f", "0x913f"],
        "subsystem_vendor_id": "0x10ee", "subsystem_device_id": "0x0007"}})";
    auto d = parse(text);
    ASSERT_TRUE(d.ok()) << d.error().message();
    vfio::DeviceIdentity id;
    id.vendor_id = 0x10ee;
    id.subsystem_vendor_id = 0x10ee;
    id.subsystem_device_id = 0x0007;
    for (uint16_t device : {0x903f, 0x913f}) {
        id.device_id = device;
        EXPECT_TRUE(d->match.matches(id)) << std::hex << device;
    }
    id.device_id = 0x9038;
    EXPECT_FALSE(d->match.matches(id));
    const char* problem = "Invalid argument (expected a non-empty array of device IDs, and no device_id beside it)";
    EXPECT_EQ(error_of(R"({"name": "d", "match": {"device_ids": []}})"),
              std::string("parse design file my.json field match.device_ids: ") + problem);
    EXPECT_EQ(error_of(R"({"name": "d", "match": {"device_id": 1, "device_ids": [2]}})"),
              std::string("parse design file my.json field match.device_ids: ") + problem);
    EXPECT_EQ(error_of(R"({"name": "d", "match": {"device_ids": ["0x1", "0x10000"]}})"),
              "parse design file my.json field match.device_ids[1]: Invalid argument (value 65536 is above the "
              "maximum 0xffff)");
}

// fpga_sio's 8 QDMA designs (behaviour doc section 7.2).
TEST(QdmaFields, BuiltinQdmaDesigns) {
    const designs::Registry registry = builtins();
    size_t qdma_designs = 0;
    for (const designs::Design& d : registry.designs()) {
        qdma_designs += d.qdma.has_value();
        EXPECT_FALSE(d.qdma && d.dma_bridge) << d.name;
    }
    EXPECT_EQ(qdma_designs, 8u);
    for (unsigned pf = 0; pf < 4; ++pf) {
        const designs::Design* d = registry.find("XCKU5P_DUAL_QSFP_qdma_ram_PF" + std::to_string(pf));
        ASSERT_NE(d, nullptr) << pf;
        EXPECT_EQ(d->match.subsystem_device_id, 0x000c + pf);
        ASSERT_TRUE(d->card);
        EXPECT_EQ(d->card->name, "XCKU5P_DUAL_QSFP_qdma_ram");
        EXPECT_EQ(d->card->physical_function, pf);
        EXPECT_EQ(d->qdma->memory_size, pf == 0 ? 0x200000u : 0u) << "PF0 describes the 2 MiB";
        EXPECT_EQ(d->peripherals.size(), pf == 3 ? 0u : 1u) << "PF3's UART is not described";
    }
    const designs::Design* vd100 = registry.find("VD100_qdma_ddr4");
    ASSERT_NE(vd100, nullptr);
    EXPECT_EQ(vd100->match.subsystem_device_id, 0x0024);
    EXPECT_EQ(vd100->qdma->memory_base, 0x800000000ull);
    EXPECT_EQ(vd100->qdma->memory_size, 4ull << 30);
    const designs::Design* u200 = registry.find("U200_qdma_ram");
    ASSERT_NE(u200, nullptr);
    EXPECT_EQ(u200->match.subsystem_device_id, 0x0025);
    EXPECT_EQ(u200->qdma->memory_size, 8ull << 20);
    const designs::Design* as02 = registry.find("AS02MC04_qdma_enum");
    ASSERT_NE(as02, nullptr);
    EXPECT_EQ(as02->match.subsystem_device_id, 0x002a);
    EXPECT_EQ(as02->qdma->memory_size, 0u);
    const designs::Design* nic = registry.find("open-nic");
    ASSERT_NE(nic, nullptr);
    EXPECT_EQ(nic->match.device_id, 0x903f);
    EXPECT_EQ(nic->match.more_device_ids, std::vector<uint16_t>{0x913f});
    ASSERT_EQ(nic->peripherals.size(), 5u) << "SYSMON, CMS, Quad SPI and the two CMAC ports";
    EXPECT_EQ(nic->peripherals[0].type, designs::PeripheralType::Sysmon);
    EXPECT_EQ(nic->peripherals[0].sysmon_slaves, 2u);
    EXPECT_EQ(nic->peripherals[1].offset, 0x300000u);
    EXPECT_EQ(nic->peripherals[2].offset, 0x340000u);
    EXPECT_EQ(nic->peripherals[3].type, designs::PeripheralType::Cmac);
    EXPECT_EQ(nic->peripherals[3].offset, 0x8000u);
    EXPECT_EQ(nic->peripherals[4].offset, 0xC000u);
}

// qdma.stream_routes / stream_function: what the fabric does between the stream queues.
TEST(QdmaFields, StreamRoutesParse) {
    auto d = parse(design(R"(, "qdma": {"bar": 0, "stream_routes": [{"h2c": 0, "c2h": 1}, {"h2c": "0x1", "c2h": 0}],
                                       "stream_function": "loopback"})"));
    ASSERT_TRUE(d.ok()) << d.error().message();
    EXPECT_EQ(d->qdma->stream_routes, (std::vector<designs::QdmaStreamRoute>{{0, 1}, {1, 0}}));
    EXPECT_EQ(d->qdma->stream_function, designs::StreamFunction::Loopback);
    auto none = parse(design(R"(, "qdma": {"bar": 0})"));
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->qdma->stream_routes.empty());
}

TEST(QdmaFields, BadStreamRoutesNameTheFieldAndProblem) {
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_routes": {"h2c": 0, "c2h": 0}})")),
              "parse design file my.json field qdma.stream_routes: Invalid argument (expected an array of {\"h2c\": "
              "queue, \"c2h\": queue})");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_routes": []})")),
              "parse design file my.json field qdma.stream_routes: Invalid argument (an empty list; leave the field out "
              "when no H2C queue comes back on a C2H queue)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_routes": [{"h2c": 0}]})")),
              "parse design file my.json field qdma.stream_routes[0].c2h: Invalid argument (missing required field)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_routes": [{"h2c": 2048, "c2h": 0}]})")),
              "parse design file my.json field qdma.stream_routes[0].h2c: Invalid argument (value 2048 is above the "
              "maximum 0x7ff)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_routes": [{"h2c": 0, "c2h": 0, "tdest": 1}]})")),
              "parse design file my.json field qdma.stream_routes[0].tdest: Invalid argument (unknown field; expected "
              "one of: h2c, c2h)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_routes": [{"h2c": 0, "c2h": 3}, {"h2c": 1, "c2h": 3}]})")),
              "parse design file my.json field qdma.stream_routes[1].c2h: Invalid argument (C2H stream queue 3 is "
              "routed twice)");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_function": "loopback"})")),
              "parse design file my.json field qdma.stream_function: Invalid argument (a stream function needs "
              "stream_routes (the queues it joins))");
    EXPECT_EQ(error_of(design(R"(, "qdma": {"bar": 0, "stream_routes": [{"h2c": 0, "c2h": 0}], "stream_function": "crc64"})")),
              "parse design file my.json field qdma.stream_function: Invalid argument (expected \"loopback\" (got "
              "\"crc64\"): the only function the stream tools verify on QDMA queues)");
}

// open-nic's H2C goes to the CMAC, not back to C2H: the built-in must not claim a route.
TEST(QdmaFields, NoBuiltInClaimsAQdmaLoopback) {
    const designs::Registry registry = builtins();
    for (const designs::Design& d : registry.designs())
        EXPECT_TRUE(!d.qdma || d.qdma->stream_routes.empty()) << d.name;
}

// The example users copy (docs/examples/qdma_stream_loopback.json) parses, with its routes.
TEST(QdmaFields, ExampleStreamLoopbackDesignFileParses) {
    auto registry = designs::Registry::load({std::string(PDT_SOURCE_DIR) + "/docs/examples/qdma_stream_loopback.json"});
    ASSERT_TRUE(registry.ok()) << registry.error().message();
    const designs::Design* d = registry->find("qdma_stream_loopback_example");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->qdma->stream_routes, (std::vector<designs::QdmaStreamRoute>{{0, 0}, {1, 1}}));
    EXPECT_TRUE(d->simulation.qdma.stream);
}

}  // namespace qdma_fields_test
