// The M.2 activity LED of a LiteFury or NiteFury (Project-0 image): bit 1 of the GPIO2 outputs of
// its axi_gpio_2, open-collector from board version 3 (fpga_sio's flash_m2_led.c; RHS Research's
// Project-0 design). Lit, it lights the PC's disk access LED.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "gpio/axi_gpio.hpp"

namespace gpio {

inline constexpr uint32_t kM2LedMask = 1u << 1;           // GPIO2_DATA bit 1
inline constexpr uint32_t kM2LedMinBoardVersion = 3;      // the first version that drives it right

// Lights the LED for `on_time` and puts it out (the other GPIO2 outputs are written 0: PG144's
// outputs are not read back). `wait` sleeps the given time; it may end early (Ctrl-C): the LED
// is put out whatever it returns.
void flash_m2_led(const AxiGpio& gpio, std::chrono::microseconds on_time,
                  const std::function<void(std::chrono::microseconds)>& wait);

}  // namespace gpio
