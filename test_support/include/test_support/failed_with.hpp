// A check of a call that must fail, on its pdt::Result (or anything with ok(), error().code and
// error().message()): that it failed, with which errno, saying what.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace test_support {

// Whether `result` failed with errno `code` and a message holding `part`, for EXPECT_TRUE (or
// ASSERT_TRUE where the test goes on to use the error): a failure shows the whole message.
template <typename Result>
testing::AssertionResult failed_with(const Result& result, int code, std::string_view part) {
    if (result.ok())
        return testing::AssertionFailure() << "it succeeded; expected errno " << code << " and: " << part;
    const std::string message = result.error().message();
    if (result.error().code != code || message.find(part) == std::string::npos)
        return testing::AssertionFailure() << "errno " << result.error().code << ": " << message << "\nexpected errno "
                                           << code << " and: " << part;
    return testing::AssertionSuccess();
}

}  // namespace test_support
