// The VFIO manager's wire protocol: vfio_manager::decode on any bytes a client could send.
// Properties: a malformed message is an EPROTO error naming what is wrong; a message that
// decodes encodes back to bytes that decode to the same message, within the size limit.
#include "fuzz_support.hpp"
#include "vfio_manager/protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto message = vfio_manager::decode(data, size);
    if (!message) {
        PDT_FUZZ_CHECK(message.error().code == EPROTO);
        PDT_FUZZ_CHECK(!message.error().message().empty());
        return 0;
    }
    const std::vector<uint8_t> bytes = vfio_manager::encode(*message);
    PDT_FUZZ_CHECK(bytes.size() <= vfio_manager::k_max_message);
    const auto again = vfio_manager::decode(bytes.data(), bytes.size());
    PDT_FUZZ_CHECK(again.ok() && *again == *message);
    return 0;
}
