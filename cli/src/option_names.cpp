#include "cli/option_names.hpp"

namespace cli {

namespace {

constexpr RequestOption kRequestOptions[] = {
    {"lock wait", "--lock_timeout <s>"},            // vfio_access: a busy device's lock
    {"the no-IOMMU opt-in", "--no_iommu"},          // vfio_access: DMA in a no-IOMMU group
    {"the device selection", "--device <BDF>"},     // vfio_access: the devices of a run
    {"the design file", "--design_file"},           // designs: a JSON file of designs
    {"the temperature limit", "--max_temperature"}, // sensors: the board health's trip
    {"the runtime's socket", "--etsoc1_socket"},    // etsoc1: the runtime daemon
    {"the group allowance", "--allow_group"},       // vfio_manager: the clients it serves
    {"the H2C replay", "--h2c_replay"},             // stream_test: buffers generated once
};

// The option's name without its value: "--lock_timeout" of "--lock_timeout <s>".
std::string_view option_name(std::string_view option) { return option.substr(0, option.find(' ')); }

}  // namespace

std::span<const RequestOption> request_options() { return kRequestOptions; }

std::string name_options(std::string text, std::span<const RequestOption> table) {
    for (const RequestOption& request : table) {
        const size_t at = text.find(request.words);
        if (at == std::string::npos || text.find(option_name(request.option)) != std::string::npos)
            continue;
        text.insert(at + request.words.size(), " (" + std::string(request.option) + ")");
    }
    return text;
}

pdt::Error name_options(pdt::Error error) {
    error.hint = name_options(std::move(error.hint));
    return error;
}

OptionNamingStream::OptionNamingStream(std::ostream& out) : std::ostream(nullptr), m_buffer(out) {
    rdbuf(&m_buffer);
}

OptionNamingStream::~OptionNamingStream() { m_buffer.write_line(); }

void OptionNamingStream::Buffer::write_line() {
    if (m_line.empty())
        return;
    m_out << name_options(std::move(m_line));
    m_line.clear();
    m_out.flush();
}

OptionNamingStream::Buffer::int_type OptionNamingStream::Buffer::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof()))
        return traits_type::not_eof(c);
    m_line.push_back(traits_type::to_char_type(c));
    if (traits_type::to_char_type(c) == '\n')
        write_line();
    return c;
}

int OptionNamingStream::Buffer::sync() {
    write_line();
    return 0;
}

}  // namespace cli
