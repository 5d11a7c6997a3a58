#include "lspci_text.hpp"

#include <cstdio>
#include <sstream>

namespace pcie::test {
namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return "";
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

size_t leading_tabs(const std::string& s) {
    size_t n = 0;
    while (n < s.size() && s[n] == '\t')
        ++n;
    return n;
}

bool is_flag(const std::string& word) {
    return word.size() > 1 && (word.back() == '+' || word.back() == '-');
}

}  // namespace

Fields parse_fields(const std::string& text) {
    Fields fields;
    std::string segment;
    auto flush = [&fields](const std::string& seg) {
        std::istringstream words(seg);
        std::string word, key, value;
        while (words >> word) {
            if (is_flag(word)) {
                fields[word.substr(0, word.size() - 1)] = word.substr(word.size() - 1);
            } else if (key.empty()) {
                key = word;
            } else {
                value += (value.empty() ? "" : " ") + word;
            }
        }
        if (!key.empty()) {
            std::string name = key;
            for (int i = 2; fields.count(name); ++i)
                name = key + "#" + std::to_string(i);
            fields[name] = value;
        }
    };
    for (char c : text) {
        if (c == ',' || c == ';' || c == '\n') {
            flush(segment);
            segment.clear();
        } else {
            segment += c;
        }
    }
    flush(segment);
    return fields;
}

Registers parse_registers(const std::vector<std::string>& lines) {
    Registers registers;
    std::string cap;       // offset of the current capability, "" before the first
    std::string current;   // current register key
    std::string text;
    auto finish = [&]() {
        if (!current.empty() && !registers.count(current))  // a looped chain repeats keys: keep the first
            registers[current] = parse_fields(text);
        current.clear();
        text.clear();
    };
    for (const std::string& raw : lines) {
        const std::string line = trim(raw);
        const auto at = line.find("Capabilities: [");
        if (at == 0) {
            finish();
            const auto close = line.find(']');
            cap = line.substr(15, close - 15);
            const auto space = cap.find(' ');
            if (space != std::string::npos)
                cap = cap.substr(0, space);
            registers.emplace(cap + "/header", Fields{{"text", trim(line.substr(close + 1))}});
            continue;
        }
        if (cap.empty())
            continue;
        const size_t tabs = leading_tabs(raw);
        const auto colon = line.find(':');
        const bool starts_register = tabs <= 2 && colon != std::string::npos && colon > 0;
        if (starts_register) {
            finish();
            current = cap + "/" + line.substr(0, colon);
            text = line.substr(colon + 1);
        } else if (!current.empty()) {
            text += "\n" + line;
        }
    }
    finish();
    return registers;
}

Devices parse_lspci(const std::string& output) {
    Devices devices;
    std::istringstream in(output);
    std::string line, name;
    std::vector<std::string> lines;
    auto finish = [&]() {
        if (!name.empty())
            devices[name] = parse_registers(lines);
        lines.clear();
    };
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        if (line[0] != '\t' && line[0] != ' ') {
            finish();
            name = line.substr(0, line.find(' '));
            continue;
        }
        lines.push_back(line);
    }
    finish();
    return devices;
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
