// The JSON object reader of the design parser: every error names the source and the field.
// Private to the designs library (design_parser.cpp, design_parser_qdma.cpp, design_parser_cmac.cpp,
// design_parser_axi_dma.cpp).
#pragma once

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "base/result.hpp"
#include "designs/design.hpp"

namespace designs::detail {

using json = nlohmann::json;

// Reads one JSON object, remembering where it is ("peripherals[2]") so that every error names
// the field. Unknown keys are errors: a misspelt optional field would otherwise be ignored.
class Fields {
public:
    Fields(const json& object, std::string path, const std::string& source)
        : m_object(object), m_path(std::move(path)), m_source(source) {}

    pdt::Error error(const std::string& key, const std::string& problem) const {
        return pdt::usage_error("parse design file", m_source + " field " + field(key), problem);
    }
    std::string field(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }
    bool has(const char* key) const { return m_object.contains(key); }
    const json& at(const char* key) const { return m_object.at(key); }
    const std::string& source() const { return m_source; }

    pdt::Result<void> only(std::initializer_list<const char*> allowed) const {
        for (const auto& item : m_object.items()) {
            const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture one
            if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) {
                std::string list;
                for (const char* a : allowed)
                    list += std::string(list.empty() ? "" : ", ") + a;
                return error(key, "unknown field; expected one of: " + list);
            }
        }
        return {};
    }

    // A number given as a JSON integer or as a string "0x1f" / "31"; within [0, max].
    pdt::Result<uint64_t> number(const char* key, uint64_t max) const {
        if (!has(key))
            return error(key, "missing required field");
        return number_value(key, at(key), max);
    }
    pdt::Result<uint64_t> number_or(const char* key, uint64_t max, uint64_t fallback) const {
        return has(key) ? number(key, max) : pdt::Result<uint64_t>(fallback);
    }
    pdt::Result<uint64_t> number_value(const std::string& key, const json& value, uint64_t max) const {
        uint64_t n = 0;
        if (value.is_number_unsigned()) {
            n = value.get<uint64_t>();
        } else if (value.is_number_integer()) {
            return error(key, "must not be negative (got " + value.dump() + ")");
        } else if (value.is_string()) {
            const std::string text = value.get<std::string>();
            const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
            const char* begin = text.data() + (hex ? 2 : 0);
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(begin, end, n, hex ? 16 : 10);
            if (text.empty() || ec != std::errc() || ptr != end)
                return error(key, "expected a number such as 0x2000 or 8192 (got \"" + text + "\")");
        } else {
            return error(key, "expected a number or a \"0x...\" string (got " + value.dump() + ")");
        }
        if (n > max) {
            char limit[32];
            std::snprintf(limit, sizeof limit, "0x%llx", static_cast<unsigned long long>(max));
            return error(key, "value " + std::to_string(n) + " is above the maximum " + limit);
        }
        return n;
    }

    // A JSON true/false.
    pdt::Result<bool> boolean(const char* key) const {
        if (!has(key) || !at(key).is_boolean())
            return error(key, "expected true or false (got " + (has(key) ? at(key).dump() : std::string("nothing")) + ")");
        return at(key).get<bool>();
    }
    // A number within [0, max], or "any" (a wildcard: std::nullopt).
    pdt::Result<std::optional<uint64_t>> number_or_any(const char* key, uint64_t max) const {
        if (has(key) && at(key).is_string() && at(key).get<std::string>() == "any")
            return std::optional<uint64_t>();
        return std::optional<uint64_t>(PDT_TRY(number(key, max)));
    }

    pdt::Result<std::string> text(const char* key, bool required) const {
        if (!has(key))
            return required ? pdt::Result<std::string>(error(key, "missing required field")) : std::string();
        if (!at(key).is_string())
            return error(key, "expected a string (got " + at(key).dump() + ")");
        return at(key).get<std::string>();
    }

    pdt::Result<Fields> object(const char* key) const { return object_value(field(key), at(key)); }
    pdt::Result<Fields> object_value(const std::string& path, const json& value) const {
        if (!value.is_object())
            return pdt::usage_error("parse design file", m_source + " field " + path,
                                    "expected an object {...} (got " + value.dump() + ")");
        return Fields(value, path, m_source);
    }
    // Parses each element of the array `key` in turn, as the object "key[i]", and appends it to
    // `out`, stopping at the first error; `expected` is the error when `key` is not an array.
    template <typename T, typename Parse>
    pdt::Result<void> append_objects(const char* key, const std::string& expected, std::vector<T>& out,
                                     const Parse& parse) const {
        const json& list = at(key);
        if (!list.is_array())
            return error(key, expected);
        for (size_t i = 0; i < list.size(); ++i)
            out.push_back(PDT_TRY(parse(PDT_TRY(object_value(field(key) + "[" + std::to_string(i) + "]", list[i])))));
        return {};
    }

private:
    const json& m_object;
    std::string m_path;
    const std::string& m_source;
};

// One end of a route object: its key, the route member it fills, its largest value.
template <typename Route>
struct RouteEnd {
    const char* key;
    unsigned Route::*member;
    uint64_t max;
};

// The array `key` of route objects {"<from>": n, "<to>": m} (`expected` when it is not an array);
// a route whose `unique` end (from or to) repeats an earlier route's is refused: "<label> n is
// routed twice".
template <typename Route>
pdt::Result<std::vector<Route>> parse_route_objects(const Fields& f, const char* key, const std::string& expected,
                                                    const RouteEnd<Route>& from, const RouteEnd<Route>& to,
                                                    const RouteEnd<Route>& unique, const std::string& label) {
    std::vector<Route> routes;
    auto parse_route = [&](const Fields& r) -> pdt::Result<Route> {
        PDT_CHECK(r.only({from.key, to.key}));
        Route route;
        route.*from.member = static_cast<unsigned>(PDT_TRY(r.number(from.key, from.max)));
        route.*to.member = static_cast<unsigned>(PDT_TRY(r.number(to.key, to.max)));
        for (const Route& earlier : routes)
            if (earlier.*unique.member == route.*unique.member)
                return r.error(unique.key, label + " " + std::to_string(route.*unique.member) + " is routed twice");
        return route;
    };
    PDT_CHECK(f.append_objects(key, expected, routes, parse_route));
    return routes;
}

// The QDMA sections (design_parser_qdma.cpp): qdma, card and simulation.qdma.
pdt::Result<Qdma> parse_qdma(const Fields& f);
pdt::Result<CardFunction> parse_card(const Fields& f);
pdt::Result<QdmaSimulation> parse_qdma_simulation(const Fields& f);

// A cmac peripheral's own fields (design_parser_cmac.cpp).
pdt::Result<void> parse_cmac(const Fields& f, Peripheral& p);
// An axi_dma peripheral's own fields (design_parser_axi_dma.cpp).
pdt::Result<void> parse_axi_dma(const Fields& f, Peripheral& p);
// A ddr_reset_gpio peripheral's simulated_mig object (design_parser_gpio.cpp).
pdt::Result<void> parse_simulated_mig(const Fields& f, Peripheral& p);

}  // namespace designs::detail
