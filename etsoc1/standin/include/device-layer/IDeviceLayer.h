// STAND-IN, not the vendor's header (see runtime/Types.h here): the part of dev::IDeviceLayer
// (devicelayer v4.1.0, et-platform f5e790405) that the binding uses.
#pragma once

#include <memory>
#include <string>

namespace dev {

class IDeviceLayer {
public:
    virtual ~IDeviceLayer();
    // Opens /dev/et*_ops (and the mgmt nodes when enableServiceProcessor).
    static std::unique_ptr<IDeviceLayer> createPcieDeviceLayer(bool enableMasterMinion = true,
                                                               bool enableServiceProcessor = false);
    virtual int getDevicesCount() const = 0;
    // Reads /sys/bus/pci/devices/<BDF>/<relAttrPath> of the card.
    virtual std::string getDeviceAttribute(int device, std::string relAttrPath) const = 0;
};

}  // namespace dev
