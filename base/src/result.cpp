#include "base/result.hpp"

#include <cstring>

namespace pdt {

std::string Error::message() const {
    std::string text = operation;
    if (!object.empty())
        text += " " + object;
    text += ": ";
    text += std::strerror(code);
    if (!hint.empty())
        text += " (" + hint + ")";
    return text;
}

Error make_error(std::string operation, std::string object, int code, std::string hint) {
    return Error{std::move(operation), std::move(object), std::move(hint), code};
}

Error usage_error(std::string operation, std::string object, std::string hint) {
    Error error = make_error(std::move(operation), std::move(object), EINVAL, std::move(hint));
    error.usage = true;
    return error;
}

Error errno_error(std::string operation, std::string object, std::string hint) {
    return make_error(std::move(operation), std::move(object), errno, std::move(hint));
}

}  // namespace pdt

// LeakSanitizer (ASan builds): libpci's udev lookups (physical slot, label) create a udev
// context that libpci never frees, and libudev's hwdb queries (names not in pci.ids, on hosts
// with a hwdb.bin) leak small list entries; every tool would otherwise end with a leak report
// that is not ours. The module name matches even where no symbolizer is installed. The hook is
// only read by the sanitizer runtime; it lives in the base because every tool links it.
extern "C" const char* __lsan_default_suppressions();
extern "C" const char* __lsan_default_suppressions() { return "leak:udev_new\nleak:libudev.so\n"; }
