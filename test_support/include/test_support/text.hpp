// Checks of the text a test captured (what a tool printed, a report): whether it holds a part,
// or every one of several parts.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace test_support {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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
