// STAND-IN, not the vendor's header (see runtime/Types.h here): the part of dev::IDeviceLayer that
// the binding uses, as devicelayer v4.1.0 (et-platform f5e790405) declares it: the layer derives
// from an asynchronous and a synchronous interface, the device count being the latter's.
#pragma once

#include <memory>
#include <string>

#include "hostUtils/debug/StackException.h"

namespace dev {

class Exception : public dbg::StackException {
    using dbg::StackException::StackException;
};

class IDeviceAsync {
public:
    virtual ~IDeviceAsync() = default;
};

class IDeviceSync {
public:
    virtual int getDevicesCount() const = 0;
    // Reads /sys/bus/pci/devices/<BDF>/<relAttrPath> of the card ("" from the fake layer).
    virtual std::string getDeviceAttribute(int device, std::string relAttrPath) const = 0;
    virtual ~IDeviceSync() = default;
};

class IDeviceLayer : public IDeviceAsync, public IDeviceSync {
public:
    // Opens /dev/et*_ops (and the mgmt nodes when enableServiceProcessor).
    static std::unique_ptr<IDeviceLayer> createPcieDeviceLayer(bool enableMasterMinion = true,
                                                               bool enableServiceProcessor = false);
    virtual ~IDeviceLayer() = default;
};

}  // namespace dev
