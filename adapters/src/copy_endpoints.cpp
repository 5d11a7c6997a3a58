#include "adapters/copy_endpoints.hpp"

#include "adapters/adapter_table.hpp"

namespace adapters {

CopyEndpoints::CopyEndpoints() {
    for (const Adapter& row : adapter_table())
        if (row.add_options)
            row.add_options(m_options, m_settings);
}

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> CopyEndpoints::open(const std::string& endpoint,
                                                                    std::string& adapter) {
    for (const Adapter& row : adapter_table())
        if (row.name != endpoint && row.check_unused)
            PDT_CHECK(row.check_unused(m_settings, endpoint));
    const Adapter* row = find_adapter(endpoint);
    if (row == nullptr || row->open_copy_endpoint == nullptr)
        return pdt::usage_error("--endpoint", endpoint, known_endpoints());
    adapter = row->name;
    return row->open_copy_endpoint(m_settings, m_holds);
}

}  // namespace adapters
