// Malformed design files: every error names the file, the field and the problem.
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>

#include "design_text.hpp"
#include "designs/registry.hpp"

namespace {

using design_text::design;
using design_text::kMatch;

// The error message of adding `text` as file "my.json" to an empty registry.
std::string error_of(const std::string& text) {
    auto added = design_text::registry_of(text);
    if (added.ok())
        return "(no error)";
    EXPECT_EQ(added.error().operation, "parse design file");
    return added.error().message();
}

// A design's body (what follows its match) whose error names a field: `part` is in the error
// of adding design(body).
struct BodyError {
    std::string name;  // the test's name
    std::string body, part;
};

// Test names and failures show the body, not its bytes.
void PrintTo(const BodyError& c, std::ostream* out) { *out << c.body; }

const BodyError kBodyErrors[] = {
    // display_name: one line of text, not empty.
    {"DisplayNameEmpty", R"(, "display_name": "")", "field display_name"},
    {"DisplayNameTwoLines", R"(, "display_name": "two\nlines")", "field display_name"},
    {"DisplayNameNotAString", R"(, "display_name": 3)", "field display_name: Invalid argument (expected a string"},
    // The DMA bridge's fields.
    {"MemoryMappedWithoutMemorySize", R"(, "dma_bridge": {"bar": 2, "mode": "memory_mapped"})",
     "field dma_bridge.memory_size: Invalid argument (missing required field)"},
    {"StreamWithMemorySize", R"(, "dma_bridge": {"bar": 2, "mode": "stream", "memory_size": 4096})",
     "field dma_bridge.memory_size: Invalid argument (only a memory_mapped DMA bridge has card memory)"},
    {"TooManyH2cChannels", R"(, "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 5})",
     "field dma_bridge.h2c_channels"},
    // A peripheral's problem names its array element.
    {"UnknownPeripheralType",
     R"(, "peripherals": [{"type": "quad_spi", "bar": 0, "offset": 0},
                          {"type": "flux_capacitor", "bar": 0, "offset": 4096}])",
     "field peripherals[1].type: Invalid argument (unknown peripheral type \"flux_capacitor\""},
    {"UnalignedPeripheral", R"(, "peripherals": [{"type": "xadc", "bar": 0, "offset": "0x1002"}])",
     "field peripherals[0].offset: Invalid argument (must be a multiple of 4"},
    {"XadcWithMasterPorts", R"(, "peripherals": [{"type": "xadc", "bar": 0, "offset": 0, "master_ports": 2}])",
     "field peripherals[0].master_ports: Invalid argument (unknown field"},
    {"SwitchRouteToAMissingMaster",
     R"(, "peripherals": [{"type": "axi_stream_switch", "bar": 0, "offset": 0,
                           "master_ports": 2, "slave_ports": 2,
                           "default_routes": [{"master": 2, "slave": 0}]}])",
     "field peripherals[0].default_routes[0].master: Invalid argument (value 2 is above the maximum 0x1)"},
    {"OverlappingPeripherals",
     R"(, "peripherals": [{"type": "quad_spi", "bar": 0, "offset": 0},
                          {"type": "xadc", "bar": 0, "offset": "0x40"}])",
     "field peripherals[1]: Invalid argument (overlaps peripherals[0] in BAR 0)"},
    // A CMS spans 256 KiB (PG348 Addressing): a peripheral inside that span overlaps it.
    {"PeripheralInsideACms",
     R"(, "peripherals": [{"type": "cms", "bar": 0, "offset": 0},
                          {"type": "quad_spi", "bar": 0, "offset": "0x3ff00"}])",
     "field peripherals[1]: Invalid argument (overlaps peripherals[0] in BAR 0)"},
    {"CmsWithSlaves", R"(, "peripherals": [{"type": "cms", "bar": 0, "offset": 0, "slaves": 2}])",
     "field peripherals[0].slaves: Invalid argument (unknown field"},
    // Only a SYSMON has a primitive.
    {"XadcWithAPrimitive", R"(, "peripherals": [{"type": "xadc", "bar": 0, "offset": 0, "primitive": "SYSMONE4"}])",
     "field peripherals[0].primitive: Invalid argument (unknown field"},
    // The simulation section.
    {"BarSizeNotAPowerOfTwo", R"(, "simulation": {"bar_sizes": {"0": "0x3000"}})",
     "field simulation.bar_sizes.0: Invalid argument (a BAR size is a power of two"},
    {"BarIndexOutOfRange", R"(, "simulation": {"bar_sizes": {"7": 4096}})",
     "field simulation.bar_sizes.7: Invalid argument (BAR index must be"},
    {"SwitchImplementedNotABoolean", R"(, "simulation": {"axi_stream_switch_implemented": "no"})",
     "field simulation.axi_stream_switch_implemented: Invalid argument (expected true or false)"},
    // The simulated BAR memory.
    {"BarMemoryUnaligned", R"(, "simulation": {"bar_memory": [{"bar": 0, "offset": 4, "size": 64}]})",
     "field simulation.bar_memory[0].offset: Invalid argument (must be a multiple of 8"},
    {"BarMemorySizeNotEightBytes", R"(, "simulation": {"bar_memory": [{"bar": 0, "offset": 0, "size": 12}]})",
     "field simulation.bar_memory[0].size: Invalid argument (must be a multiple of 8 bytes, at least 8)"},
    {"BarMemoryEmpty", R"(, "simulation": {"bar_memory": [{"bar": 0, "offset": 0, "size": 0}]})",
     "simulation.bar_memory[0].size"},
    {"BarMemoryUnknownField", R"(, "simulation": {"bar_memory": [{"bar": 0, "offset": 0, "size": 8, "speed": 1}]})",
     "simulation.bar_memory[0]"},
    {"BarMemoryOverlappingAPeripheral",
     R"(, "peripherals": [{"type": "iic", "bar": 0, "offset": "0x0"}],)"
     R"( "simulation": {"bar_memory": [{"bar": 0, "offset": "0x100", "size": 64}]})",
     "simulation.bar_memory[0]: Invalid argument (overlaps peripherals[0] in BAR 0)"},
};

