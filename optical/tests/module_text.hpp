// The test helpers of both documents' tests: a module image's whole text, and one of its lines.
#pragma once

#include <string>

#include "optical/ethtool_text.hpp"
#include "optical_images/module_images.hpp"

namespace optical_test {

inline std::string text_of(const optical::images::SfpImage& image) {
    return optical::sff8472_text(image.a0, image.a2);
}

inline std::string text_of(const optical::images::QsfpImage& image) {
    return optical::sff8636_text(image.page00, image.page03);
}

// The line of `text` that names `field`, or empty.
inline std::string line_of(const std::string& text, const std::string& field) {
    const size_t at = text.find("\t" + field + " ");
    if (at == std::string::npos)
        return {};
    return text.substr(at, text.find('\n', at) - at);
}

}  // namespace optical_test
