// Reading a whole file the user named (a design file, a result file) into memory.
#pragma once

#include <string>

#include "base/result.hpp"

namespace pdt {

// The whole of the file at `path`. Errors carry errno and name the path: `<open_operation>`
// with `hint` when the file cannot be opened, `<read_operation>` when reading it fails.
Result<std::string> read_text_file(const std::string& path, const std::string& open_operation,
                                   const std::string& read_operation, const std::string& hint);

}  // namespace pdt