class DesignBodyErrors : public testing::TestWithParam<BodyError> {};

}  // namespace

TEST_P(DesignBodyErrors, ErrorNamesTheField) {
    const std::string message = error_of(design(GetParam().body));
    EXPECT_NE(message.find(GetParam().part), std::string::npos)
        << "the error: " << message << "\ndoes not hold: " << GetParam().part;
}

INSTANTIATE_TEST_SUITE_P(DesignFileErrors, DesignBodyErrors, testing::ValuesIn(kBodyErrors),
                         [](const testing::TestParamInfo<BodyError>& info) { return info.param.name; });

TEST(DesignFileErrors, InvalidJsonNamesFileAndPosition) {
    const std::string message = error_of("{\n  \"name\": \"x\",\n  oops\n}");
    EXPECT_NE(message.find("my.json"), std::string::npos) << message;
    EXPECT_NE(message.find("invalid JSON at line 3"), std::string::npos) << message;
}

// Fuzz regression (fuzz/regressions/fuzz_design_data/number_overflow): nlohmann's parser throws
// out_of_range, not parse_error, for a number beyond a double; it escaped and terminated the tool.
TEST(DesignFileErrors, NumberOverflowIsAnErrorNotACrash) {
    EXPECT_EQ(error_of("\n65e666"),
              "parse design file my.json: Invalid argument (invalid JSON: number overflow parsing '65e666')");
    EXPECT_EQ(error_of(design(R"(, "description": 1e400)")),
              "parse design file my.json: Invalid argument (invalid JSON: number overflow parsing '1e400')");
}

