#include "vfio_access/result.hpp"

#include <cstring>

namespace vfio {

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

Error errno_error(std::string operation, std::string object, std::string hint) {
    return make_error(std::move(operation), std::move(object), errno, std::move(hint));
}

}  // namespace vfio
