#include "base/text_file.hpp"

#include <fstream>
#include <sstream>

namespace pdt {

Result<std::string> read_text_file(const std::string& path, const std::string& open_operation,
                                   const std::string& read_operation, const std::string& hint) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return errno_error(open_operation, path, hint);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        return errno_error(read_operation, path);
    return text.str();
}

}  // namespace pdt