TEST(DesignFileErrors, MissingRequiredField) {
    EXPECT_EQ(error_of(R"({"name": "d", "match": {"subsystem_vendor_id": 2}})"),
              "parse design file my.json field match.subsystem_device_id: Invalid argument (missing required field)");
    EXPECT_EQ(error_of(R"({"match": {}})"), "parse design file my.json field name: Invalid argument (missing required field)");
    EXPECT_EQ(error_of(R"({"name": "d"})"), "parse design file my.json field match: Invalid argument (missing required field)");
}

TEST(DesignFileErrors, WrongTypesAndValues) {
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": "two", "mode": "stream"})")),
              "parse design file my.json field dma_bridge.bar: Invalid argument (expected a number such as 0x2000 or "
              "8192 (got \"two\"))");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 6, "mode": "stream"})")),
              "parse design file my.json field dma_bridge.bar: Invalid argument (value 6 is above the maximum 0x5)");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": -1, "mode": "stream"})")),
              "parse design file my.json field dma_bridge.bar: Invalid argument (must not be negative (got -1))");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 2, "mode": "streaming"})")),
              "parse design file my.json field dma_bridge.mode: Invalid argument (expected \"stream\" or "
              "\"memory_mapped\" (got \"streaming\"))");
    EXPECT_NE(error_of(R"({"name": "bad name!", "match": {}})").find("field name"), std::string::npos);
}

TEST(DesignFileErrors, UnknownFieldIsReportedNotIgnored) {
    const std::string message = error_of(design(R"(, "dma_brdge": {"bar": 2})"));
    EXPECT_NE(message.find("field dma_brdge: Invalid argument (unknown field; expected one of: name, display_name, "
                           "description, match, dma_bridge, qdma, card, peripherals, simulation, version_register, "
                           "fpga_part)"),
              std::string::npos)
        << message;
}

// display_name is optional: the name printed in text, defaulting to the key; one line of text.
TEST(DesignFileErrors, DisplayNameDefaultsToTheNameAndIsOneLine) {
    designs::Registry registry;
    ASSERT_TRUE(registry.add_text(design(""), "a.json"));
    EXPECT_EQ(registry.find("d")->display_name, "d");
    EXPECT_EQ(registry.find("d")->text_name(), "d");
    ASSERT_TRUE(registry.add_text(R"({"name": "e", "display_name": "e (board X) or f", )" + std::string(kMatch) + "}",
                                  "b.json"));
    EXPECT_EQ(registry.find("e")->display_name, "e (board X) or f");
    EXPECT_EQ(registry.find("e (board X) or f"), nullptr);  // the key stays the name
}  // its errors: DisplayName* in kBodyErrors

TEST(DesignFileErrors, QuadSpiAndPartFields) {
    const std::string qspi = R"(, "peripherals": [{"type": "quad_spi", "bar": 0, "offset": "0x0", )";
    EXPECT_NE(error_of(design(qspi + R"("spi_mode": "dual"}])")).find("expected \"standard\" or \"quad\""),
              std::string::npos);
    EXPECT_NE(error_of(design(qspi + R"("fifo_depth": 64}])")).find("16 or 256"), std::string::npos);
    designs::Registry registry;
    ASSERT_TRUE(registry.add_text(design(qspi + R"("spi_mode": "quad", "fifo_depth": 16, "flash": "mx25l51245g"}], )"
                                         R"("fpga_part": "xcku5p")"),
                                  "my.json"));
    const designs::Design& d = *registry.find("d");
    EXPECT_TRUE(d.peripherals[0].quad_spi_mode);
    EXPECT_EQ(d.peripherals[0].fifo_depth, 16u);
    EXPECT_EQ(d.peripherals[0].flash, "mx25l51245g");
    EXPECT_EQ(d.fpga_part, "xcku5p");
}

