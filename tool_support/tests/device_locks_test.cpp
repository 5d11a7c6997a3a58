// Advisory device locks through the tool mains: every tool names the holder of a busy device and
// fails (exit 1) at once; a dead holder's lock is free; --lock_timeout waits for a running tool
// to finish and then passes; the JSON output records how long each device was held; a bad
// --lock_timeout is a usage error. Kernel-bus runs use a fake machine (the tools get as far as
// the lock, then fail at the fake VFIO nodes); the running-holder runs use simulated designs
// with PDT_LOCK_SIM=1.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "fake_machine.hpp"
#include "temp_tree.hpp"
#include "test_support/run_process.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"
#include "vfio_access/device_lock.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace device_locks_test {

namespace {

using test_support::contains;
using namespace std::chrono_literals;

const std::vector<std::string> kTools = {PDT_TOOL_PATHS};

std::string name_of(const std::string& tool) { return std::filesystem::path(tool).filename().string(); }

std::string tool_path(const std::string& name) {
    for (const std::string& tool : kTools)
        if (name_of(tool) == name)
            return tool;
    return "";
}

std::string extra_args(const std::string& tool) {
    return name_of(tool) == "xilinx_axi_stream_switch_set_routing" ? "--default_routing" : "";
}

test_support::Outcome run(const std::string& environment, const std::string& tool, const std::string& args) {
    test_support::RunOptions options;
    options.environment = test_support::words(environment);
    options.stderr_to = test_support::Stderr::separate;
    options.stdin_from_null = true;
    options.timeout = 120s;
    return test_support::run_process(tool, test_support::words(args), options);
}

// A forked child that holds the lock of `bdf` in `directory` until killed.
class ForkedHolder {
public:
    ForkedHolder(const std::string& directory, const std::string& bdf) {
        int ready[2];
        if (::pipe(ready) != 0)
            return;
        m_pid = ::fork();
        if (m_pid == 0) {
            auto lock = vfio::DeviceLock::acquire({directory, 0ms, ""}, vfio::PciAddress::parse(bdf).value());
            (void)!::write(ready[1], lock.ok() ? "y" : "n", 1);
            for (;;)
                ::pause();
        }
        char status = 'n';
        m_locked = ::read(ready[0], &status, 1) == 1 && status == 'y';
        ::close(ready[0]);
        ::close(ready[1]);
    }
    ~ForkedHolder() { kill(); }
    void kill() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
            m_pid = -1;
        }
    }
    bool locked() const { return m_locked; }
    pid_t pid() const { return m_pid; }

private:
    pid_t m_pid = -1;
    bool m_locked = false;
};

// A fake machine with the seed's TEF1001 at 0000:15:00.0 bound to vfio-pci and /dev/vfio present.
class FakeBoundDevice : public ::testing::Test {
protected:
    void SetUp() override {
        machine.add({"0000:15:00.0", 0x10ee, 0x7024, 0x0002, 0x0007, "vfio-pci", 41});
        machine.load_vfio();
    }
    FakeMachine machine;
};

// Simulated designs with locks, in a directory of the test's own.
class SimLocks : public ::testing::Test {
protected:
    std::string environment() const { return "PDT_LOCK_SIM=1 PDT_LOCK_DIR=" + tree.path("locks"); }
    std::string lock_file() const { return tree.path("locks/sim-0000:15:00.0.lock"); }
    TempTree tree;
};

const std::string kStreamDesign = "--sim_design TEF1001_dma_stream_loopback";
const std::string kBridgeArgs = kStreamDesign +
                                " --transfer_timeout 5 --stream_mapping_size 0x40000 --stream_num_descriptors 16 "
                                "--min_words 0x10000 --max_channel_combinations 1";

// The device_hold JSON line of a run's stdout ("" when none).
std::string hold_line(const std::string& out) {
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
        if (contains(line, "\"type\":\"device_hold\""))
            return line;
    return "";
}

double json_number(const std::string& line, const std::string& key) {
    std::smatch m;
    if (!std::regex_search(line, m, std::regex("\"" + key + "\":([0-9.]+)")))
        return -1;
    return std::stod(m[1].str());
}

}  // namespace

