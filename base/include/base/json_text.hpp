// A string as a JSON string literal (quotes, backslash and control characters escaped), and a list
// of them as an array: the helpers the tools' --json writers share.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace pdt {

inline std::string json_quote(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// The strings as a JSON array of string literals: ["a","b"].
inline std::string json_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (const std::string& item : items)
        out += (out.size() > 1 ? "," : "") + json_quote(item);
    return out + "]";
}

}  // namespace pdt
