// QEMU's edu device behind the copy-endpoint seam (streams::CopyEndpoint), so that the link
// measurement tool runs on it in the QEMU guest: host to card is a DMA from host memory into
// edu's buffer, card to host the other way (edu's DMA engine, through the guest's IOMMU).
//
//   auto endpoint = PDT_TRY(edu::open_copy_endpoint(device, {}));  // sets Bus Master, checks edu
//   measure::copy(*endpoint, streams::Direction::H2C, 0, *host, 0, 0, 4095, timeout);
//
// The card is edu's 4 KiB DMA buffer, less its last byte: QEMU 7.2 aborts the whole VM on a DMA
// of 0 bytes or one that reaches the buffer's end (edu_device.hpp). So info() reports a card
// window and a largest copy of 4095 bytes (DMA_MAX_END), and issue() refuses a copy of 0 bytes
// or beyond byte 4095 before QEMU sees it; the tool measures nothing larger (it leaves larger
// sizes out or clamps them, and says so). One queue holding one copy: edu runs one transfer at
// a time, ~100 ms after its command (edu's timer). Completion is detected by polling DMA_CMD.
// Host buffers are mapped below edu's 28-bit DMA mask.
#pragma once

#include <memory>
#include <string>

#include "edu/edu_device.hpp"
#include "streams/copy_endpoint.hpp"

namespace edu {

struct CopyEndpointConfig {
    std::string name;         // for output lines; empty: "edu <bdf>"
    bool report_pci_address = true;  // false for a simulated edu: there is no function to read LnkSta of
    // How long reset_queues waits for a running transfer to end (edu cannot abort one).
    std::chrono::milliseconds drain_timeout{2000};
};

// Sets Bus Master (edu DMA reads zeros without it), attaches the edu (ENODEV when BAR0 is no
// edu's) and returns the endpoint. The device must outlive the endpoint.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(vfio::Device& device,
                                                                       const CopyEndpointConfig& config);

}  // namespace edu
