// STAND-IN, not the vendor's header (see runtime/Types.h here): the parts of g3log that hostUtils'
// Logger exposes and the binding uses (g3log v1.1-408-g38dbddc, the version et-platform
// f5e790405 builds). A LogWorker owns the sinks; addSink takes a sink object and the member
// function that receives each message, as std::string (the message's toString()) or as a
// LogMessageMover, and returns a handle to it; removeAllSinks drops every sink. The stand-in is
// compiled, never linked or run: addSink (a template defined in the real header) has a body
// that does nothing, so that a sink of internal linkage compiles.
#pragma once

#include <memory>
#include <string>

namespace g3 {

namespace internal {
template <class T>
struct Sink;
}

// A handle to one sink: it holds the sink weakly.
template <class T>
class SinkHandle {
public:
    explicit SinkHandle(std::shared_ptr<internal::Sink<T>> sink) : _sink(sink) {}

private:
    std::weak_ptr<internal::Sink<T>> _sink;
};

class LogWorker final {
public:
    static std::unique_ptr<LogWorker> createLogWorker();
    template <typename T, typename DefaultLogCall>
    std::unique_ptr<SinkHandle<T>> addSink(std::unique_ptr<T> real_sink, DefaultLogCall call) {
        static_cast<void>(real_sink);
        static_cast<void>(call);
        return nullptr;
    }
    void removeAllSinks();
};

void initializeLogging(LogWorker* logger);

}  // namespace g3
