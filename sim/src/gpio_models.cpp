#include "sim/gpio_models.hpp"

namespace sim {

AxiGpioModel::AxiGpioModel(std::array<Inputs, 2> inputs, std::array<OutputHook, 2> hooks)
    : m_inputs(std::move(inputs)), m_hooks(std::move(hooks)) {}

uint64_t AxiGpioModel::read(uint64_t offset, unsigned) {
    const unsigned index = offset >= GPIO2_DATA ? 1 : 0;
    if (offset != GPIO_DATA && offset != GPIO_TRI && offset != GPIO2_DATA && offset != GPIO2_TRI)
        return 0;  // the interrupt registers: none of the designs enables them
    const uint32_t pins = m_inputs[index] ? m_inputs[index]() : 0;
    std::lock_guard lock(m_mutex);
    const Channel& channel = m_channels[index];
    if (offset == GPIO_TRI || offset == GPIO2_TRI)
        return channel.tri;
    return (pins & channel.tri) | (channel.data & ~channel.tri);
}

void AxiGpioModel::write(uint64_t offset, unsigned, uint64_t value) {
    const unsigned index = offset >= GPIO2_DATA ? 1 : 0;
    OutputHook hook;
    uint32_t outputs = 0;
    {
        std::lock_guard lock(m_mutex);
        Channel& channel = m_channels[index];
        if (offset == GPIO_TRI || offset == GPIO2_TRI) {
            channel.tri = static_cast<uint32_t>(value);
            return;
        }
        if (offset != GPIO_DATA && offset != GPIO2_DATA)
            return;
        const uint32_t changed = channel.data ^ static_cast<uint32_t>(value);
        for (unsigned bit = 0; bit < 32; ++bit)
            channel.changes[bit] += (changed >> bit) & 1;
        channel.data = outputs = static_cast<uint32_t>(value);
        hook = m_hooks[index];
    }
    if (hook)
        hook(outputs);
}

void AxiGpioModel::reset() {
    std::lock_guard lock(m_mutex);
    for (Channel& channel : m_channels)
        channel = Channel{};
}

uint32_t AxiGpioModel::outputs(unsigned channel) const {
    std::lock_guard lock(m_mutex);
    return m_channels[channel == 2 ? 1 : 0].data;
}

uint64_t AxiGpioModel::output_changes(unsigned channel, unsigned bit) const {
    std::lock_guard lock(m_mutex);
    return m_channels[channel == 2 ? 1 : 0].changes[bit & 31];
}

void MigResetModel::set_reset(bool asserted) {
    std::lock_guard lock(m_mutex);
    if (!m_config.follows_reset)
        return;
    if (m_reset && !asserted)
        m_released = Clock::now();
    m_reset = asserted;
}

uint32_t MigResetModel::status() const {
    std::lock_guard lock(m_mutex);
    if (m_reset)
        return kUiClkSyncRstMask;
    const auto since = m_released ? Clock::now() - *m_released : Clock::duration::max();
    if (m_released && since < m_config.locked_after)
        return kUiClkSyncRstMask;
    const bool calibrated = m_config.calibrates && (!m_released || since >= m_config.locked_after + m_config.calibrated_after);
    return kLockedMask | kMmcmLockedMask | (calibrated ? kInitCalibCompleteMask : 0);
}

std::shared_ptr<AxiGpioModel> make_ddr_reset_gpio(std::shared_ptr<MigResetModel> mig) {
    AxiGpioModel::Inputs inputs = [mig] { return mig->status(); };
    AxiGpioModel::OutputHook hook = [mig](uint32_t outputs) { mig->set_reset(outputs & MigResetModel::kResetMask); };
    return std::make_shared<AxiGpioModel>(std::array<AxiGpioModel::Inputs, 2>{inputs, {}},
                                          std::array<AxiGpioModel::OutputHook, 2>{hook, {}});
}

}  // namespace sim
