// STAND-IN, not the vendor's header (see runtime/Types.h here): hostUtils' default g3log logger,
// which a program creates once before using the runtime.
#pragma once

namespace logging {

class LoggerDefault {
public:
    LoggerDefault();
    ~LoggerDefault();
};

}  // namespace logging
