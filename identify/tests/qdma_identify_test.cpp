// QDMA identification (identify/src/qdma.cpp) of fpga_sio's 8 QDMA designs through simulated
// instances: fpga_sio's QDMA lines in text and JSON, the tool's output, and the failure paths.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "identify/identify.hpp"
#include "sim/design_sim.hpp"
#include "sim/qdma_model.hpp"
#include "test_support/run_process.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace qdma_identify_test {

namespace {

const designs::Registry& registry() {
    static const designs::Registry r = designs::Registry::builtin().value();
    return r;
}

// What each QDMA design's simulated IP reports (its design file's simulation.qdma).
struct Expected {
    std::string name;
    std::string card_line;    // "" unless a physical function of a card
    std::string memory_line;  // "" when no memory is described
    unsigned pfs, queues;
    bool st, mm;
};

const std::vector<Expected> kQdmaDesigns = {
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF0", "  Card XCKU5P_DUAL_QSFP_qdma_ram physical function 0\n",
     "  QDMA bar 0 memory base offset 0x0 size 0x200000\n", 4, 512, false, true},
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF1", "  Card XCKU5P_DUAL_QSFP_qdma_ram physical function 1\n", "", 4, 512, false, true},
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF2", "  Card XCKU5P_DUAL_QSFP_qdma_ram physical function 2\n", "", 4, 512, false, true},
    // PF3's UART is not described: no AXI4-Lite BAR in the description, so no PF maps one.
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF3", "  Card XCKU5P_DUAL_QSFP_qdma_ram physical function 3\n", "", 0, 512, false, true},
    {"U200_qdma_ram", "", "  QDMA bar 0 memory base offset 0x0 size 0x800000\n", 1, 512, false, true},
    {"VD100_qdma_ddr4", "", "  QDMA bar 0 memory base offset 0x800000000 size 0x100000000\n", 0, 512, false, true},
    {"AS02MC04_qdma_enum", "", "", 1, 512, false, true},
    {"open-nic", "", "", 1, 2048, true, false},
};

std::string yes_no(bool value) { return value ? "yes" : "no"; }

// fpga_sio's QDMA lines (display_qdma), as identify prints them (indented by 2).
std::string qdma_lines(const Expected& e) {
    return e.memory_line +
           "  rtl_version                      : RTL Base\n"
           "  vivado_release                   : vivado 2022.1\n"
           "  ip_type                          : EQDMA5.0 Soft IP\n"
           "  device_type                      : Soft IP\n"
           "  Number of PFs supported          : " + std::to_string(e.pfs) + "\n"
           "  Total number of queues supported : " + std::to_string(e.queues) + "\n"
           "  MM channels                      : 1\n"
           "  FLR Present                      : yes\n"
           "  ST enabled                       : " + yes_no(e.st) + "\n"
           "  MM enabled                       : " + yes_no(e.mm) + "\n"
           "  Mailbox enabled                  : no\n"
           "  MM completion enabled            : no\n"
           "  Debug Mode enabled               : no\n"
           "  Desc Engine Mode                 : Internal and Bypass mode\n";
}

identify::IdentifiedDesign identify_sim(const std::string& name) {
    auto bus = sim::make_design_bus({name}, registry());
    EXPECT_TRUE(bus.ok()) << bus.error().message();
    auto found = identify::identify_designs(**bus, registry(), {});
    EXPECT_TRUE(found.ok()) << found.error().message();
    EXPECT_EQ(found->designs.size(), 1u) << name;
    return std::move(found->designs.at(0));
}

test_support::Outcome run_tool(const std::string& args) {
    test_support::RunOptions options;
    options.stderr_to = test_support::Stderr::separate;
    return test_support::run_process(PDT_IDENTIFY_TOOL, test_support::words(args), options);
}

}  // namespace

TEST(QdmaIdentify, TextLinesOfEachQdmaDesign) {
    for (const Expected& e : kQdmaDesigns) {
        const identify::IdentifiedDesign d = identify_sim(e.name);
        EXPECT_TRUE(d.warnings.empty()) << e.name << ": " << d.warnings.front();
        const std::string expected = "\nDesign " + registry().find(e.name)->text_name() +
                                     ":\n  PCI device 0000:15:00.0 rev 00 IOMMU group 41\n" + e.card_line + qdma_lines(e);
        const std::string text = identify::format_text(d);
        EXPECT_EQ(text.substr(0, expected.size()), expected) << text;
    }
}

