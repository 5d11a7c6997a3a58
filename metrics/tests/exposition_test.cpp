#include "metrics/exposition.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using metrics::Family;
using metrics::Type;

// Expected spellings from Go's strconv.FormatFloat(v, 'g', -1, 64), what client_golang writes.
TEST(FormatValue, SpecialValuesAsGoSpellsThem) {
    EXPECT_EQ(metrics::format_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
    EXPECT_EQ(metrics::format_value(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(metrics::format_value(-std::numeric_limits<double>::infinity()), "-Inf");
    EXPECT_EQ(metrics::format_value(0.0), "0");
    EXPECT_EQ(metrics::format_value(-0.0), "0");
    EXPECT_EQ(metrics::format_value(1.0), "1");
    EXPECT_EQ(metrics::format_value(-1.0), "-1");
}

TEST(FormatValue, ShortestDecimalInFixedFormBetweenExponentsMinus4And5) {
    EXPECT_EQ(metrics::format_value(0.1), "0.1");
    EXPECT_EQ(metrics::format_value(0.0001), "0.0001");
    EXPECT_EQ(metrics::format_value(0.000123), "0.000123");
    EXPECT_EQ(metrics::format_value(999999.0), "999999");
    EXPECT_EQ(metrics::format_value(123456.7), "123456.7");
    EXPECT_EQ(metrics::format_value(42.5), "42.5");
    EXPECT_EQ(metrics::format_value(-3.25), "-3.25");
    EXPECT_EQ(metrics::format_value(1.0 / 3.0), "0.3333333333333333");
}

TEST(FormatValue, ExponentFormBelowMinus4AndFrom6) {
    EXPECT_EQ(metrics::format_value(1e6), "1e+06");
    EXPECT_EQ(metrics::format_value(1234567.0), "1.234567e+06");
    EXPECT_EQ(metrics::format_value(0.00001), "1e-05");
    EXPECT_EQ(metrics::format_value(1.5e-7), "1.5e-07");
    EXPECT_EQ(metrics::format_value(608863452348.1149), "6.088634523481149e+11");
    EXPECT_EQ(metrics::format_value(12884901888.0), "1.2884901888e+10");  // 12 GiB verified
    EXPECT_EQ(metrics::format_value(1e21), "1e+21");
    EXPECT_EQ(metrics::format_value(-2.5e100), "-2.5e+100");
    EXPECT_EQ(metrics::format_value(5e-324), "5e-324");
    EXPECT_EQ(metrics::format_value(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
}

TEST(FormatValue, ReadsBackAsTheSameDouble) {
    for (double v : {0.1, 2.0 / 3.0, 1e-5 / 3.0, 6.02214076e23, 299792458.0, 1234.5678e-9})
        EXPECT_EQ(std::stod(metrics::format_value(v)), v) << metrics::format_value(v);
}

std::vector<Family> example_families() {
    return {
        {"pdt_errors_total", "Data errors seen.", Type::Counter,
         {{{{"host", "lab1"}, {"channel", "0"}}, 0}, {{{"host", "lab1"}, {"channel", "1"}}, 3}}},
        {"pdt_transfer_rate_bytes_per_second", "Rate.", Type::Gauge, {{{{"channel", "0"}}, 1.5e9}}},
        {"pdt_no_samples", "Left out.", Type::Gauge, {}},
        {"pdt_verdict_pass", "1 while passing.", Type::Gauge, {{{}, 1}}},
    };
}

TEST(ExpositionText, HelpTypeAndSamplesOfEachFamilyInOrder) {
    EXPECT_EQ(metrics::exposition_text(example_families()),
              "# HELP pdt_errors_total Data errors seen.\n"
              "# TYPE pdt_errors_total counter\n"
              "pdt_errors_total{host=\"lab1\",channel=\"0\"} 0\n"
              "pdt_errors_total{host=\"lab1\",channel=\"1\"} 3\n"
              "# HELP pdt_transfer_rate_bytes_per_second Rate.\n"
              "# TYPE pdt_transfer_rate_bytes_per_second gauge\n"
              "pdt_transfer_rate_bytes_per_second{channel=\"0\"} 1.5e+09\n"
              "# HELP pdt_verdict_pass 1 while passing.\n"
              "# TYPE pdt_verdict_pass gauge\n"
              "pdt_verdict_pass 1\n");
    EXPECT_TRUE(metrics::check_families(example_families()).ok());
}

TEST(ExpositionText, NoFamiliesIsNoText) { EXPECT_EQ(metrics::exposition_text({}), ""); }

TEST(ExpositionText, LabelValuesEscapeBackslashQuoteAndNewline) {
    const std::vector<Family> families{
        {"pdt_sensor_celsius", "Temperature.", Type::Gauge, {{{{"sensor", "a\\b \"c\"\nd"}}, 41.25}}}};
    EXPECT_EQ(metrics::exposition_text(families), "# HELP pdt_sensor_celsius Temperature.\n"
                                                  "# TYPE pdt_sensor_celsius gauge\n"
                                                  "pdt_sensor_celsius{sensor=\"a\\\\b \\\"c\\\"\\nd\"} 41.25\n");
}

TEST(ExpositionText, HelpEscapesBackslashAndNewlineButNotQuotes) {
    const std::vector<Family> families{{"pdt_x", "a \"q\" \\ b\nc", Type::Gauge, {{{}, -0.5}}}};
    EXPECT_EQ(metrics::exposition_text(families), "# HELP pdt_x a \"q\" \\\\ b\\nc\n# TYPE pdt_x gauge\npdt_x -0.5\n");
}

TEST(ExpositionText, NonFiniteValues) {
    const std::vector<Family> families{
        {"pdt_x", "x", Type::Gauge, {{{{"v", "nan"}}, NAN}, {{{"v", "inf"}}, INFINITY}, {{{"v", "-inf"}}, -INFINITY}}}};
    EXPECT_EQ(metrics::exposition_text(families),
              "# HELP pdt_x x\n# TYPE pdt_x gauge\npdt_x{v=\"nan\"} NaN\npdt_x{v=\"inf\"} +Inf\npdt_x{v=\"-inf\"} -Inf\n");
}

std::string check_message(std::vector<Family> families) {
    const auto checked = metrics::check_families(families);
    EXPECT_FALSE(checked.ok());
    if (checked.ok())
        return "";
    EXPECT_EQ(checked.error().code, EINVAL);
    return checked.error().message();
}

Family gauge(std::string name, metrics::Labels labels = {}) {
    return {std::move(name), "help", Type::Gauge, {{std::move(labels), 1}}};
}

TEST(CheckFamilies, MetricNames) {
    EXPECT_TRUE(metrics::check_families({gauge("a:b_c9"), gauge("_x"), gauge(":y")}).ok());
    EXPECT_EQ(check_message({gauge("9lives")}),
              "check metric family 9lives: Invalid argument (a metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*)");
    EXPECT_EQ(check_message({gauge("pdt-rate")}),
              "check metric family pdt-rate: Invalid argument (a metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*)");
    EXPECT_EQ(check_message({gauge("")}),
              "check metric family \"\": Invalid argument (a metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*)");
}

TEST(CheckFamilies, LabelNames) {
    EXPECT_EQ(check_message({gauge("pdt_x", {{"pci:address", "0"}})}),
              "check metric family pdt_x: Invalid argument (label name \"pci:address\" does not match "
              "[a-zA-Z_][a-zA-Z0-9_]*)");
    EXPECT_EQ(check_message({gauge("pdt_x", {{"0ch", "0"}})}),
              "check metric family pdt_x: Invalid argument (label name \"0ch\" does not match [a-zA-Z_][a-zA-Z0-9_]*)");
    EXPECT_EQ(check_message({gauge("pdt_x", {{"__name__", "y"}})}),
              "check metric family pdt_x: Invalid argument (label name __name__ starts with __, which Prometheus "
              "reserves)");
    EXPECT_EQ(check_message({gauge("pdt_x", {{"host", "a"}, {"host", "b"}})}),
              "check metric family pdt_x: Invalid argument (a sample names label host twice)");
}

TEST(CheckFamilies, CounterAndGaugeSuffixes) {
    EXPECT_EQ(check_message({{"pdt_errors", "help", Type::Counter, {{{}, 1}}}}),
              "check metric family pdt_errors: Invalid argument (a counter's name ends in _total)");
    EXPECT_EQ(check_message({gauge("pdt_bytes_total")}),
              "check metric family pdt_bytes_total: Invalid argument (only a counter's name ends in _total)");
    EXPECT_EQ(check_message({{"pdt_errors_total", "help", Type::Counter, {{{}, -1}}}}),
              "check metric family pdt_errors_total: Invalid argument (a counter is negative (-1))");
}

TEST(CheckFamilies, HelpDuplicatesAndUtf8) {
    EXPECT_EQ(check_message({{"pdt_x", "", Type::Gauge, {{{}, 1}}}}),
              "check metric family pdt_x: Invalid argument (no HELP text: say what it measures, in which unit)");
    EXPECT_EQ(check_message({gauge("pdt_x"), gauge("pdt_x")}),
              "check metric family pdt_x: Invalid argument (two families have this name)");
    EXPECT_EQ(check_message({{"pdt_x", "h", Type::Gauge, {{{{"a", "1"}, {"b", "2"}}, 1}, {{{"b", "2"}, {"a", "1"}}, 2}}}}),
              "check metric family pdt_x: Invalid argument (two samples have the same labels)");
    EXPECT_EQ(check_message({gauge("pdt_x", {{"design", "\xc3("}})}),
              "check metric family pdt_x: Invalid argument (the value of label design is not UTF-8)");
    EXPECT_EQ(check_message({gauge("pdt_x", {{"design", "\xed\xa0\x80"}})}),  // a surrogate
              "check metric family pdt_x: Invalid argument (the value of label design is not UTF-8)");
    EXPECT_EQ(check_message({gauge("pdt_x", {{"design", "\xc0\xaf"}})}),  // overlong '/'
              "check metric family pdt_x: Invalid argument (the value of label design is not UTF-8)");
    EXPECT_EQ(check_message({{"pdt_x", "\xff", Type::Gauge, {{{}, 1}}}}),
              "check metric family pdt_x: Invalid argument (the HELP text is not UTF-8)");
    EXPECT_TRUE(metrics::check_families({gauge("pdt_x", {{"sensor", "T\xc2\xb0 \xe2\x84\x83 \xf0\x9f\x94\xa5"}})}).ok());
}

}  // namespace
