// The strict number parsers every option and parameter goes through (base/numbers.hpp):
// each accepted form, and each refusal with its message.
#include <gtest/gtest.h>

#include <cerrno>

#include "base/numbers.hpp"
#include "base/option_error.hpp"

namespace {

// A usage error is EINVAL with `usage` set: mains exit 2 for it, and 1 for any other error,
// a plain EINVAL (a device's) included.
TEST(UsageError, IsEinvalMarkedAsUsage) {
    const pdt::Error usage = pdt::usage_error("parse option --count", "\"x\"", "expected a number");
    EXPECT_TRUE(usage.usage);
    EXPECT_EQ(usage.code, EINVAL);
    EXPECT_EQ(usage.message(), "parse option --count \"x\": Invalid argument (expected a number)");
    EXPECT_FALSE(pdt::make_error("VFIO_DEVICE_SET_IRQS", "0000:15:00.0", EINVAL).usage);
    EXPECT_FALSE(pdt::make_error("open", "/dev/vfio/12", ENOENT, "load vfio-pci").usage);
    const pdt::Error option = pdt::option_error("count", "x", "expected a number");
    EXPECT_TRUE(option.usage);
    EXPECT_EQ(option.code, EINVAL);
}

TEST(ParseNumber, ReadsCNotationWithinTheRange) {
    EXPECT_EQ(*pdt::parse_number("n", "0x40", 0, 100), 64u);
    EXPECT_EQ(*pdt::parse_number("n", "020", 0, 100), 16u);  // octal, as strtoull base 0 reads it
    EXPECT_EQ(*pdt::parse_number("n", "100", 0, 100), 100u);
    EXPECT_EQ(*pdt::parse_number("n", "0", 0, 0), 0u);
    EXPECT_EQ(*pdt::parse_number("n", "18446744073709551615", 0, UINT64_MAX), UINT64_MAX);
}

TEST(ParseNumber, RefusesWhatIsNotAnUnsignedNumber) {
    for (const char* text : {"", "-1", "+1", " 1", ".5", "x1", "abc"}) {
        const auto r = pdt::parse_number("count", text, 0, 100);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().code, EINVAL) << text;
        EXPECT_TRUE(r.error().usage) << text;
        EXPECT_EQ(r.error().message(), std::string("parse option --count \"") + text +
                                           "\": Invalid argument (expected an unsigned number)");
    }
    for (const char* text : {"12abc", "1 ", "0x", "09", "99999999999999999999"}) {
        const auto r = pdt::parse_number("count", text, 0, UINT64_MAX);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().hint, "expected an unsigned number (0x.. hex, 0.. octal, or decimal)") << text;
    }
}

TEST(ParseNumber, RefusesAValueOutsideTheRange) {
    EXPECT_EQ(pdt::parse_number("stream_num_descriptors", "1024", 1, 1023).error().message(),
              "parse option --stream_num_descriptors \"1024\": Invalid argument (must be in the range 1..1023)");
    EXPECT_EQ(pdt::parse_number("n", "0", 1, 2).error().hint, "must be in the range 1..2");
}

TEST(ParseSeconds, ReadsAPositiveNumberOfSeconds) {
    EXPECT_DOUBLE_EQ(*pdt::parse_seconds("duration", "2.5"), 2.5);
    EXPECT_DOUBLE_EQ(*pdt::parse_seconds("duration", ".5"), 0.5);
    EXPECT_DOUBLE_EQ(*pdt::parse_seconds("duration", "1e9"), pdt::kMaxSeconds);
}

TEST(ParseSeconds, RefusesZeroNegativeJunkAndTooLong) {
    for (const char* text : {"0", "-1", "", "1s", "inf", "nan", " 1", "+2"}) {
        const auto r = pdt::parse_seconds("duration", text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_TRUE(r.error().usage) << text;
        EXPECT_EQ(r.error().message(), std::string("parse option --duration \"") + text +
                                           "\": Invalid argument (expected a positive number of seconds)");
    }
    EXPECT_EQ(pdt::parse_seconds("duration", "2e9").error().hint, "must be at most 1000000000 seconds");
}

TEST(ParseSize, ReadsBinaryAndDecimalUnits) {
    EXPECT_EQ(*pdt::parse_size("4096"), 4096u);
    EXPECT_EQ(*pdt::parse_size("65B"), 65u);
    EXPECT_EQ(*pdt::parse_size("4K"), 4096u);
    EXPECT_EQ(*pdt::parse_size("4KiB"), 4096u);
    EXPECT_EQ(*pdt::parse_size("1.5MiB"), 3u << 19);
    EXPECT_EQ(*pdt::parse_size("64M"), 64u << 20);
    EXPECT_EQ(*pdt::parse_size("2G"), 2ull << 30);
    EXPECT_EQ(*pdt::parse_size("1.7GB"), 1700000000u);
    EXPECT_EQ(*pdt::parse_size("1KB"), 1000u);
}

TEST(ParseSize, RefusesUnknownUnitsSignsAndHugeSizes) {
    for (const char* text : {"", "-4K", "4 KiB", "4kib", "4T", "K", "2e15", "x"}) {
        const auto r = pdt::parse_size(text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_TRUE(r.error().usage) << text;
        EXPECT_EQ(r.error().message(), std::string("parse size \"") + text +
                                           "\": Invalid argument (expected a number of bytes, e.g. 4096, 4KiB, 64MiB)");
    }
}

TEST(ParseSizeList, ReadsListsAndRanges) {
    EXPECT_EQ(*pdt::parse_size_list("64,128,4KiB"), (std::vector<uint64_t>{64, 128, 4096}));
    EXPECT_EQ(*pdt::parse_size_list("1-4"), (std::vector<uint64_t>{1, 2, 3, 4}));
    EXPECT_EQ(*pdt::parse_size_list("8,,16,"), (std::vector<uint64_t>{8, 16}));  // empty items are skipped
}

TEST(ParseSizeList, RefusesEmptyListsBadItemsAndBadRanges) {
    EXPECT_EQ(pdt::parse_size_list(",").error().message(),
              "parse list \",\": Invalid argument (expected comma-separated sizes)");
    EXPECT_EQ(pdt::parse_size_list("").error().hint, "expected comma-separated sizes");
    EXPECT_TRUE(pdt::parse_size_list("").error().usage);
    EXPECT_TRUE(pdt::parse_size_list("8-4").error().usage);
    EXPECT_EQ(pdt::parse_size_list("64,4X").error().message(),
              "parse size \"4X\": Invalid argument (expected a number of bytes, e.g. 4096, 4KiB, 64MiB)");
    EXPECT_EQ(pdt::parse_size_list("8-4").error().message(),
              "parse range \"8-4\": Invalid argument (expected first-last with first <= last, at most 4096 values)");
    EXPECT_EQ(pdt::parse_size_list("0-4097").error().hint, "expected first-last with first <= last, at most 4096 values");
    EXPECT_FALSE(pdt::parse_size_list("1-x").ok());
}

}  // namespace
