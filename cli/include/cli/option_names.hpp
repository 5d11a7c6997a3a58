// The libraries speak in their own words: a hint asks for "a lock wait", "the no-IOMMU opt-in"
// or "the design file", never for a command-line option. The tool layer names the option that
// sets each request where it reports an error: after the request's words it adds the option in
// parentheses, once per text:
//
//   "...; a lock wait waits for it"  ->  "...; a lock wait (--lock_timeout <s>) waits for it"
//
// cli::report_error does it for every error it prints; a tool that prints errors itself passes
// the error (or the whole line) through name_options, or writes them to an OptionNamingStream.
#pragma once

#include <ostream>
#include <span>
#include <streambuf>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace cli {

// A library's words for a request and the option of the tools that sets it.
struct RequestOption {
    std::string_view words;   // as the libraries write them in a hint: "lock wait"
    std::string_view option;  // "--lock_timeout <s>"
};

// Every request the libraries name, with its option.
std::span<const RequestOption> request_options();

// `text` with " (<option>)" after the first place the words of each request appear, unless the
// text names that option already; text without such words comes back as it is.
std::string name_options(std::string text, std::span<const RequestOption> table = request_options());
// The error with its hint's requests named (the operation and the object are left as they are).
pdt::Error name_options(pdt::Error error);

// An ostream that writes each line to `out` through name_options: for the errors a library
// prints itself. A line left without its newline goes out when the stream is flushed or destroyed.
class OptionNamingStream : public std::ostream {
public:
    explicit OptionNamingStream(std::ostream& out);
    ~OptionNamingStream() override;

private:
    class Buffer : public std::streambuf {
    public:
        explicit Buffer(std::ostream& out) : m_out(out) {}
        void write_line();

    protected:
        int_type overflow(int_type c) override;
        int sync() override;

    private:
        std::ostream& m_out;
        std::string m_line;
    };
    Buffer m_buffer;
};

}  // namespace cli
