#include "adapters/adapter_table.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace adapter_table_test {
namespace {

std::vector<std::string> row_names(bool stream_devices_only) {
    std::vector<std::string> names;
    for (const adapters::Adapter& row : adapters::adapter_table())
        if (!stream_devices_only || row.stream_devices)
            names.push_back(row.name);
    return names;
}

// The long names of the options, in the order --help lists them.
std::vector<std::string> option_names(const boost::program_options::options_description& options) {
    std::vector<std::string> names;
    for (const auto& option : options.options())
        names.push_back(option->long_name());
    return names;
}

void parse(adapters::CopyEndpoints& endpoints, std::vector<const char*> argv) {
    argv.insert(argv.begin(), "pcie_link_measure");
    boost::program_options::variables_map values;
    boost::program_options::store(
        boost::program_options::parse_command_line(static_cast<int>(argv.size()), argv.data(), endpoints.options()),
        values);
    boost::program_options::notify(values);
}

// The message of the error opening endpoint `name` after the options `argv`, expected to fail with
// EINVAL; empty (and the test failed) when it opened.
std::string einval_opening(const std::string& name, std::vector<const char*> argv) {
    adapters::CopyEndpoints endpoints;
    parse(endpoints, std::move(argv));
    std::string adapter;
    auto endpoint = endpoints.open(name, adapter);
    EXPECT_FALSE(endpoint.ok()) << name;
    if (endpoint.ok())
        return "";
    EXPECT_EQ(endpoint.error().code, EINVAL) << endpoint.error().message();
    return endpoint.error().message();
}

TEST(AdapterTable, HasARowPerAdapterInTheOrderOfTheirOptions) {
    EXPECT_EQ(row_names(false), (std::vector<std::string>{"model", "xdma", "qdma", "edu", "cuda", "etsoc1"}));
    EXPECT_EQ(row_names(true), (std::vector<std::string>{"xdma", "cuda", "etsoc1"}));
    for (const adapters::Adapter& row : adapters::adapter_table()) {
        EXPECT_FALSE(row.summary.empty()) << row.name;
        EXPECT_NE(row.add_options, nullptr) << row.name;
        EXPECT_NE(row.open_copy_endpoint, nullptr) << row.name;
    }
}

TEST(AdapterTable, FindsARowByItsName) {
    ASSERT_NE(adapters::find_adapter("qdma"), nullptr);
    EXPECT_EQ(adapters::find_adapter("qdma")->name, "qdma");
    EXPECT_EQ(adapters::find_adapter("bogus"), nullptr);
    EXPECT_EQ(adapters::find_adapter(""), nullptr);
}

TEST(AdapterTable, ListsTheKnownEndpointsInTheOrderTheyCame) {
    EXPECT_EQ(adapters::known_endpoints(), "known endpoints: model, xdma, edu, cuda, etsoc1, qdma");
}

// pcie_link_measure --help lists them so (tests/golden/expected/help.txt): the rows' options in
// table order, each row's in its own order.
TEST(CopyEndpoints, AddsEveryRowsOptionsInTableOrder) {
    adapters::CopyEndpoints endpoints;
    const std::vector<std::string> expected{
        "model_h2c_gbps", "model_c2h_gbps", "model_latency_us", "model_queues", "model_in_flight",
        "model_shared_link", "model_launch_us", "model_launch_queued_us", "model_iotlb_entries",
        "model_iotlb_miss_us", "model_memory", "model_corrupt_every", "model_pageable_copies",
        "model_pci_address", "model_lie", "sim_design", "device", "design_file", "xdma_queues",
        "sim_rate_gbps", "sim_latency_us", "lock_timeout", "no_iommu", "engine_mode", "completion",
        "qdma_queues", "qdma_ring_entries", "qdma_interrupts", "edu_sim", "edu_sim_delay_ms", "cuda_device",
        "cuda_queues", "cuda_memory", "cuda_lie", "etsoc1_device", "etsoc1_fake", "etsoc1_socket",
        "etsoc1_log", "etsoc1_queues", "etsoc1_memory", "etsoc1_window"};
    EXPECT_EQ(option_names(endpoints.options()), expected);
}

// The stream tools' GPU and card options, as their --help lists them.
TEST(StreamDeviceOptions, TheCudaAndEtsoc1RowsOptionsKeepTheirOrder) {
    boost::program_options::options_description options;
    adapters::CudaStreamCli cuda;
    adapters::Etsoc1StreamCli etsoc1;
    adapters::add_cuda_stream_options(options, cuda);
    adapters::add_etsoc1_stream_options(options, etsoc1);
    EXPECT_EQ(option_names(options),
              (std::vector<std::string>{"cuda_device", "cuda_channels", "cuda_host_memory", "cuda_reference_secs",
                                        "cuda_corrupt", "cuda_lie", "etsoc1_device", "etsoc1_fake", "etsoc1_socket",
                                        "etsoc1_log", "etsoc1_channels", "etsoc1_window"}));
}

TEST(CopyEndpoints, AnUnknownEndpointIsAUsageErrorNamingTheKnownOnes) {
    adapters::CopyEndpoints endpoints;
    std::string adapter = "unchanged";
    auto endpoint = endpoints.open("bogus", adapter);
    ASSERT_FALSE(endpoint.ok());
    EXPECT_EQ(endpoint.error().code, EINVAL);
    EXPECT_TRUE(endpoint.error().usage);
    EXPECT_NE(endpoint.error().message().find("known endpoints: model, xdma, edu, cuda, etsoc1, qdma"),
              std::string::npos)
        << endpoint.error().message();
    EXPECT_EQ(adapter, "unchanged");
}

TEST(CopyEndpoints, AnEtsoc1OptionWithAnotherEndpointIsAUsageError) {
    const std::string message = einval_opening("model", {"--etsoc1_window", "2"});
    EXPECT_NE(message.find("option --etsoc1_window \"2\" is not used"), std::string::npos) << message;
    EXPECT_NE(message.find("the endpoint is model"), std::string::npos) << message;
}

TEST(CopyEndpoints, TheModelRowOpensTheModel) {
    adapters::CopyEndpoints endpoints;
    parse(endpoints, {"--model_memory", "1MiB"});
    std::string adapter;
    auto endpoint = endpoints.open("model", adapter);
    ASSERT_TRUE(endpoint.ok()) << endpoint.error().message();
    EXPECT_EQ(adapter, "model");
    EXPECT_TRUE(endpoints.designs_under_test().empty());
}

TEST(CopyEndpoints, TheEduRowTakesTheModelLieOnlyWithItsModel) {
    const std::string message = einval_opening("edu", {"--model_lie", "moves_nothing"});
    EXPECT_NE(message.find("add --edu_sim"), std::string::npos) << message;
}

adapters::OpenedStreamDevices open(const adapters::StreamDeviceRequest& request, std::string& errors) {
    std::ostringstream text;
    adapters::StreamDeviceUse use;
    use.json = true;  // the adapters' lines to stderr
    adapters::OpenedStreamDevices opened = adapters::open_stream_devices(request, use, text);
    errors = text.str();
    return opened;
}

TEST(OpenStreamDevices, CardsWithGpusAreAUsageErrorNamingTheOtherRowsOptions) {
    adapters::StreamDeviceRequest request;
    request.etsoc1.devices = {"fake"};
    request.cuda.devices = {0};
    std::string errors;
    EXPECT_EQ(open(request, errors).status, 2);
    EXPECT_EQ(errors, "Error: --etsoc1_device cannot be combined with --sim_design, --device_routing or --cuda_device\n");
}

TEST(OpenStreamDevices, GpusWithDesignsAreAUsageError) {
    adapters::StreamDeviceRequest request;
    request.cuda.devices = {0};
    request.designs.sim_designs = {"NiteFury_dma_stream_loopback"};
    std::string errors;
    EXPECT_EQ(open(request, errors).status, 2);
    EXPECT_EQ(errors, "Error: --cuda_device cannot be combined with --sim_design or --device_routing\n");
}

TEST(OpenStreamDevices, ACardOptionWithoutACardIsAUsageError) {
    adapters::StreamDeviceRequest request;
    request.etsoc1.window = "2";
    std::string errors;
    const adapters::OpenedStreamDevices opened = open(request, errors);
    EXPECT_EQ(opened.status, 2);
    EXPECT_NE(errors.find("--etsoc1_window"), std::string::npos) << errors;
    EXPECT_TRUE(opened.devices.empty());
}

TEST(OpenStreamDevices, TheEtsoc1RowOpensTheFakeCards) {
    adapters::StreamDeviceRequest request;
    request.etsoc1.devices = {"fake", "fake"};
    std::string errors;
    const adapters::OpenedStreamDevices opened = open(request, errors);
    EXPECT_EQ(opened.status, 0) << errors;
    EXPECT_EQ(opened.devices.size(), 2u);
    EXPECT_EQ(opened.bus, nullptr);  // no designs' bus
}

}  // namespace
}  // namespace adapter_table_test
