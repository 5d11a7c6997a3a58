// Digital diagnostic monitoring (DDM) as SFF-8472 and SFF-8636 define its units: every reading
// and threshold is a 16-bit word in the document's unit, kept as the module gave it (after
// external calibration, for SFF-8472 modules calibrated so), with the conversions to what a
// person reads. A monitor a module does not implement has no value (std::nullopt), never 0.
#pragma once

#include <cstdint>
#include <optional>

namespace optical {

// Module temperature: signed, 1/256 degree Celsius a unit (SFF-8472, SFF-8636).
struct Temperature {
    int16_t raw = 0;
    double celsius() const { return raw / 256.0; }
    double fahrenheit() const { return celsius() * 1.8 + 32.0; }
};

// Supply voltage (Vcc): unsigned, 100 uV a unit.
struct SupplyVoltage {
    uint16_t raw = 0;
    double volts() const { return raw / 10000.0; }
};

// Laser bias current (TX bias): unsigned, 2 uA a unit.
struct BiasCurrent {
    uint16_t raw = 0;
    double milliamps() const { return raw / 500.0; }
};

// Optical power (TX output, RX input): unsigned, 0.1 uW a unit.
struct OpticalPower {
    uint16_t raw = 0;
    double milliwatts() const { return raw / 10000.0; }
    // 10 log10(P / 1 mW); a power of 0 is -infinity dBm (printed "-inf", as ethtool does).
    double dbm() const;
};

// dBm of a power in milliwatts.
double milliwatts_to_dbm(double milliwatts);

// The four limits of a monitor (SFF-8472 A2h bytes 0-39, SFF-8636 page 03h bytes 128-199).
template <typename T>
struct Thresholds {
    T high_alarm{};
    T low_alarm{};
    T high_warning{};
    T low_warning{};
};

// The latched alarm and warning flags of a monitor (SFF-8472 A2h bytes 112-117, SFF-8636 lower
// page bytes 6-14).
struct Flags {
    bool high_alarm = false;
    bool low_alarm = false;
    bool high_warning = false;
    bool low_warning = false;
};

// One monitored quantity: the reading, its thresholds and its flags, each absent where the
// module does not implement it.
template <typename T>
struct Monitor {
    std::optional<T> value;
    std::optional<Thresholds<T>> thresholds;
    std::optional<Flags> flags;
};

// How the received power is measured (SFF-8472 A0h byte 92 bit 3, SFF-8636 byte 220 bit 3).
enum class RxPowerType { oma, average };

// SFF-8472's external calibration: the slope of an externally calibrated reading is unsigned fixed point (the
// first byte whole, the second 1/256ths) and its offset a signed 16-bit word in the reading's
// unit. The result is the calibrated word, truncated toward zero and held to its type's range.
struct LinearCalibration {
    double slope = 1.0;
    int16_t offset = 0;
};
int16_t calibrate(const LinearCalibration& cal, int16_t reading);
uint16_t calibrate(const LinearCalibration& cal, uint16_t reading);

// SFF-8472's external calibration: received power is a fourth-order polynomial of the reading with IEEE-754
// single coefficients Rx_PWR(0) to Rx_PWR(4); the result in 0.1 uW, truncated and held to
// 0..65535.
struct RxPowerCalibration {
    float coefficient[5] = {0, 1, 0, 0, 0};  // Rx_PWR(0) .. Rx_PWR(4)
};
uint16_t calibrate(const RxPowerCalibration& cal, uint16_t reading);

}  // namespace optical