TEST(QdmaIdentify, JsonOfEachQdmaDesign) {
    for (const Expected& e : kQdmaDesigns) {
        std::vector<identify::IdentifiedDesign> list;
        list.push_back(identify_sim(e.name));
        const auto j = nlohmann::json::parse(identify::format_json(list))["designs"][0];
        ASSERT_TRUE(j.contains("qdma")) << e.name;
        const auto& q = j["qdma"];
        EXPECT_EQ(q["bar"], 0) << e.name;
        EXPECT_EQ(q.contains("memory_size"), !e.memory_line.empty()) << e.name;
        EXPECT_EQ(q["rtl_version"], "RTL Base");
        EXPECT_EQ(q["vivado_release"], "vivado 2022.1");
        EXPECT_EQ(q["ip_type"], "EQDMA5.0 Soft IP");
        EXPECT_EQ(q["device_type"], "Soft IP");
        const auto& c = q["capabilities"];
        EXPECT_EQ(c["num_pfs"], e.pfs) << e.name;
        EXPECT_EQ(c["num_queues"], e.queues) << e.name;
        EXPECT_EQ(c["st_enabled"], e.st) << e.name;
        EXPECT_EQ(c["mm_enabled"], e.mm) << e.name;
        EXPECT_EQ(c["desc_engine_mode"], "Internal and Bypass mode");
        EXPECT_EQ(j.contains("card"), !e.card_line.empty()) << e.name;
        EXPECT_FALSE(j.contains("dma_bridge")) << e.name;
    }
    std::vector<identify::IdentifiedDesign> list;
    list.push_back(identify_sim("VD100_qdma_ddr4"));
    const auto q = nlohmann::json::parse(identify::format_json(list))["designs"][0]["qdma"];
    EXPECT_EQ(q["memory_base"], "0x800000000");
    EXPECT_EQ(q["memory_size"], "0x100000000");
    list.clear();
    list.push_back(identify_sim("XCKU5P_DUAL_QSFP_qdma_ram_PF2"));
    const auto card = nlohmann::json::parse(identify::format_json(list))["designs"][0]["card"];
    EXPECT_EQ(card["name"], "XCKU5P_DUAL_QSFP_qdma_ram");
    EXPECT_EQ(card["physical_function"], 2);
}

TEST(QdmaIdentify, ToolPrintsTheQdmaLines) {
    std::string args;
    for (const Expected& e : kQdmaDesigns)
        args += " --sim_design " + e.name;
    const auto text = run_tool(args);
    EXPECT_EQ(text.exit_code, 0) << text.err;
    for (const Expected& e : kQdmaDesigns)
        EXPECT_NE(text.output.find("\nDesign " + registry().find(e.name)->text_name() + ":\n"), std::string::npos)
            << e.name;
    EXPECT_NE(text.output.find(qdma_lines(kQdmaDesigns.back())), std::string::npos) << text.output;
    const auto json = run_tool(args + " --json");
    EXPECT_EQ(json.exit_code, 0) << json.err;
    const auto designs = nlohmann::json::parse(json.output)["designs"];
    ASSERT_EQ(designs.size(), kQdmaDesigns.size());
    for (size_t i = 0; i < designs.size(); ++i)
        EXPECT_EQ(designs[i]["qdma"]["ip_type"], "EQDMA5.0 Soft IP") << kQdmaDesigns[i].name;
}

