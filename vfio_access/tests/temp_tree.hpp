// A temporary directory tree for tests that need fake /proc, /sys or /dev/vfio layouts, and what a
// file the code under test wrote holds.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

class TempTree {
public:
    TempTree() {
        std::string pattern = (std::filesystem::temp_directory_path() / "pdt_test_XXXXXX").string();
        m_root = ::mkdtemp(pattern.data());
    }
    ~TempTree() {
        std::error_code ec;
        std::filesystem::remove_all(m_root, ec);
    }
    TempTree(const TempTree&) = delete;
    TempTree& operator=(const TempTree&) = delete;

    std::string root() const { return m_root.string(); }
    std::string path(const std::string& relative) const { return (m_root / relative).string(); }
    void mkdir(const std::string& relative) const { std::filesystem::create_directories(m_root / relative); }
    void symlink(const std::string& target, const std::string& relative) const {
        std::filesystem::create_directories((m_root / relative).parent_path());
        std::filesystem::create_symlink(target, m_root / relative);
    }
    void write(const std::string& relative, const std::string& text) const {
        std::filesystem::create_directories((m_root / relative).parent_path());
        std::ofstream(m_root / relative) << text;
    }

private:
    std::filesystem::path m_root;
};

// All the file at `path` holds ("" when there is no such file).
inline std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
