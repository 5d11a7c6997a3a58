// Test helper: parses lspci -vvv text (and ours, which uses the same layout) into fields per
// register: "<cap offset>/<register>" -> field -> value. Flags ("ExtTag+") become field "ExtTag"
// with value "+"; "MaxPayload 256 bytes" becomes field "MaxPayload" with value "256 bytes".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pcie::test {

using Fields = std::map<std::string, std::string>;
// register key ("54/LnkCap", "54/header") -> fields
using Registers = std::map<std::string, Fields>;
// device ("00:01.0") -> registers
using Devices = std::map<std::string, Registers>;

// Fields of one register's text (everything after "Name:" including continuation lines).
Fields parse_fields(const std::string& text);
// The capability sections of one device's lines (lines before the first capability ignored).
Registers parse_registers(const std::vector<std::string>& lines);
// Whole lspci -vvv output: devices start at lines without leading whitespace.
Devices parse_lspci(const std::string& output);

// Runs a command, returns its stdout; exit status in *status.
std::string run_command(const std::string& command, int* status);

}  // namespace pcie::test