// A device whose QDMA BAR holds something else: no QDMA lines, a warning naming the identifier.
TEST(QdmaIdentify, IdentifierMismatchIsAWarning) {
    const designs::Design* qdma_design = registry().find("U200_qdma_ram");
    const designs::Design* other = registry().find("U200_enum");  // BAR0: the user-access timestamp
    sim::DesignInstance made =
        sim::instantiate_design(*other, sim::simulated_identity(*other, sim::simulated_address(0), 41), true).value();
    auto d = identify::identify_device(*made.device, *qdma_design);
    ASSERT_TRUE(d.ok()) << d.error().message();
    EXPECT_FALSE(d->qdma);
    ASSERT_EQ(d->warnings.size(), 2u) << "and U200_qdma_ram's timestamp in BAR2, which U200_enum lacks";
    EXPECT_EQ(d->warnings[1].rfind("User access build timestamp at bar 2 offset 0x0 absent", 0), 0u) << d->warnings[1];
    EXPECT_EQ(d->warnings[0], "QDMA absent: identify QDMA bar 0: No such device (config block identifier 0x8b00000 "
                              "is not the QDMA's 0x1fd3)");
    EXPECT_EQ(identify::format_text(*d).find("rtl_version"), std::string::npos);
}

TEST(QdmaIdentify, MissingBarIsAWarning) {
    designs::Design design = *registry().find("U200_qdma_ram");
    design.qdma->bar = 4;  // the simulated device has BARs 0 and 2 only
    sim::DesignInstance made = sim::instantiate_design(*registry().find("U200_qdma_ram"),
                                                       sim::simulated_identity(design, sim::simulated_address(0), 41), true)
                                   .value();
    auto d = identify::identify_device(*made.device, design);
    ASSERT_TRUE(d.ok()) << d.error().message();
    EXPECT_FALSE(d->qdma);
    ASSERT_EQ(d->warnings.size(), 1u);
    EXPECT_EQ(d->warnings[0].rfind("QDMA absent: ", 0), 0u) << d->warnings[0];
}

// An IP whose capability layout identify does not know (QDMA 3.1 soft IP: MISC_CAP IP type 0):
// the version lines only, and a warning.
TEST(QdmaIdentify, UnsupportedIpShowsTheVersionOnly) {
    const designs::Design& design = *registry().find("AS02MC04_qdma_enum");
    std::vector<uint32_t> words(sim::qdma_csr::GLBL2_MISC_CAP / 4 + 1, 0);
    words[0] = sim::qdma_csr::QDMA_IDENTIFIER << 16;
    words[sim::qdma_csr::GLBL2_MISC_CAP / 4] = 1u << 24 | 1u << 16;  // Vivado release 1, RTL patch
    auto bar = std::make_shared<sim::SimBar>(0x40000);
    bar->add_block(0, words.size() * 4, sim::make_constant_block(words));
    sim::SimDevice device(sim::simulated_identity(design, sim::simulated_address(0), 41), {bar});
    auto d = identify::identify_device(device, design);
    ASSERT_TRUE(d.ok()) << d.error().message();
    ASSERT_TRUE(d->qdma);
    EXPECT_FALSE(d->qdma->supported);
    EXPECT_EQ(d->qdma->ip_type, "QDMA Soft IP");
    EXPECT_EQ(d->qdma->vivado_release, "vivado 2019.1");
    EXPECT_EQ(d->qdma->rtl_version, "RTL Patch");
    const std::string text = identify::format_text(*d);
    EXPECT_NE(text.find("  device_type                      : Soft IP\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("Number of PFs supported"), std::string::npos) << text;
    ASSERT_FALSE(d->warnings.empty());
    EXPECT_EQ(d->warnings[0], "QDMA capabilities of QDMA Soft IP not decoded");
}

// A QDMA design whose simulated QDMA BAR is too small for the CSR frame: listed, warned, exit 1.
TEST(QdmaIdentify, ToolFailsWhenTheQdmaCannotBeRead) {
    const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_pdt_qdma_small.json";
    std::ofstream(path) << R"({"name": "qdma_small", "match": {"subsystem_vendor_id": "0x0002",
        "subsystem_device_id": "0x0100"}, "qdma": {"bar": 0}, "simulation": {"bar_sizes": {"0": "0x1000"}}})";
    const auto run = run_tool("--design_file " + path + " --sim_design qdma_small");
    std::remove(path.c_str());
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.output.find("Design qdma_small:\n"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("rtl_version"), std::string::npos) << run.output;
    EXPECT_NE(run.err.find("QDMA absent: identify QDMA bar 0: No such device (config block identifier 0xffffffff is "
                           "not the QDMA's 0x1fd3)"),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("Error: 0000:15:00.0 qdma_small: cannot read the design's QDMA"), std::string::npos) << run.err;
}

}  // namespace qdma_identify_test
