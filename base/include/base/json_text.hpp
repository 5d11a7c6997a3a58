// A string as a JSON string literal (quotes, backslash and control characters escaped): the one
// helper the tools' --json writers share.
#pragma once

#include <cstdio>
#include <string>

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

}  // namespace pdt
