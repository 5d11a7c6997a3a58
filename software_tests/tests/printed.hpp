// What a body printed to a FILE*: the stream tools and reports print to a FILE*, and the tests
// read it back as a string.
#pragma once

#include <cstdio>
#include <cstdlib>
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

}  // namespace test_output