TEST_F(FakeBoundDevice, EveryToolNamesTheHolderOfABusyDeviceAndFails) {
    ASSERT_GE(kTools.size(), 6u);
    ForkedHolder holder(machine.lock_dir(), "0000:15:00.0");
    ASSERT_TRUE(holder.locked());
    const vfio::LockHolder me = vfio::this_process_holder();
    const std::string named = "Error: lock 0000:15:00.0: Device or resource busy (held by " + me.user + " (uid " +
                              std::to_string(me.uid) + "), pid " + std::to_string(holder.pid()) + " (";
    for (const std::string& tool : kTools) {
        const auto start = std::chrono::steady_clock::now();
        const auto r = run(machine.environment(), tool, extra_args(tool));
        EXPECT_LT(std::chrono::steady_clock::now() - start, 20s) << name_of(tool);  // no waiting by default
        EXPECT_EQ(r.exit_code, 1) << name_of(tool) << ": " << r.output << r.err;
        EXPECT_TRUE(contains(r.err, named)) << name_of(tool) << ": " << r.err;
        EXPECT_TRUE(contains(r.err, "; a lock wait (--lock_timeout <s>) waits for it)"))
            << name_of(tool) << ": " << r.err;
        EXPECT_FALSE(contains(r.output, "PASS")) << name_of(tool) << ": " << r.output;
    }
}

TEST_F(FakeBoundDevice, ADeadHoldersLockIsFree) {
    ForkedHolder holder(machine.lock_dir(), "0000:15:00.0");
    ASSERT_TRUE(holder.locked());
    holder.kill();  // its record stays in the file, its flock went with it
    ASSERT_TRUE(vfio::parse_lock_record(read_text(machine.lock_dir() + "/0000:15:00.0.lock")));
    for (const std::string& tool : kTools) {
        const auto r = run(machine.environment(), tool, extra_args(tool));
        EXPECT_EQ(r.exit_code, 1) << name_of(tool) << ": " << r.err;  // the fake VFIO nodes fail later
        EXPECT_FALSE(contains(r.err, "busy")) << name_of(tool) << ": " << r.err;
        EXPECT_TRUE(contains(r.err, "Error: ")) << name_of(tool) << ": " << r.err;
    }
    // Each tool released the lock when its open failed: the record is empty again.
    EXPECT_EQ(read_text(machine.lock_dir() + "/0000:15:00.0.lock"), "");
}

TEST_F(FakeBoundDevice, LockTimeoutGivesUpNamingTheHolder) {
    ForkedHolder holder(machine.lock_dir(), "0000:15:00.0");
    ASSERT_TRUE(holder.locked());
    const std::string tool = tool_path("display_identified_pcie_fpga_designs");
    ASSERT_FALSE(tool.empty());
    const auto start = std::chrono::steady_clock::now();
    const auto r = run(machine.environment(), tool, "--lock_timeout 0.5");
    EXPECT_GE(std::chrono::steady_clock::now() - start, 500ms);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "pid " + std::to_string(holder.pid()))) << r.err;
    EXPECT_TRUE(contains(r.err, "still busy after 0.5 s of lock wait (--lock_timeout <s>)")) << r.err;
}

TEST(EveryToolLockTimeout, BadValueIsAUsageError) {
    for (const std::string& tool : kTools)
        for (const char* value : {"-1", "soon"}) {
            const auto r = run("", tool, kStreamDesign + " --lock_timeout=" + value + " " + extra_args(tool));
            EXPECT_EQ(r.exit_code, 2) << name_of(tool) << " " << value << ": " << r.output << r.err;
            EXPECT_TRUE(contains(r.err, "lock_timeout")) << name_of(tool) << ": " << r.err;
        }
}

TEST(EveryToolLockTimeout, HelpDescribesIt) {
    for (const std::string& tool : kTools) {
        const auto r = run("", tool, "--help");
        EXPECT_EQ(r.exit_code, 0) << name_of(tool);
        EXPECT_TRUE(contains(r.output, "--lock_timeout")) << name_of(tool);
        EXPECT_TRUE(contains(r.output, "$PDT_LOCK_DIR")) << name_of(tool);
    }
}