// The SYSMON primitive (UG580: SYSMONE1 UltraScale, SYSMONE4 UltraScale+) is spelt as the
// primitive is named; only a SYSMON has one; the slaves each add 0x800 bytes to its frame.
TEST(DesignFileErrors, SysmonPrimitiveAndSlaves) {
    EXPECT_EQ(error_of(design(R"(, "peripherals": [{"type": "sysmon", "bar": 0, "offset": 0, "primitive": "SYSMONE2"}])")),
              "parse design file my.json field peripherals[0].primitive: Invalid argument (expected \"SYSMONE1\" "
              "(UltraScale) or \"SYSMONE4\" (UltraScale+) (got \"SYSMONE2\"))");
    EXPECT_EQ(error_of(design(R"(, "peripherals": [{"type": "sysmon", "bar": 0, "offset": 0, "primitive": 4}])")),
              "parse design file my.json field peripherals[0].primitive: Invalid argument (expected a string (got 4))");
    // S(2) at 0 spans 0x1800 bytes: a Quad SPI at 0x1000 overlaps it, one at 0x1800 does not.
    EXPECT_EQ(error_of(design(R"(, "peripherals": [{"type": "sysmon", "bar": 0, "offset": 0, "slaves": 2},
                                                  {"type": "quad_spi", "bar": 0, "offset": "0x1000"}])")),
              "parse design file my.json field peripherals[1]: Invalid argument (overlaps peripherals[0] in BAR 0)");
    designs::Registry registry;
    ASSERT_TRUE(registry
                    .add_text(design(R"(, "peripherals": [{"type": "sysmon", "bar": 0, "offset": 0, "slaves": 2,
                                                           "primitive": "SYSMONE1"},
                                                          {"type": "quad_spi", "bar": 0, "offset": "0x1800"},
                                                          {"type": "sysmon", "bar": 1, "offset": 0}])"),
                              "my.json")
                    .ok());
    const designs::Design& d = *registry.find("d");
    EXPECT_EQ(d.peripherals[0].sysmon_primitive, designs::SysmonPrimitive::Sysmone1);
    EXPECT_EQ(d.peripherals[0].frame_size(), 0x1800u);
    EXPECT_EQ(d.peripherals[2].sysmon_primitive, designs::SysmonPrimitive::Sysmone4) << "the default";
    EXPECT_EQ(d.peripherals[2].frame_size(), 0x800u) << "DRP 00h..FFh at 0x400..0x7FF (PG185)";
}

TEST(DesignFileErrors, ArrayElementsAndDuplicates) {
    EXPECT_EQ(error_of("[]"), "parse design file my.json: Invalid argument (the array holds no designs)");
    EXPECT_NE(error_of("[" + design("") + ", 3]").find("field [1]: Invalid argument (expected a design object"),
              std::string::npos);
    EXPECT_NE(error_of("[" + design("") + ", {\"name\": \"e\", \"match\": {\"subsystem_vendor_id\": 1}}]")
                  .find("field [1].match.subsystem_device_id"),
              std::string::npos);
    const std::string duplicate = error_of("[" + design("") + ", " + design("") + "]");
    EXPECT_NE(duplicate.find("design \"d\" is already defined in my.json"), std::string::npos) << duplicate;
}

TEST(DesignFileErrors, UnreadableFileAndLoadStopsAtTheBadFile) {
    auto missing = designs::Registry::load({"/nonexistent/dir/my.json"});
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENOENT);
    EXPECT_EQ(missing.error().message(),
              "open design file /nonexistent/dir/my.json: No such file or directory (the design file must be a "
              "readable JSON file)");
    const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_pdt_bad_design.json";
    std::ofstream(path) << design(R"(, "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 9})");
    auto bad = designs::Registry::load({path});
    std::remove(path.c_str());
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().object, path + " field dma_bridge.h2c_channels");
}

