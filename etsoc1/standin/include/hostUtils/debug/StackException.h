// STAND-IN, not the vendor's header (see runtime/Types.h here): hostUtils' exception base, which
// rt::Exception and dev::Exception derive from (et-platform f5e790405): a std::exception whose
// what() holds the message and then a stack trace. The binding catches std::exception.
#pragma once

#include <exception>
#include <string>

namespace dbg {

class StackException : public std::exception {
public:
    explicit StackException(const std::string& message);
    const char* what() const noexcept override;

private:
    std::string decoratedMessage_;
};

}  // namespace dbg
