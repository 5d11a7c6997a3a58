// The registry of known designs: the built-in JSON descriptions (designs/data/, embedded in the
// binary at build time) plus the user's design files. User designs are tried first, so a user
// file can refine or replace a built-in design of the same name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "designs/design.hpp"

namespace designs {

class Registry {
public:
    // Only the built-in designs. Fails only if an embedded file is malformed (a build defect).
    static pdt::Result<Registry> builtin();
    // Built-ins plus each --design_file, in order.
    static pdt::Result<Registry> load(const std::vector<std::string>& design_files);

    // Adds the designs of one JSON file. Errors name the file, the field and the problem.
    pdt::Result<void> add_file(const std::string& path);
    // Adds the designs of JSON text; `source` names it in errors and in Design::source.
    pdt::Result<void> add_text(std::string_view text, const std::string& source, bool builtin = false);

    const std::vector<Design>& designs() const { return m_designs; }
    // The design of that name that a device would match first; nullptr when unknown.
    const Design* find(std::string_view name) const;
    // The first design whose PCI identity and revision gate match; nullptr when none.
    const Design* match(const vfio::DeviceIdentity& identity) const;
    // Every design whose PCI identity and revision gate match, first match first: more than one
    // when designs share PCI IDs and differ by a content match (IdMatch::register_value).
    std::vector<const Design*> candidates(const vfio::DeviceIdentity& identity) const;
    std::vector<std::string> names() const;

private:
    std::vector<Design> m_designs;  // user designs first, then built-ins
    size_t m_user_count = 0;
};

// The embedded built-in files: name and JSON text (generated from designs/data/ by CMake).
struct EmbeddedFile {
    const char* name;
    const char* text;
};
const std::vector<EmbeddedFile>& embedded_design_files();

}  // namespace designs