TEST(DesignFileErrors, StreamFunctionAndFifoDepth) {
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 2, "mode": "stream", "stream_function": "echo"})")),
              "parse design file my.json field dma_bridge.stream_function: Invalid argument (expected \"loopback\", "
              "\"crc64\" or \"fixed_data\" (got \"echo\"))");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 2, "mode": "stream", "stream_function": "crc64"})")),
              "parse design file my.json field dma_bridge.stream_function: Invalid argument (crc64 needs "
              "stream_tdata_bytes, a multiple of 8 (the CRC takes 64-bit words))");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 2, "mode": "memory_mapped", "memory_size": 4096,)"
                              R"( "stream_function": "loopback"})")),
              "parse design file my.json field dma_bridge.stream_function: Invalid argument (only a stream DMA bridge "
              "has a stream function)");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"stream_fifo_bytes": 16})")),
              "parse design file my.json field simulation.stream_fifo_bytes: Invalid argument (must be at least 64 "
              "bytes (one tdata beat of the widest stream))");
    designs::Registry registry;
    ASSERT_TRUE(registry.add_text(design(R"(, "dma_bridge": {"bar": 2, "mode": "stream", "stream_tdata_bytes": 32,)"
                                         R"( "stream_function": "crc64"}, "simulation": {"stream_fifo_bytes": 4096})"),
                                  "my.json")
                    .ok());
    const designs::Design* d = registry.find("d");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->dma_bridge->stream_function, designs::StreamFunction::Crc64);
    EXPECT_EQ(d->simulation.stream_fifo_bytes, 4096u);
}

// The content match, board version register and simulated constant registers (Project-0).
TEST(DesignFileErrors, RegisterFieldsAreCheckedAndRead) {
    designs::Registry registry;
    ASSERT_TRUE(registry
                    .add_text(R"({"name": "p0", "match": {"device_id": "0x7011", "subsystem_vendor_id": 0,
                        "subsystem_device_id": 0, "register": {"bar": 0, "offset": "0x0", "value": "0x4c495445"}},
                        "version_register": {"bar": 0, "offset": "0x8"},
                        "simulation": {"registers": [{"bar": 0, "offset": "0x8", "value": 3}]}})",
                              "p0.json")
                    .ok());
    const designs::Design& d = *registry.find("p0");
    ASSERT_TRUE(d.match.register_value.has_value());
    EXPECT_EQ(d.match.register_value->value, 0x4c495445u);
    ASSERT_TRUE(d.version_register.has_value());
    EXPECT_EQ(d.version_register->offset, 8u);
    ASSERT_EQ(d.simulation.registers.size(), 1u);
    EXPECT_EQ(d.simulation.registers[0].value, 3u);

    const std::string match = R"({"name": "d", "match": {"subsystem_vendor_id": 2, "subsystem_device_id": 1, )";
    EXPECT_EQ(error_of(match + R"("register": {"bar": 0, "offset": "0x2", "value": 1}}})"),
              "parse design file my.json field match.register.offset: Invalid argument (must be a multiple of 4 (32-bit "
              "registers))");
    EXPECT_EQ(error_of(match + R"("register": {"bar": 0, "offset": 0}}})"),
              "parse design file my.json field match.register.value: Invalid argument (missing required field)");
    EXPECT_EQ(error_of(design(R"(, "version_register": {"bar": 0, "offset": 8, "value": 1})")),
              "parse design file my.json field version_register.value: Invalid argument (unknown field; expected one "
              "of: bar, offset)");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"registers": {"bar": 0}})")),
              "parse design file my.json field simulation.registers: Invalid argument (expected an array of {bar, "
              "offset, value})");
}

TEST(DesignFileErrors, CandidatesListEveryDesignOfSharedIds) {
    const designs::Registry registry = designs::Registry::builtin().value();
    vfio::DeviceIdentity fury;
    fury.vendor_id = 0x10ee;
    fury.device_id = 0x7011;
    fury.subsystem_vendor_id = 0;
    fury.subsystem_device_id = 0;
    const auto candidates = registry.candidates(fury);
    ASSERT_EQ(candidates.size(), 2u);
    EXPECT_EQ(candidates[0]->name, "Litefury_Project-0");
    EXPECT_EQ(candidates[1]->name, "Nitefury_Project-0");
    fury.device_id = 0x7012;
    EXPECT_TRUE(registry.candidates(fury).empty());
}
