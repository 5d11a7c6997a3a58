// Checks of the text a test captured (what a tool printed, a report): whether it holds a part,
// or every one of several parts.
#pragma once

#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace test_support {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// printf into a std::string: the lines a test builds from another program's printf formats
// (fpga_sio's, for the tests that our lines are its lines).
inline std::string c_format(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline std::string c_format(const char* format, ...) {
    char buffer[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return buffer;
}

// Whether `text` holds every one of `parts`, for EXPECT_TRUE: a failure names each part missing
// and shows the whole text.
inline testing::AssertionResult contains_all(const std::string& text, const std::vector<std::string_view>& parts) {
    testing::AssertionResult missing = testing::AssertionFailure();
    bool all = true;
    for (const std::string_view part : parts)
        if (text.find(part) == std::string::npos) {
            missing << "missing: " << part << "\n";
            all = false;
        }
    return all ? testing::AssertionSuccess() : missing << "in:\n" << text;
}

}  // namespace test_support
