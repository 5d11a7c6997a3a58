#include "designs/registry.hpp"

#include <algorithm>

#include "base/text_file.hpp"
#include "design_parser.hpp"

namespace designs {

pdt::Result<Registry> Registry::builtin() {
    Registry registry;
    for (const EmbeddedFile& file : embedded_design_files())
        PDT_CHECK(registry.add_text(file.text, std::string("built-in designs/data/") + file.name, true));
    return registry;
}

pdt::Result<Registry> Registry::load(const std::vector<std::string>& design_files) {
    Registry registry = PDT_TRY(builtin());
    for (const std::string& path : design_files)
        PDT_CHECK(registry.add_file(path));
    return registry;
}

pdt::Result<void> Registry::add_file(const std::string& path) {
    const std::string text = PDT_TRY(pdt::read_text_file(path, "open design file", "read design file",
                                                         "the design file must be a readable JSON file"));
    return add_text(text, path, false);
}

pdt::Result<void> Registry::add_text(std::string_view text, const std::string& source, bool builtin) {
    std::vector<Design> parsed = PDT_TRY(parse_designs(text, source));
    for (Design& design : parsed) {
        // Names are unique among user designs and among built-ins; a user design may shadow a
        // built-in one of the same name (it is matched first).
        const auto first = m_designs.begin() + (builtin ? static_cast<long>(m_user_count) : 0);
        const auto last = builtin ? m_designs.end() : m_designs.begin() + static_cast<long>(m_user_count);
        const auto clash = std::find_if(first, last, [&](const Design& d) { return d.name == design.name; });
        if (clash != last)
            return pdt::make_error("parse design file", source + " field name", EEXIST,
                                   "design \"" + design.name + "\" is already defined in " + clash->source);
        if (builtin) {
            m_designs.push_back(std::move(design));
        } else {
            m_designs.insert(m_designs.begin() + static_cast<long>(m_user_count), std::move(design));
            ++m_user_count;
        }
    }
    return {};
}

const Design* Registry::find(std::string_view name) const {
    for (const Design& design : m_designs)
        if (design.name == name)
            return &design;
    return nullptr;
}

const Design* Registry::match(const vfio::DeviceIdentity& identity) const {
    for (const Design& design : m_designs)
        if (design.match.matches(identity))
            return &design;
    return nullptr;
}

std::vector<const Design*> Registry::candidates(const vfio::DeviceIdentity& identity) const {
    std::vector<const Design*> found;
    for (const Design& design : m_designs)
        if (design.match.matches(identity) &&
            std::none_of(found.begin(), found.end(), [&](const Design* d) { return d->name == design.name; }))
            found.push_back(&design);  // a user design hides the built-in one of its name
    return found;
}

std::vector<std::string> Registry::names() const {
    std::vector<std::string> names;
    for (const Design& design : m_designs)
        if (std::find(names.begin(), names.end(), design.name) == names.end())
            names.push_back(design.name);
    return names;
}

}  // namespace designs
