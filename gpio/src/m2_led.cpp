#include "gpio/m2_led.hpp"

namespace gpio {

void flash_m2_led(const AxiGpio& gpio, std::chrono::microseconds on_time,
                  const std::function<void(std::chrono::microseconds)>& wait) {
    gpio.write_data(Channel::Gpio2, kM2LedMask);
    wait(on_time);
    gpio.write_data(Channel::Gpio2, 0);
}

}  // namespace gpio