// A running soak test holds the simulated device: a second tool names it and fails at once;
// with --lock_timeout it waits for the first to finish, then tests and passes. Both JSON
// outputs record how long they held the device.
TEST_F(SimLocks, SecondToolWaitsForTheRunningHolder) {
    const std::string streams = tool_path("test_dma_bridge_parallel_streams");
    const std::string bridge = tool_path("test_dma_bridge");
    ASSERT_FALSE(streams.empty());
    ASSERT_FALSE(bridge.empty());
    test_support::Outcome first;
    std::thread holder([&] {
        first = run(environment(), streams,
                    kStreamDesign + " --stream_mapping_size 0x40000 --stream_num_descriptors 16 --duration 3 "
                                    "--report_interval 1 --json");
    });
    std::optional<vfio::LockHolder> record;
    for (int i = 0; i < 400 && !record; ++i) {
        std::this_thread::sleep_for(25ms);
        record = vfio::parse_lock_record(read_text(lock_file()));
    }
    ASSERT_TRUE(record) << "the first tool never took the lock";
    const auto busy = run(environment(), bridge, kBridgeArgs);
    const auto waited = run(environment(), bridge, kBridgeArgs + " --lock_timeout 60 --json");
    holder.join();

    EXPECT_EQ(busy.exit_code, 1) << busy.output << busy.err;
    EXPECT_TRUE(contains(busy.err, "Error: lock 0000:15:00.0: Device or resource busy (held by " + record->user +
                                       " (uid " + std::to_string(record->uid) + "), pid " +
                                       std::to_string(record->pid) + " (test_dma_bridge) since "))
        << busy.err;
    EXPECT_TRUE(contains(busy.output, "Overall FAIL")) << busy.output;

    EXPECT_EQ(first.exit_code, 0) << first.output << first.err;
    const std::string first_hold = hold_line(first.output);
    EXPECT_TRUE(contains(first_hold, "\"device\":\"0000:15:00.0\",\"lock_file\":\"" + lock_file() + "\""))
        << first.output;
    EXPECT_GE(json_number(first_hold, "held_s"), 2.5) << first_hold;

    EXPECT_EQ(waited.exit_code, 0) << waited.output << waited.err;
    EXPECT_TRUE(contains(waited.output, "\"type\":\"result\",\"overall\":\"PASS\"")) << waited.output;
    const std::string hold = hold_line(waited.output);
    EXPECT_GE(json_number(hold, "waited_s"), 0.5) << hold;  // it waited for the soak test to end
    EXPECT_GT(json_number(hold, "held_s"), 0.0) << hold;
    EXPECT_TRUE(contains(hold, "\"released\":true")) << hold;  // the run's device closed before the report
}

TEST_F(SimLocks, IdentificationJsonRecordsTheHold) {
    const std::string tool = tool_path("display_identified_pcie_fpga_designs");
    ASSERT_FALSE(tool.empty());
    const auto locked = run(environment(), tool, kStreamDesign + " --json");
    EXPECT_EQ(locked.exit_code, 0) << locked.err;
    EXPECT_TRUE(contains(locked.output, "\"device_hold\": {\n        \"lock_file\": \"" + lock_file() + "\""))
        << locked.output;
    EXPECT_TRUE(contains(locked.output, "\"held_s\": ")) << locked.output;
}

TEST_F(SimLocks, SimulatedDesignsTakeNoLockByDefault) {
    const std::string tool = tool_path("display_identified_pcie_fpga_designs");
    ASSERT_FALSE(tool.empty());
    const auto r = run("PDT_LOCK_DIR=" + tree.path("locks"), tool, kStreamDesign + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(contains(r.output, "device_hold")) << r.output;
    EXPECT_FALSE(std::filesystem::exists(lock_file()));
}

TEST(DeviceHoldJson, NamesTheDeviceFileAndTimes) {
    vfio::LockHold hold{vfio::PciAddress::parse("0000:15:00.0").value(), "/run/lock/x/0000:15:00.0.lock", 1.5, 12.25,
                        true};
    EXPECT_EQ(tool_support::device_hold_json(hold),
              "{\"type\":\"device_hold\",\"device\":\"0000:15:00.0\",\"lock_file\":\"/run/lock/x/0000:15:00.0.lock\","
              "\"waited_s\":1.500,\"held_s\":12.250,\"released\":true}");
}

TEST(LockTimeoutOption, ParsesSecondsAndRejectsTheRest) {
    EXPECT_EQ(cli::parse_lock_timeout("").value(), 0ms);
    EXPECT_EQ(cli::parse_lock_timeout("2.5").value(), 2500ms);
    for (const char* bad : {"-1", "x", "1s", "inf", "nan"}) {
        auto parsed = cli::parse_lock_timeout(bad);
        ASSERT_FALSE(parsed.ok()) << bad;
        EXPECT_TRUE(contains(parsed.error().message(), "--lock_timeout")) << parsed.error().message();
    }
}

TEST(LockDirectory, FollowsPdtLockDir) {
    ::setenv("PDT_LOCK_DIR", "/tmp/pdt_locks_elsewhere", 1);
    EXPECT_EQ(tool_support::kernel_options().lock.directory, "/tmp/pdt_locks_elsewhere");
    EXPECT_TRUE(tool_support::sim_lock_options(1s).directory.empty());  // simulated designs: no lock...
    ::setenv("PDT_LOCK_SIM", "1", 1);
    const vfio::LockOptions sim = tool_support::sim_lock_options(1s);  // ...unless asked for
    EXPECT_EQ(sim.directory, "/tmp/pdt_locks_elsewhere");
    EXPECT_EQ(sim.timeout, 1s);
    ::unsetenv("PDT_LOCK_SIM");
    ::unsetenv("PDT_LOCK_DIR");
    EXPECT_EQ(tool_support::kernel_options().lock.directory, vfio::default_lock_directory());
}

}  // namespace device_locks_test
