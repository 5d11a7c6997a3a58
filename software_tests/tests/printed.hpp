// What a body printed to a FILE*: the stream tools and reports print to a FILE*, and the tests
// read it back as a string; and the verdict of a tool body that must fail.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <utility>

namespace test_output {

template <typename Body>
std::string printed_by(Body&& body) {
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    std::forward<Body>(body)(out);
    std::fclose(out);
    std::string printed(text, size);
    std::free(text);
    return printed;
}

// Whether a tool body failed as it must, for EXPECT_TRUE: exit status 1, a part of what it printed
// matching `reason` (a regular expression), and Overall FAIL last.
inline testing::AssertionResult failed_naming(int code, const std::string& out, const std::string& reason) {
    if (code != 1)
        return testing::AssertionFailure() << "exit status " << code << ", not 1, in\n" << out;
    if (!std::regex_search(out, std::regex(reason)))
        return testing::AssertionFailure() << "expected /" << reason << "/ in\n" << out;
    if (!out.ends_with("Overall FAIL\n"))
        return testing::AssertionFailure() << "not Overall FAIL last in\n" << out;
    return testing::AssertionSuccess();
}

}  // namespace test_output
