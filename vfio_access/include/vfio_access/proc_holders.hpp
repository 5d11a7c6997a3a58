// Which processes hold a file open: walks <proc_root>/<pid>/fd and <proc_root>/<pid>/task/<tid>/fd
// for links to the file. Used to explain EBUSY on a VFIO group. proc_root is a parameter so
// tests can hand it a fake tree of symlinks.
#pragma once

#include <string>
#include <vector>

namespace vfio {

struct FileHolder {
    int pid = 0;
    std::string executable;  // readlink of <pid>/exe, or "<unknown>" when unreadable
};

// Each process listed once, in ascending PID order. Unreadable entries are skipped.
std::vector<FileHolder> find_file_holders(const std::string& proc_root, const std::string& path);

// "<path> is already open by <exe> PID <pid>[, <exe> PID <pid>...]", or
// "<path> is already open by another process (not visible in <proc_root>)".
std::string describe_file_holders(const std::string& path, const std::vector<FileHolder>& holders,
                                  const std::string& proc_root = "/proc");

}  // namespace vfio
