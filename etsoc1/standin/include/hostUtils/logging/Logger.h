// STAND-IN, not the vendor's header (see runtime/Types.h here): hostUtils' g3log loggers
// (et-platform f5e790405, common-sw). A Logger creates a g3::LogWorker with no sink (protected
// logWorker_); init() makes it g3log's worker. LoggerDefault adds a sink that writes every
// message to stderr, registers the ET_VLOG levels from the environment, and, unless told not
// to, calls init(). A program creates one logger before using the runtime.
#pragma once

#include <g3log/logworker.hpp>

#include <memory>

namespace logging {

class Logger {
public:
    explicit Logger();
    void init();

protected:
    std::unique_ptr<g3::LogWorker> logWorker_;
};

class LoggerDefault : public Logger {
public:
    explicit LoggerDefault(bool initialize = true);
};

}  // namespace logging
