// Advisory device locks: lab etiquette between the toolkit's processes and their users. A tool
// takes flock(LOCK_EX) on <directory>/<bdf>.lock before it opens a device, and writes one line
// naming itself (user, uid, PID, tool, start time) into the file. Another tool that finds the
// device busy names that holder, or waits for it up to a timeout. The kernel releases a flock
// when its holder dies, so a record left by a dead process never blocks anyone: the next
// holder overwrites it.
//
//   vfio::LockOptions options{.directory = vfio::default_lock_directory(), .timeout = 5s};
//   auto lock = vfio::DeviceLock::acquire(options, address);  // EBUSY error names the holder
//   ... (*lock)->held_seconds() ...                           // released on destruction
//
// The locks are advisory: a program that does not take them (fpga_sio's tools, a second copy
// of the toolkit with another lock directory) is not stopped by them; VFIO itself still refuses
// a group another process holds open.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/pci_address.hpp"
#include "vfio_access/unique_fd.hpp"

namespace vfio {

// Who holds a lock, as its record says.
struct LockHolder {
    std::string user;  // login name ("uid <n>" when the password database has none)
    long uid = -1;
    long pid = 0;
    std::string tool;    // the holder's /proc/self/comm
    int64_t since = 0;   // Unix seconds when it took the lock
};

// The record line: "pdt-lock pid=1234 uid=1000 user=alice since=1764529331 tool=test_dma_bridge".
std::string format_lock_record(const LockHolder& holder);
// nullopt for an empty or foreign record.
std::optional<LockHolder> parse_lock_record(const std::string& text);
// "alice (uid 1000), pid 1234 (test_dma_bridge) since 2026-11-30T19:02:11Z (for 83 s)"; now in
// Unix seconds.
std::string describe_lock_holder(const LockHolder& holder, int64_t now);
// This process, as its record names it.
LockHolder this_process_holder();

struct LockOptions {
    std::string directory;                   // empty: no locks are taken
    std::chrono::milliseconds timeout{0};    // how long to wait for a busy device; 0: fail at once
    std::string prefix;                      // file name prefix ("sim-" for simulated devices)
};

// /run/lock/pcie-dma-toolkit when /run/lock is writable (shared by every user of the machine),
// else $XDG_RUNTIME_DIR/pcie-dma-toolkit (this user only), else /tmp/pcie-dma-toolkit.
std::string default_lock_directory();
// $PDT_LOCK_DIR when set (tests, or a lab's shared directory), else default_lock_directory().
std::string configured_lock_directory();

// One period this process held a device's lock, for the tools' records of how long they held
// each device.
struct LockHold {
    PciAddress address;
    std::string path;
    double waited_s = 0;  // waiting for another holder before it was taken
    double held_s = 0;    // from taken to released (to now while still held)
    bool released = false;
};
// Every lock this process has taken, in the order taken (released ones too).
std::vector<LockHold> lock_holds();

class DeviceLock {
public:
    // Takes the lock of `address` (creating the directory and file as needed). EBUSY names the
    // holder when the device is still busy after options.timeout.
    static pdt::Result<std::unique_ptr<DeviceLock>> acquire(const LockOptions& options, const PciAddress& address);
    ~DeviceLock();  // empties the record, then closing the file releases the lock
    DeviceLock(const DeviceLock&) = delete;
    DeviceLock& operator=(const DeviceLock&) = delete;

    const PciAddress& address() const { return m_address; }
    const std::string& path() const { return m_path; }
    // Seconds since the lock was taken, and seconds spent waiting for it.
    double held_seconds() const;
    double waited_seconds() const { return m_waited_s; }

private:
    DeviceLock(PciAddress address, std::string path, UniqueFd fd, bool writable, double waited_s);

    PciAddress m_address;
    std::string m_path;
    UniqueFd m_fd;
    bool m_writable = false;
    double m_waited_s = 0;
    std::chrono::steady_clock::time_point m_taken;
    size_t m_hold = 0;  // index in lock_holds()
};

}  // namespace vfio
