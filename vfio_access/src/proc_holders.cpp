#include "vfio_access/proc_holders.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace vfio {
namespace fs = std::filesystem;
namespace {

bool all_digits(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool fd_dir_links_to(const fs::path& fd_dir, const fs::path& target) {
    std::error_code ec;
    fs::directory_iterator it(fd_dir, ec);
    if (ec)
        return false;
    for (const fs::directory_entry& entry : it) {
        std::error_code link_ec;
        const fs::path link = fs::read_symlink(entry.path(), link_ec);
        if (!link_ec && link == target)
            return true;
    }
    return false;
}

bool process_holds(const fs::path& pid_dir, const fs::path& target) {
    if (fd_dir_links_to(pid_dir / "fd", target))
        return true;
    std::error_code ec;
    fs::directory_iterator tasks(pid_dir / "task", ec);
    if (ec)
        return false;
    for (const fs::directory_entry& task : tasks)
        if (fd_dir_links_to(task.path() / "fd", target))
            return true;
    return false;
}

}  // namespace

std::vector<FileHolder> find_file_holders(const std::string& proc_root, const std::string& path) {
    std::vector<FileHolder> holders;
    std::error_code ec;
    fs::directory_iterator it(proc_root, ec);
    if (ec)
        return holders;
    const fs::path target(path);
    for (const fs::directory_entry& entry : it) {
        const std::string name = entry.path().filename().string();
        if (!all_digits(name) || !process_holds(entry.path(), target))
            continue;
        std::error_code exe_ec;
        const fs::path exe = fs::read_symlink(entry.path() / "exe", exe_ec);
        holders.push_back({std::stoi(name), exe_ec ? std::string("<unknown>") : exe.string()});
    }
    std::sort(holders.begin(), holders.end(), [](const FileHolder& a, const FileHolder& b) { return a.pid < b.pid; });
    return holders;
}

std::string describe_file_holders(const std::string& path, const std::vector<FileHolder>& holders,
                                  const std::string& proc_root) {
    if (holders.empty())
        return path + " is already open by another process (not visible in " + proc_root + ")";
    std::string text = path + " is already open by ";
    for (size_t i = 0; i < holders.size(); ++i) {
        if (i)
            text += ", ";
        text += holders[i].executable + " PID " + std::to_string(holders[i].pid);
    }
    return text;
}

}  // namespace vfio
