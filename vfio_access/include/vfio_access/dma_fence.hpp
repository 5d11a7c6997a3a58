// Who may still write a device's DMA memory, so that no buffer is released under a live engine.
//
// An engine (an XDMA channel, a QDMA queue, edu's DMA block) that is given host addresses holds
// a Claim on its device's fence until the IP shows that it can no longer write them: every
// descriptor it was given reported complete, or Run and busy read back clear after a stop.
// While any claim of a device is held, DmaRegion keeps the mapping and the memory of a region
// that its owner releases, and releases it once the last claim is proven (DmaFence::Claim::
// proven). A claim dropped unproven (the engine object went away, or its stop could not be
// proven: Run stuck, busy never clearing) is abandoned: the device's released regions then
// stay mapped until the device is closed, and the fence says so once, naming the writer. The
// rule holds by construction, whatever order the owners are destroyed in: an error path that
// drops a buffer before it stops the engine defers the release instead of unmapping.
//
// Thread safe. The fence's mutex also serialises DmaRegion allocations and releases of the
// device (its IOVA allocator), so a deferred release may run in any thread.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace vfio {

class DmaFence {
public:
    class Claim {
    public:
        Claim() = default;
        Claim(Claim&& other) noexcept;  // move-only (the moves delete the copies)
        Claim& operator=(Claim&& other) noexcept;
        // Dropped unproven: abandoned, "the engine was released without a proven stop".
        ~Claim();

        bool held() const { return m_fence != nullptr; }
        // The IP shows the writer cannot write any more: the claim ends, and the releases it
        // held back run once no other claim of the device is held.
        void proven();
        // The writer may still write and nothing can stop it: released regions of the device
        // stay mapped until it is closed. `why` ends the warning ("Run reads back set ...").
        void abandon(const std::string& why);

    private:
        friend class DmaFence;
        Claim(DmaFence* fence, std::string writer) : m_fence(fence), m_writer(std::move(writer)) {}
        DmaFence* m_fence = nullptr;
        std::string m_writer;
    };

    DmaFence() = default;
    DmaFence(const DmaFence&) = delete;
    DmaFence& operator=(const DmaFence&) = delete;
    // Releases still held back when the device closes are never run: their memory stays
    // allocated (and pinned where the IOMMU mapping outlives us) until the process exits. The
    // kernel's VFIO release has disabled the function's bus mastering by then.
    ~DmaFence();

    // `writer` names the engine in warnings: "0000:01:00.0 C2H 0".
    Claim claim(std::string writer);
    // DmaRegion's side, with allocation_mutex() held: while a claim is held or one was
    // abandoned, keeps `release` to run once the last claim is proven, and returns true; else
    // returns false, and the caller releases now.
    bool defer(std::function<void()> release);
    // Serialises the device's DMA allocations and releases (DmaRegion).
    std::mutex& allocation_mutex() { return m_allocation_mutex; }

    size_t claims_held() const;
    size_t releases_deferred() const;
    // Writers whose claims were abandoned, with why: "0000:01:00.0 C2H 0: Run reads back set".
    std::vector<std::string> abandoned() const;
    // Where the warning of an abandoned claim goes (default: stderr, "Warning: " first).
    static void set_warning_sink(std::function<void(const std::string&)> sink);

private:
    void end(const std::string& writer, bool proven, const std::string& why);
    std::mutex m_allocation_mutex;  // taken before m_mutex, never the other way
    mutable std::mutex m_mutex;
    size_t m_claims = 0;
    std::vector<std::string> m_abandoned;
    std::vector<std::function<void()>> m_deferred;
};

}  // namespace vfio
