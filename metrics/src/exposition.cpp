// The Prometheus text exposition format, version 0.0.4 (prometheus.io, "Exposition formats",
// "Text format details"): lines end in \n, the last one too; "# HELP <name> <docstring>" with
// \ and newline escaped; "# TYPE <name> <counter|gauge>" before the family's first sample;
// samples as <name>{<label>="<value>",...} <value>, label values with \, " and newline escaped,
// the value a Go ParseFloat spelling (NaN, +Inf, -Inf). No timestamps: node_exporter's textfile
// collector refuses samples that carry one.
#include "metrics/exposition.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <set>
#include <string_view>

namespace metrics {
namespace {

bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*; label names: [a-zA-Z_][a-zA-Z0-9_]* (data model).
bool valid_name(std::string_view name, bool colon_allowed) {
    if (name.empty() || ascii_digit(name[0]))
        return false;
    return std::all_of(name.begin(), name.end(), [&](char c) {
        return ascii_letter(c) || ascii_digit(c) || c == '_' || (colon_allowed && c == ':');
    });
}

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
        if (length == 0 || i + length > text.size())
            return false;
        uint32_t code = length == 1 ? lead : lead & (0x7f >> length);
        for (size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xc0) != 0x80)
                return false;
            code = (code << 6) | (next & 0x3f);
        }
        constexpr uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < kLeast[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
            return false;
        i += length;
    }
    return true;
}

bool ends_with(std::string_view text, std::string_view tail) {
    return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

pdt::Error family_error(const std::string& name, const std::string& rule) {
    return pdt::make_error("check metric family", name.empty() ? "\"\"" : name, EINVAL, rule);
}

pdt::Result<void> check_sample(const Family& family, const Sample& sample) {
    std::set<std::string> names;
    for (const auto& [label, value] : sample.labels) {
        if (!valid_name(label, false))
            return family_error(family.name, "label name \"" + label + "\" does not match [a-zA-Z_][a-zA-Z0-9_]*");
        if (label.starts_with("__"))
            return family_error(family.name, "label name " + label + " starts with __, which Prometheus reserves");
        if (!names.insert(label).second)
            return family_error(family.name, "a sample names label " + label + " twice");
        if (!valid_utf8(value))
            return family_error(family.name, "the value of label " + label + " is not UTF-8");
    }
    if (family.type == Type::Counter && sample.value < 0)
        return family_error(family.name, "a counter is negative (" + format_value(sample.value) + ")");
    return {};
}

pdt::Result<void> check_family(const Family& family) {
    if (!valid_name(family.name, true))
        return family_error(family.name, "a metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*");
    if (family.type == Type::Counter && !ends_with(family.name, "_total"))
        return family_error(family.name, "a counter's name ends in _total");
    if (family.type == Type::Gauge && ends_with(family.name, "_total"))
        return family_error(family.name, "only a counter's name ends in _total");
    if (family.help.empty())
        return family_error(family.name, "no HELP text: say what it measures, in which unit");
    if (!valid_utf8(family.help))
        return family_error(family.name, "the HELP text is not UTF-8");
    std::set<Labels> label_sets;
    for (const Sample& sample : family.samples) {
        PDT_CHECK(check_sample(family, sample));
        Labels sorted = sample.labels;
        std::sort(sorted.begin(), sorted.end());
        if (!label_sets.insert(sorted).second)
            return family_error(family.name, "two samples have the same labels");
    }
    return {};
}

// Escapes \ and newline, and " too in label values.
std::string escaped(std::string_view text, bool quote) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' && quote)
            out += "\\\"";
        else
            out += c;
    }
    return out;
}

void append_sample(std::string& out, const std::string& name, const Sample& sample) {
    out += name;
    if (!sample.labels.empty()) {
        out += '{';
        for (size_t i = 0; i < sample.labels.size(); ++i) {
            if (i != 0)
                out += ',';
            out += sample.labels[i].first + "=\"" + escaped(sample.labels[i].second, true) + '"';
        }
        out += '}';
    }
    out += ' ' + format_value(sample.value) + '\n';
}

// The exponent of a to_chars scientific spelling "[-]d[.ddd]e±XX".
int decimal_exponent(std::string_view scientific) {
    const size_t e = scientific.find('e');
    int exponent = 0;
    std::from_chars(scientific.data() + e + 1 + (scientific[e + 1] == '+'), scientific.data() + scientific.size(), exponent);
    return exponent;
}

// "[-]d[.ddd]e±XX" with the decimal point moved by the exponent: Go's fmtF of the same digits.
std::string fixed_from_scientific(std::string_view scientific) {
    const int exponent = decimal_exponent(scientific);
    const bool negative = scientific.front() == '-';
    if (negative)
        scientific.remove_prefix(1);
    std::string digits;
    for (char c : scientific.substr(0, scientific.find('e')))
        if (c != '.')
            digits += c;
    std::string out = negative ? "-" : "";
    if (exponent < 0)
        return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    const size_t integer = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= integer)
        return out + digits + std::string(integer - digits.size(), '0');
    return out + digits.substr(0, integer) + "." + digits.substr(integer);
}

}  // namespace

pdt::Result<void> check_families(const std::vector<Family>& families) {
    std::set<std::string> names;
    for (const Family& family : families) {
        PDT_CHECK(check_family(family));
        if (!names.insert(family.name).second)
            return family_error(family.name, "two families have this name");
    }
    return {};
}

std::string format_value(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == 0)
        return "0";  // -0 too, as Prometheus's client_golang writes it
    // The shortest digits that read back as the value (Go's roundShortest; C++17 to_chars),
    // in %e form: the exponent signed and at least two digits, as Go's fmtE writes it.
    char buffer[32];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string scientific(buffer, written.ptr);
    const int exponent = decimal_exponent(scientific);
    // Go's 'g' with the shortest precision: %e when the exponent is < -4 or >= 6 (eprec = 6).
    if (exponent < -4 || exponent >= 6)
        return scientific;
    return fixed_from_scientific(scientific);
}

std::string exposition_text(const std::vector<Family>& families) {
    std::string out;
    for (const Family& family : families) {
        if (family.samples.empty())
            continue;
        out += "# HELP " + family.name + ' ' + escaped(family.help, false) + '\n';
        out += "# TYPE " + family.name + (family.type == Type::Counter ? " counter\n" : " gauge\n");
        for (const Sample& sample : family.samples)
            append_sample(out, family.name, sample);
    }
    return out;
}

}  // namespace metrics
