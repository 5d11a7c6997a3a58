// Design files written as text for the designs tests: a design "d" that matches the test
// subsystem IDs, with `body` after its match, and what adding such text as file "my.json" to an
// empty registry gives; and the built-in designs.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "designs/registry.hpp"

namespace design_text {

inline const char* kMatch = R"("match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x0100"})";

// Design "d": its match, then `body` (which starts with ", " when it is not empty).
inline std::string design(const std::string& body) {
    return std::string(R"({"name": "d", )") + kMatch + body + "}";
}

// An empty registry with `text` added as file "my.json", or the error of adding it.
inline pdt::Result<designs::Registry> registry_of(const std::string& text) {
    designs::Registry registry;
    PDT_CHECK(registry.add_text(text, "my.json"));
    return registry;
}

// Design "d" parsed from `text`, or the error of adding it.
inline pdt::Result<designs::Design> parse(const std::string& text) {
    const designs::Registry registry = PDT_TRY(registry_of(text));
    return *registry.find("d");
}

// The error message of adding `text`, or "(no error)".
inline std::string error_of(const std::string& text) {
    auto added = registry_of(text);
    return added.ok() ? std::string("(no error)") : added.error().message();
}

// The built-in designs (a failure to load them fails the test).
inline designs::Registry builtins() {
    auto registry = designs::Registry::builtin();
    EXPECT_TRUE(registry.ok()) << registry.error().message();
    return std::move(registry).value();
}

}  // namespace design_text
