// SHA-256 (FIPS 180-4) of a byte string, as 64 lower-case hex digits: the hash of a predictions
// file printed before a run, so that a reader can check the file was not edited afterwards.
#pragma once

#include <string>

namespace measure {

std::string sha256_hex(const std::string& bytes);

}  // namespace measure
