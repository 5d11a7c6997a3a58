// Result type shared by every library of the toolkit: a value or an Error that names the
// operation, the object it acted on (BDF, path, register) and a hint for the user.
// Only main() turns errors into exit codes.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace pdt {

struct Error {
    std::string operation;  // what was attempted: "open", "VFIO_GROUP_GET_STATUS", "H2C 0 transfer"
    std::string object;     // what it acted on: "0000:01:00.0", "/dev/vfio/12", "BAR 2 offset 0x40"
    std::string hint;       // what the user can do about it; may be empty
    int code = EIO;         // an errno value (ETIMEDOUT, ENODEV, EFAULT, ...)
    // A usage error: what was asked for cannot be (an option's value, a combination of options,
    // a request a device cannot serve by its design). Mains exit 2 for it and 1 for any other
    // error; never inferred from `code`, so a device's EINVAL stays a failure.
    bool usage = false;

    // "<operation> <object>: <strerror(code)>[: <detail>] [(hint)]" on one line.
    std::string message() const;
};

Error make_error(std::string operation, std::string object, int code, std::string hint = {});
// A usage error (EINVAL, `usage` set): the request, not the device, is at fault.
Error usage_error(std::string operation, std::string object, std::string hint);
// An Error from the current errno, for a failed system call.
Error errno_error(std::string operation, std::string object, std::string hint = {});

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_storage(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_storage(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_storage.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_storage); }
    const T& value() const& { return std::get<0>(m_storage); }
    T&& value() && { return std::get<0>(std::move(m_storage)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const& { return std::get<1>(m_storage); }
    Error&& error() && { return std::get<1>(std::move(m_storage)); }

private:
    std::variant<T, Error> m_storage;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_ok(false) {}

    bool ok() const { return m_ok; }
    explicit operator bool() const { return ok(); }
    const Error& error() const& { return m_error; }
    Error&& error() && { return std::move(m_error); }

private:
    Error m_error;
    bool m_ok = true;
};

}  // namespace pdt

// Evaluate a Result-returning expression; on error return the Error from the enclosing
// function, else yield the value. Uses a GNU statement expression (GCC and Clang).
#define PDT_TRY(expr)                                     \
    ({                                                    \
        auto pdt_try_result_ = (expr);                    \
        if (!pdt_try_result_.ok())                        \
            return std::move(pdt_try_result_).error();    \
        std::move(pdt_try_result_).value();               \
    })

// As PDT_TRY for Result<void>.
#define PDT_CHECK(expr)                                   \
    do {                                                  \
        auto pdt_check_result_ = (expr);                  \
        if (!pdt_check_result_.ok())                      \
            return std::move(pdt_check_result_).error();  \
    } while (0)
