#include "lspci_text.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace pcie::test {

std::map<std::string, Lines> split_functions(const std::string& output) {
    std::map<std::string, Lines> functions;
    std::istringstream in(output);
    std::string line;
    Lines* current = nullptr;
    while (std::getline(in, line)) {
        if (line.empty()) {
            current = nullptr;
            continue;
        }
        if (line[0] != '\t' && line[0] != ' ') {
            current = &functions[line.substr(0, line.find(' '))];
            current->clear();
        }
        if (current)
            current->push_back(line);
    }
    return functions;
}

std::vector<std::string> tokens(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    std::string word;
    while (in >> word)
        out.push_back(word);
    return out;
}

namespace {

unsigned same_tokens(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    unsigned n = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        n += a[i] == b[i];
    return n;
}

}  // namespace

TokenReport compare_tokens(const Lines& theirs, const Lines& ours, const Allowed& allowed) {
    const size_t n = theirs.size(), m = ours.size();
    std::vector<std::vector<std::string>> ta(n), tb(m);
    for (size_t i = 0; i < n; ++i)
        ta[i] = tokens(theirs[i]);
    for (size_t j = 0; j < m; ++j)
        tb[j] = tokens(ours[j]);
    // best[i][j]: most matched tokens aligning theirs[i..] with ours[j..]
    std::vector<std::vector<unsigned>> best(n + 1, std::vector<unsigned>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;) {
            const unsigned pair = same_tokens(ta[i], tb[j]);
            best[i][j] = std::max({best[i + 1][j], best[i][j + 1], pair ? pair + best[i + 1][j + 1] : 0u});
        }
    TokenReport r;
    size_t i = 0, j = 0;
    auto record = [&](const std::string& mine, const std::string& their_line, unsigned total, unsigned matched) {
        r.total += total;
        r.matched += matched;
        if (matched == total && (their_line.empty() ? mine.empty() : tokens(mine).size() == total))
            return;
        if (!their_line.empty() && allowed && allowed(their_line, mine)) {
            r.allowed += total - matched;
            return;
        }
        r.mismatches.push_back("lspci: " + their_line + "\n  ours:  " + mine);
    };
    while (i < n || j < m) {
        const unsigned pair = i < n && j < m ? same_tokens(ta[i], tb[j]) : 0;
        if (i < n && j < m && pair && best[i][j] == pair + best[i + 1][j + 1]) {
            record(ours[j], theirs[i], static_cast<unsigned>(ta[i].size()), pair);
            ++i, ++j;
        } else if (i < n && (j == m || best[i][j] == best[i + 1][j])) {
            record("", theirs[i], static_cast<unsigned>(ta[i].size()), 0);
            ++i;
        } else {
            record(ours[j], "", 0, 0);
            ++j;
        }
    }
    return r;
}

std::string run_command(const std::string& command, int* status) {
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) {
        *status = -1;
        return out;
    }
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        out.append(buffer, n);
    *status = ::pclose(pipe);
    return out;
}

}  // namespace pcie::test
