// Test helper: splits `lspci -vvv` text into functions and compares two renderings of one
// function token by token (whitespace-separated words, line by line).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pcie::test {

using Lines = std::vector<std::string>;

// Whole lspci -vvv output: a function starts at a line without leading whitespace; its lines
// (title included) until the next blank line. Key: the address as lspci prints it ("00:01.0").
std::map<std::string, Lines> split_functions(const std::string& output);

std::vector<std::string> tokens(const std::string& line);

// A line of lspci's that may differ from ours, with the reason; `ours` is our aligned line
// (empty when there is none).
using Allowed = std::function<bool(const std::string& theirs, const std::string& ours)>;

struct TokenReport {
    unsigned total = 0;    // tokens lspci printed
    unsigned matched = 0;  // of those, equal to ours at the same place of the aligned line
    unsigned allowed = 0;  // in lines the allow-list accepts
    std::vector<std::string> mismatches;  // "lspci: <line>" / "ours:  <line>" pairs
};

// Aligns the lines (dynamic programming, maximising matched tokens; lines in order), then
// compares the tokens of each aligned pair. Every lspci token counts, including those of lines
// we lack; extra lines of ours are reported too.
TokenReport compare_tokens(const Lines& theirs, const Lines& ours, const Allowed& allowed);

// Runs a command, returns its stdout; exit status in *status.
std::string run_command(const std::string& command, int* status);

}  // namespace pcie::test
