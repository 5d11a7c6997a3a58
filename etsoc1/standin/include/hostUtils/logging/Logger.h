// STAND-IN, not the vendor's header (see runtime/Types.h here): hostUtils' g3log loggers
// (et-platform f5e790405, common-sw). LoggerDefault adds a sink that writes every message to
// stderr; a program creates one logger before using the runtime.
#pragma once

namespace logging {

class Logger {
public:
    explicit Logger();
    void init();
};

class LoggerDefault : public Logger {
public:
    explicit LoggerDefault(bool initialize = true);
};

}  // namespace logging
